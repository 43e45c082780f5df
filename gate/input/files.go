package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/recallgate/recallgate/internal/confine"
)

// specialRoots hold files that look regular but are the machine's state
// (a process's environment, kernel settings, devices): never an input.
var specialRoots = []string{"/proc", "/sys", "/dev"}

// ErrNotRegular is wrapped by CheckInputFile for a path that is not a
// regular file (a FIFO would hang the run, a device or /proc would leak the
// machine's state into a report).
var ErrNotRegular = errors.New("not a regular file")

// CheckInputFile resolves path (symbolic links followed) and refuses it
// unless it is a regular file outside /proc, /sys and /dev. It returns the
// resolved path.
func CheckInputFile(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return "", err
	}
	for _, root := range specialRoots {
		if confine.Within(root, abs) {
			return "", fmt.Errorf("%s resolves to %s: %w (files under %s are the machine's, never an input)", path, abs, ErrNotRegular, root)
		}
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, info.Mode().Type())
	}
	return abs, nil
}

// lfsPointer starts a Git LFS pointer file: what a checkout without LFS
// (or a repository archive) holds instead of the file.
const lfsPointer = "version https://git-lfs.github.com/spec/v1"

// CheckoutFix says how to get the real files into a CI checkout.
const CheckoutFix = "check out with actions/checkout and lfs: true (submodules: true, fetch-depth: 0 for the base side), and use the native action or the CLI: a repository archive holds LFS pointers and no submodules"

// LFSPointerError means an input is a Git LFS pointer, not the file: the
// checkout did not fetch LFS objects. Scoring it would be silently wrong,
// so it is an infrastructure error.
func LFSPointerError(path string) error {
	return &InfraError{Err: fmt.Errorf("%s is a Git LFS pointer, not the file: %s", path, CheckoutFix)}
}

// IsLFSPointer reports whether data starts like a Git LFS pointer.
func IsLFSPointer(data []byte) bool { return bytes.HasPrefix(data, []byte(lfsPointer)) }

// Open opens a file recallgate reads as input after CheckInputFile,
// refusing a Git LFS pointer.
func Open(path string) (*os.File, error) {
	if _, err := CheckInputFile(path); err != nil {
		return nil, err
	}
	f, err := OpenRegular(path) // a FIFO swapped in since the check is refused, never waited on
	if err != nil {
		return nil, err
	}
	head := make([]byte, len(lfsPointer))
	n, _ := io.ReadFull(f, head)
	if IsLFSPointer(head[:n]) {
		f.Close()
		return nil, LFSPointerError(path)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Within reports whether the resolved path p lies inside the resolved root
// (confine.Within).
func Within(root, p string) bool { return confine.Within(root, p) }
