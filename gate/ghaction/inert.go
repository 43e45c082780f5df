package ghaction

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"sync"

	"github.com/recallgate/recallgate/gate"
)

// zwsp is the zero-width space put in front of a would-be workflow command:
// the line reads the same, and the runner no longer parses it.
const zwsp = "\u200b"

// InertWriter passes text through unchanged except that nothing in it can
// act as a GitHub Actions workflow command: a line whose first non-blank
// characters are "::" gets a zero-width space before them, and so does the
// "[" of every "##[" (the older command form). Everything recallgate prints
// that may carry text it did not write (eval set ids, retriever answers and
// stderr, error messages) goes through one; recallgate's own commands are
// written to the raw stream beside it.
type InertWriter struct {
	mu sync.Mutex
	w  io.Writer
	// atStart: no non-blank byte of the current line has been written.
	atStart bool
	// pending holds the blanks and at most one ':' of a line start whose
	// fate is not decided yet.
	pending []byte
	// last two bytes written, to spot "##[".
	prev [2]byte
	out  []byte
}

// NewInertWriter wraps w.
func NewInertWriter(w io.Writer) *InertWriter { return &InertWriter{w: w, atStart: true} }

// File returns the wrapped file, if it is one (so callers can still ask
// whether it is a terminal).
func (iw *InertWriter) File() (*os.File, bool) {
	f, ok := iw.w.(*os.File)
	return f, ok
}

// Write implements io.Writer. It reports len(p) written once the inert
// form of p is written.
func (iw *InertWriter) Write(p []byte) (int, error) {
	iw.mu.Lock()
	defer iw.mu.Unlock()
	iw.out = iw.out[:0]
	for _, c := range p {
		iw.feed(c)
	}
	if len(iw.out) > 0 {
		if _, err := iw.w.Write(iw.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (iw *InertWriter) emit(b ...byte) {
	for _, c := range b {
		if c == '[' && iw.prev == [2]byte{'#', '#'} {
			iw.out = append(iw.out, zwsp...)
		}
		iw.out = append(iw.out, c)
		iw.prev = [2]byte{iw.prev[1], c}
	}
}

func (iw *InertWriter) feed(c byte) {
	if c == '\n' || c == '\r' {
		iw.emit(iw.pending...)
		iw.pending = iw.pending[:0]
		iw.emit(c)
		iw.atStart = true
		return
	}
	if !iw.atStart {
		iw.emit(c)
		return
	}
	colon := len(iw.pending) > 0 && iw.pending[len(iw.pending)-1] == ':'
	switch {
	case (c == ' ' || c == '\t') && !colon:
		iw.pending = append(iw.pending, c)
	case c == ':' && !colon:
		iw.pending = append(iw.pending, c)
	case c == ':' && colon: // "::" starts the line: make it inert
		iw.emit(iw.pending[:len(iw.pending)-1]...)
		iw.out = append(iw.out, zwsp...)
		iw.emit(':', ':')
		iw.pending = iw.pending[:0]
		iw.atStart = false
	default:
		iw.emit(iw.pending...)
		iw.pending = iw.pending[:0]
		iw.emit(c)
		iw.atStart = false
	}
}

// StopCommands brackets output that recallgate did not write (a command
// retriever's stderr) in the runner's ::stop-commands:: block, with a token
// nobody can guess, so nothing inside is parsed as a command even where a
// line escapes InertWriter. It writes the opening line to raw now and
// returns the function that writes the closing one.
func StopCommands(raw io.Writer) (resume func()) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := "recallgate-" + hex.EncodeToString(b[:])
	io.WriteString(raw, "::stop-commands::"+token+"\n")
	return func() { io.WriteString(raw, "::"+token+"::\n") }
}

// Fence keeps one ::stop-commands:: block open on raw while anyone needs
// it: several subprocesses running at once share one block, closed by the
// last release. A nil *Fence opens nothing (outside Actions).
type Fence struct {
	mu     sync.Mutex
	raw    io.Writer
	n      int
	resume func()
}

// NewFence fences output on raw, the stream untrusted lines go to.
func NewFence(raw io.Writer) *Fence { return &Fence{raw: raw} }

// Open opens the block (or joins the open one) and returns its release.
func (f *Fence) Open() func() {
	if f == nil || f.raw == nil {
		return func() {}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.resume = StopCommands(f.raw)
	}
	f.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.n--; f.n == 0 {
				f.resume()
			}
		})
	}
}

// lockedWriter serialises writes to a writer that is not a file: retrieval
// goroutines, progress lines and a command retriever's stderr copier all
// write to stderr at once. It hides io.ReaderFrom on purpose, so a copier
// blocked in a read holds no state of the writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Serialized wraps w in a lockedWriter unless it is a file, whose writes
// the kernel orders (and whose terminal-ness progress lines test).
func Serialized(w io.Writer) io.Writer {
	if _, ok := w.(*os.File); ok {
		return w
	}
	return &lockedWriter{w: w}
}

// VisibleWriter shows, in everything written through it, the bidi controls
// and invisible characters a reader of the log or an annotation could not
// see (gate.Visible): the workflow commands recallgate writes carry text
// from the eval set, a retriever or an error message. Each Write is
// marked on its own, so it must hold whole characters, as the library's
// one write per command does.
type VisibleWriter struct{ w io.Writer }

// NewVisibleWriter wraps w.
func NewVisibleWriter(w io.Writer) *VisibleWriter { return &VisibleWriter{w: w} }

// Write implements io.Writer; it reports len(p) once the marked form of p
// is written.
func (v *VisibleWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(v.w, gate.Visible(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
