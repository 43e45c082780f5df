package input

import (
	"fmt"
	"os"
)

// OpenRegular opens path for reading and refuses it (wrapping
// ErrNotRegular) unless the file opened is a regular one. The open does
// not wait (a FIFO put at path opens at once, with no writer needed) and
// the check reads the open file itself, so a file swapped in between a
// check and the open cannot make recallgate read a FIFO, which would
// block it forever, or a device. Reading a regular file never waits on
// another process.
func OpenRegular(path string) (*os.File, error) {
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	return f, nil
}
