// Package procgroup is what every program recallgate starts and must be
// able to stop shares: the program leads a process group of its own, so
// stopping it stops the helpers it started too (they cannot keep recallgate
// waiting on a pipe they inherited, nor outlive the job), and the end of
// its output is kept for the message that says how it ended. It imports
// nothing of recallgate's; the command retriever and the http retriever's
// service use it.
package procgroup

import (
	"bytes"
	"io"
	"strconv"
	"sync"
)

// TailBytes is how much of the end of a program's output Tail quotes.
const TailBytes = 400

// Tail passes a program's output on to Next (nil: dropped) and keeps its
// last bytes for a message.
type Tail struct {
	// Next receives everything written.
	Next io.Writer
	mu   sync.Mutex
	buf  []byte
}

// Write implements io.Writer.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*TailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-TailBytes:]...)
	}
	t.mu.Unlock()
	if t.Next == nil {
		return len(p), nil
	}
	return t.Next.Write(p)
}

// String quotes the last lines written, at most TailBytes, on one line;
// "" when nothing was written.
func (t *Tail) String() string {
	t.mu.Lock()
	b := bytes.TrimSpace(t.buf)
	t.mu.Unlock()
	if len(b) > TailBytes {
		b = b[len(b)-TailBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
		return "…" + strconv.Quote(string(b))
	}
	if len(b) == 0 {
		return ""
	}
	return strconv.Quote(string(b))
}
