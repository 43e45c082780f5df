package input

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The bounds on what recallgate reads of an untrusted input (a pull
// request's files, a retriever's answers): each is generous for real data
// and stops a small hostile input from growing memory without bound. Past
// one the input is refused with an *InputError naming the file, the line
// and the limit (an HTTP answer past its bounds is the retriever's fault:
// an infrastructure error naming the query).
const (
	// MaxSetLineBytes bounds one line of an eval set, a draft set or a
	// queries file.
	MaxSetLineBytes = 1 << 20
	// MaxRunLineBytes bounds one line of a run (JSONL or TREC): a query's
	// answer with a thousand hits and their passages is a few MiB.
	MaxRunLineBytes = 16 << 20
	// MaxCorpusLineBytes bounds one document of a corpus: a line of a JSONL
	// corpus (gzipped or not) or one file of a corpus folder.
	MaxCorpusLineBytes = 16 << 20
	// MaxGzipRatio bounds how much a gzipped corpus may expand: at most
	// MaxGzipRatio bytes out for each byte in (past the first
	// MinGzipAllowance), all members together. Text and JSON compress
	// 3–20×; a compression bomb reaches 1000×.
	MaxGzipRatio = 200
	// MinGzipAllowance is what any gzipped corpus may expand to, whatever
	// its compressed size.
	MinGzipAllowance = 64 << 20
	// MaxJSONDepth bounds the nesting of arrays and objects in any JSON
	// recallgate reads of an untrusted source: set, run and corpus lines,
	// reports and HTTP answers. recallgate's own formats need 6.
	MaxJSONDepth = 64
	// MaxConfigBytes bounds a config file.
	MaxConfigBytes = 1 << 20
	// MaxRunIDBytes bounds a query id in a run or an eval set: a run of a
	// few lines with ids of megabytes would otherwise be held whole (to
	// find repeated ids) and quoted whole in the error that they match
	// nothing in the set; a set's, sent to the retriever and printed in
	// every report line of its query.
	MaxRunIDBytes = 4096
	// MaxShownIDChars bounds how many characters of one id any message
	// prints (ClipID).
	MaxShownIDChars = 200
)

// ClipID is an id (a query's, a document's) as an error or a warning
// prints it: whole when it has at most MaxShownIDChars characters, else
// its first characters, "…" and its length, within MaxShownIDChars.
func ClipID(id string) string {
	if utf8.RuneCountInString(id) <= MaxShownIDChars {
		return id
	}
	tail := fmt.Sprintf("…(%d bytes)", len(id))
	keep, n := MaxShownIDChars-utf8.RuneCountInString(tail), 0
	for i := range id {
		if n == keep {
			return id[:i] + tail
		}
		n++
	}
	return id
}

// LimitError is an input past one of the bounds above.
type LimitError struct {
	// What is the thing bounded ("line 3", "the report"), Limit the bound in bytes.
	What  string
	Limit int64
}

// Error implements error.
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s is longer than %s", e.What, FormatBytes(e.Limit))
}

// FormatBytes writes a byte count as MiB or KiB when it is a whole number of them.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadInputFile reads a whole input file of at most max bytes: a path
// that is not a regular file (a FIFO, /dev/zero, a file under /proc) is
// refused before anything is read (see CheckInputFile), and a file
// larger than max is refused, not read; a Git LFS pointer is the
// LFSPointerError the set and corpus get. Other errors are *InputError
// naming the path; one wrapping fs.ErrNotExist when the file does not exist.
func ReadInputFile(path, what string, max int64) ([]byte, error) {
	f, err := Open(path)
	var infra *InfraError
	if errors.As(err, &infra) {
		return nil, err // a Git LFS pointer, as the set and corpus say it
	}
	if err != nil {
		return nil, &InputError{File: path, Err: fmt.Errorf("read %s: %w", what, err)}
	}
	defer f.Close()
	return ReadAllLimited(f, path, what, max)
}

// ReadAllLimited reads r to its end, refusing more than max bytes with an
// *InputError naming name and the limit.
func ReadAllLimited(r io.Reader, name, what string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, &InputError{File: name, Err: fmt.Errorf("read %s: %w", what, err)}
	}
	if int64(len(data)) > max {
		return nil, &InputError{File: name, Err: &LimitError{What: "the " + what, Limit: max}}
	}
	return data, nil
}

// ErrGzipBomb is wrapped when a gzipped input expands past MaxGzipRatio.
var ErrGzipBomb = errors.New("expands more than a real corpus does")

// RatioReader fails once more than MaxGzipRatio × the compressed size (at
// least MinGzipAllowance) has come out of a decompressor.
type RatioReader struct {
	// R is the decompressor, Compressed the compressed size.
	R          io.Reader
	Compressed int64
	out        int64
}

// Read implements io.Reader.
func (rr *RatioReader) Read(p []byte) (int, error) {
	n, err := rr.R.Read(p)
	rr.out += int64(n)
	if allow := max(MinGzipAllowance, MaxGzipRatio*rr.Compressed); rr.out > allow {
		return n, fmt.Errorf("decompressed past %s from %s compressed: %w (more than %d:1)", FormatBytes(allow), FormatBytes(rr.Compressed), ErrGzipBomb, MaxGzipRatio)
	}
	return n, err
}
