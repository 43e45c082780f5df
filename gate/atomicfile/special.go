package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Streams are the writers the names "-" and /dev/stdout (Stdout) and
// /dev/stderr (Stderr) stand for: a command's own output streams, so a
// report asked for there goes through the writer the command prints with,
// never a rename over /dev/stdout. A nil stream refuses its names.
type Streams struct {
	Stdout, Stderr io.Writer
}

// StallTimeout bounds each write to a FIFO or a device that waits for its
// reader (a terminal, a pipe): a reader that takes no data for this long
// fails the write rather than hang the job.
const StallTimeout = time.Minute

// stallTimeout is StallTimeout, shortened by the tests.
var stallTimeout = StallTimeout

// Write writes path with perm from what write produces:
//
//   - "-" and /dev/stdout go to s.Stdout, /dev/stderr to s.Stderr (so do
//     /dev/fd/1 and /proc/self/fd/1, and their 2s); a nil one refuses
//     (*StreamError);
//   - a path that is there and is a character device (/dev/null, a
//     terminal) or a FIFO is written straight: opened for writing without
//     creating or truncating it, never replaced. A link to one is refused
//     (a link a change commits where an output goes must not reach a
//     device), but for /dev/fd/N and /proc/self/fd/N. A FIFO is
//     opened without waiting: one that no process reads is refused at once
//     (*SpecialFileError), and each write that its reader does not take
//     within StallTimeout fails;
//   - a path that is there and is a directory, a socket, a block device or
//     any other file that is not regular is refused (*SpecialFileError):
//     what writing it would mean cannot be told;
//   - a regular file, or a path not there yet, is replaced atomically.
func (s Streams) Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	switch filepath.Clean(path) {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return toStream(path, s.Stdout, write)
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return toStream(path, s.Stderr, write)
	}
	fi, err := os.Stat(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return replace(path, perm, write)
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return replace(path, perm, write)
	case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		if lfi, err := os.Lstat(path); err == nil && lfi.Mode()&fs.ModeSymlink != 0 && !ownDescriptor(path) {
			// A link committed where an output goes (a cache entry, a
			// report) must not turn a write into one of /dev/mem.
			return &SpecialFileError{Path: path, Kind: "link to a " + kind(m), Reason: "a device or FIFO is written only when named itself (or as /dev/fd/N, the shell's >(…)): name it, not a link to it"}
		}
		return straight(path, fi, write)
	default:
		return &SpecialFileError{Path: path, Kind: kind(m)}
	}
}

// ownDescriptor reports whether path names one of this process's open
// descriptors (/dev/fd/N, /proc/self/fd/N): the shell's >(…) gives one.
func ownDescriptor(path string) bool {
	d := filepath.Dir(filepath.Clean(path))
	return d == "/dev/fd" || d == "/proc/self/fd"
}

// toStream writes to a caller's stream, buffered.
func toStream(path string, w io.Writer, write func(io.Writer) error) error {
	if w == nil {
		return &StreamError{Path: path}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// beforeOpen runs between the check of a special file and its open; the
// tests swap the file there.
var beforeOpen = func(string) {}

// straight writes a character device or a FIFO in place: the file fi
// described when it was checked, and no other. A path swapped between the
// check and the open (a link to a regular file put in the FIFO's place by
// a process of the change still running) is refused, never written over.
func straight(path string, fi fs.FileInfo, write func(io.Writer) error) error {
	m := fi.Mode()
	beforeOpen(path)
	f, err := openSpecial(path, m&fs.ModeNamedPipe != 0)
	if err != nil {
		if m&fs.ModeNamedPipe != 0 && isNoReader(err) {
			return &SpecialFileError{Path: path, Kind: "FIFO", Reason: "no process reads it (start its reader first; recallgate does not wait for one)"}
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		f.Close()
		return &SpecialFileError{Path: path, Kind: kind(m), Reason: "it was replaced between its check and its open (another process changes it): refused, nothing written"}
	}
	bw := bufio.NewWriterSize(stallWriter{f}, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("write %s: its reader took no data for %v", path, stallTimeout)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// stallWriter gives each write StallTimeout, where the file can have a
// deadline (a FIFO, a terminal; /dev/null cannot, and never waits).
type stallWriter struct{ f *os.File }

func (w stallWriter) Write(p []byte) (int, error) {
	_ = w.f.SetWriteDeadline(time.Now().Add(stallTimeout))
	return w.f.Write(p)
}

// kind names a file mode that is not written.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "file that is not regular (" + m.Type().String() + ")"
}

// StreamError refuses a stream's name where no stream is given: the file
// written here (a history, a set, a cache entry) must be a file.
type StreamError struct{ Path string }

// Error implements error.
func (e *StreamError) Error() string {
	return fmt.Sprintf("write %s: names a standard stream, and this output must be a file: name a file", e.Path)
}

// SpecialFileError refuses a path that is there and cannot be written as
// an output: a directory, a socket, a block device, a FIFO no process reads.
type SpecialFileError struct {
	Path, Kind string
	// Reason is why, when there is more to say than the kind.
	Reason string
}

// Error implements error.
func (e *SpecialFileError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("write %s: a %s: %s", e.Path, e.Kind, e.Reason)
	}
	return fmt.Sprintf("write %s: a %s, not a file recallgate writes (a regular file, a character device such as /dev/null, a FIFO with its reader, or - for the standard output): refused", e.Path, e.Kind)
}
