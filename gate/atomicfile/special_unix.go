//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// openSpecial opens a character device or a FIFO for writing without
// creating or truncating it. A FIFO is opened without waiting: with no
// reader the open fails at once (ENXIO) rather than block forever.
func openSpecial(path string, fifo bool) (*os.File, error) {
	flag := os.O_WRONLY
	if fifo {
		flag |= syscall.O_NONBLOCK
	}
	return os.OpenFile(path, flag, 0)
}

// isNoReader reports whether err is a FIFO's "no process reads it".
func isNoReader(err error) bool { return errors.Is(err, syscall.ENXIO) }
