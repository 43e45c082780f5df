//go:build unix

package input

import (
	"os"
	"syscall"
)

// openNoWait opens path for reading without waiting: a FIFO with no
// writer opens at once (a read of it then finds nothing) instead of
// blocking the open until a writer comes, which may be never.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
