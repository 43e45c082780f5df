package gate

import (
	"io"
	"os"
)

// The bounded, confined reading gate/corpus takes from here until it
// moves to gate/input (#48).

// OpenInput opens a regular input file, refusing an LFS pointer.
func OpenInput(path string) (*os.File, error) { return openInput(path) }

// Within reports whether the resolved path p lies inside the resolved root.
func Within(root, p string) bool { return within(root, p) }

// IsLFSPointer reports whether data starts as a Git LFS pointer does.
func IsLFSPointer(data []byte) bool { return isLFSPointer(data) }

// EachLine calls fn with every non-blank line of r and its 1-based
// number, each at most max bytes (an *InputError otherwise).
func EachLine(r io.Reader, name string, max int, fn func(line []byte, n int) error) error {
	return eachLine(r, name, max, fn)
}

// NewRatioReader bounds how far r (gzip of compressed bytes) expands
// (ErrGzipBomb).
func NewRatioReader(r io.Reader, compressed int64) io.Reader {
	return &ratioReader{r: r, compressed: compressed}
}

// CheckoutFix is the fix for a checkout without LFS files or submodules.
const CheckoutFix = checkoutFix

// JSONLineError turns an encoding/json error of line n into an
// *InputError naming the field when it can.
func JSONLineError(file string, n int, err error) *InputError { return jsonLineError(file, n, err) }
