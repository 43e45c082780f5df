package pipeline

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress reports retrieval progress on stderr: a line rewritten in place
// on a terminal, a line per tenth in CI logs. Runs under 200 queries stay
// quiet in logs.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	total    int
	done     int
	lastStep int
	lastDraw time.Time
	start    time.Time
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, start: time.Now()}
	f, ok := w.(*os.File)
	if fw, isFile := w.(interface{ File() (*os.File, bool) }); isFile {
		f, ok = fw.File()
	}
	if ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	switch {
	case p.tty:
		if time.Since(p.lastDraw) > 100*time.Millisecond || p.done == p.total {
			fmt.Fprintf(p.w, "\rrecallgate: retrieved %d/%d queries", p.done, p.total)
			p.lastDraw = time.Now()
		}
	case p.total >= 200:
		if step := p.done * 10 / p.total; step > p.lastStep {
			p.lastStep = step
			fmt.Fprintf(p.w, "recallgate: retrieved %d/%d queries (%d%%) in %s\n", p.done, p.total, step*10, time.Since(p.start).Round(100*time.Millisecond))
		}
	}
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.done > 0 {
		fmt.Fprintln(p.w)
	}
}
