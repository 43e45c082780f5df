package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// lineReader yields the lines of a stream one at a time, each at most max
// bytes, without allocating per line. The returned slice is valid until
// the next call.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
	max  int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<16), max: max}
}

// next returns the next line without its line ending, or io.EOF. A line
// that fits the read buffer is returned without copying; one longer than
// max (its line ending aside) is a *LimitError, found before more than
// max bytes of it are held.
func (lr *lineReader) next() ([]byte, error) {
	chunk, err := lr.r.ReadSlice('\n')
	b := chunk
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.buf = append(lr.buf[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(lr.buf) > lr.max+2 {
				return nil, &LimitError{What: fmt.Sprintf("line %d", lr.line+1), Limit: int64(lr.max)}
			}
			chunk, err = lr.r.ReadSlice('\n')
			lr.buf = append(lr.buf, chunk...)
		}
		b = lr.buf
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read line %d: %w", lr.line+1, err)
	}
	if len(b) == 0 && err != nil {
		return nil, io.EOF
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) > lr.max {
		return nil, &LimitError{What: fmt.Sprintf("line %d", lr.line+1), Limit: int64(lr.max)}
	}
	lr.line++
	if lr.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	}
	return b, nil
}

// isBlank reports whether a line holds only white space.
func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// LooksJSON reports whether the first non-blank byte of a line opens a JSON object.
func LooksJSON(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '{'
}

// EachLine calls fn with every non-blank line of r and its 1-based number;
// a line may hold at most max bytes. A read error or a longer line becomes
// an *InputError naming the file (and the line).
func EachLine(r io.Reader, name string, max int, fn func(line []byte, n int) error) error {
	lr := newLineReader(r, max)
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &InputError{File: name, Err: err}
		}
		if isBlank(line) {
			continue
		}
		if err := fn(line, lr.line); err != nil {
			return err
		}
	}
}
