//go:build !unix

package atomicfile

import "os"

// openSpecial opens a device for writing without creating or truncating it.
func openSpecial(path string, _ bool) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY, 0)
}

// isNoReader reports whether err is a FIFO's "no process reads it"; such
// systems have no FIFO in the file system.
func isNoReader(error) bool { return false }
