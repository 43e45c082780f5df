// Package command is the "command" retriever: a long-lived subprocess that
// reads one JSON request a line on stdin, {"id","query","k"}, and answers one
// JSON line on stdout, {"id","hits":[…]}, optionally with "context" (the
// passages the pipeline handed the model, in order) and "abstain" (its
// refusal signal, a boolean). The process starts once, so a
// Python retriever loads its model once for the whole set. It is started
// from an argv array, never through a shell; its stderr is passed through.
//
// Every step is bounded, whatever the program does: writing a request and
// reading its answer end at the query's timeout (a program that never
// reads stdin, or writes half a line, cannot block recallgate); an answer
// line is at most MaxLineBytes; an answer keeps at most
// input.MaxKeptHits(k) hits, the rest checked as JSON and dropped; stdout
// carries answers only, so any other line there is an error naming the
// query. The program runs in a process group of its own, and a failed
// query or Close stops the whole group: helpers it started cannot keep
// recallgate waiting on a pipe they inherited.
//
// Requests go one at a time through the one pipe: the time a query waits
// for its turn is queue wait (retrieval.MarkSent), never its latency. The
// start-up runs until the first answer (FirstAnswer). A program that ends
// before its first answer is one error for the whole set
// (gate.RetrieverDownError), with how it exited and its stderr's end.
package command

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
	"github.com/recallgate/recallgate/gate/keeper"
	"github.com/recallgate/recallgate/gate/procgroup"
	"github.com/recallgate/recallgate/gate/retrieval"
	"github.com/recallgate/recallgate/gate/runfile"
)

// MaxLineBytes is the longest answer line read, 64 MiB (a million short
// hits fit): a longer line is an error naming the query, and is read no
// further than this.
const MaxLineBytes = 64 << 20

// StopGrace is how long Close waits, after closing the program's stdin,
// for it to exit by itself before it signals the group. With termGrace and
// killGrace, Close returns within 4 s whatever the program does.
const StopGrace = 2 * time.Second

const (
	// termGrace is the wait after SIGTERM, before SIGKILL.
	termGrace = time.Second
	// keeperGrace is the keeper's wait after SIGTERM before it kills what
	// is left below it: within termGrace.
	keeperGrace = termGrace / 2
	// killGrace bounds the wait after SIGKILL.
	killGrace = time.Second
	// waitDelay is exec.Cmd.WaitDelay: how long Wait waits, once the
	// program has exited, for a helper holding its stderr open.
	waitDelay = time.Second
	// exitReadGrace is how long stdout is still read once the process
	// has ended (its last answer may be in the pipe).
	exitReadGrace = 500 * time.Millisecond
	// clipBytes is how much of a bad line an error quotes.
	clipBytes = 120
)

// Options are the program's surroundings.
type Options struct {
	// Dir is the working folder; "" is recallgate's.
	Dir string
	// Env is exactly the program's environment (KEY=value entries; nil is
	// an empty environment, never recallgate's own).
	Env []string
	// Stderr receives the program's stderr; nil discards it.
	Stderr io.Writer
	// Warn, when set, is told once per retriever that answers were cut
	// to input.MaxKeptHits.
	Warn func(string)
	// Noun is what messages call the program ("" is "retriever"; the
	// judge's transport says "judge").
	Noun string
}

// Retriever talks to one subprocess. Requests are sent one at a time.
type Retriever struct {
	name   string
	noun   string
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	br     *bufio.Reader
	warn   func(string)
	warned atomic.Bool

	turn   chan struct{} // holds a token while a request is under way
	broken error         // set once the protocol cannot continue; guarded by turn

	answered int             // answers read so far; guarded by turn
	firstRTT time.Duration   // from the first request sent to its answer; guarded by turn
	tail     *procgroup.Tail // the end of the program's stderr

	waited chan struct{} // closed when Wait has returned
	status error         // Wait's result, read after waited

	closeOnce sync.Once
}

// Start launches argv[0] with the remaining arguments as o says.
func Start(argv []string, o Options) (*Retriever, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("command is empty")
	}
	// Under a keeper (gate/keeper): every process the program starts is
	// stopped with it, also one in a session of its own, and also when
	// recallgate is killed outright.
	cmd, err := keeper.Command(argv, o.Dir, append([]string{}, o.Env...), keeperGrace)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	tail := &procgroup.Tail{Next: o.Stderr}
	cmd.Stderr = tail
	cmd.WaitDelay = waitDelay
	procgroup.Own(cmd)
	// Pipes of our own rather than StdinPipe/StdoutPipe: the parent's ends
	// take deadlines, and Wait never closes stdout under a reader.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	noun := o.Noun
	if noun == "" {
		noun = "retriever"
	}
	r := &Retriever{
		name: argv[0], noun: noun, cmd: cmd, stdin: inW, stdout: outR,
		br: bufio.NewReaderSize(outR, 1<<16), warn: o.Warn, tail: tail,
		turn: make(chan struct{}, 1), waited: make(chan struct{}),
	}
	go func() {
		r.status = cmd.Wait()
		close(r.waited)
	}()
	return r, nil
}

// exitInfo describes how the process ended.
func (r *Retriever) exitInfo() string {
	select {
	case <-r.waited:
		if r.status != nil {
			return r.status.Error()
		}
		return "exit status 0"
	case <-time.After(time.Second):
		return "still running"
	}
}

// exited reports whether the process has ended (and Wait returned).
func (r *Retriever) exited() bool {
	select {
	case <-r.waited:
		return true
	default:
		return false
	}
}

// Retrieve implements gate.Retriever.
func (r *Retriever) Retrieve(ctx context.Context, q *gate.Query, k int) ([]gate.Hit, error) {
	a, err := r.Answer(ctx, q, k)
	return a.Hits, err
}

// Answer implements gate.AnswerRetriever: the answer line's hits, and its
// "context" (the passages the pipeline handed the model) and "abstain"
// (its refusal signal) when the line carries them.
func (r *Retriever) Answer(ctx context.Context, q *gate.Query, k int) (gate.Answer, error) {
	hits, res, err := r.answer(ctx, q, k)
	return gate.Answer{Hits: hits, Context: res.Context, Abstain: res.Abstain}, err
}

func (r *Retriever) answer(ctx context.Context, q *gate.Query, k int) ([]gate.Hit, gate.Result, error) {
	req, _ := json.Marshal(struct {
		ID    string `json:"id"`
		Query string `json:"query"`
		K     int    `json:"k"`
	}{q.ID, q.Text, k})
	var res gate.Result
	var total int
	err := r.Exchange(ctx, q.ID, req, func(lr io.Reader) error {
		var err error
		res, total, err = runfile.DecodeAnswerCapped(lr, r.name+" stdout", input.MaxKeptHits(k), q.ID)
		return err
	})
	if err != nil {
		return nil, gate.Result{}, err
	}
	if total > len(res.Hits) && r.warn != nil && r.warned.CompareAndSwap(false, true) {
		r.warn(fmt.Sprintf("the command retriever answered %s with %d hits for k=%d: kept the first %d (%d × k, at least %d) of it and of every answer as long; the rest are dropped", gate.ClipID(q.ID), total, k, len(res.Hits), input.HitsPerDepth, input.MinKeptHits))
	}
	return res.Hits, res, nil
}

// Exchange sends one request line (req, one JSON value without its
// newline) for id and hands the one answer line to decode, under every
// bound a query has: the turn, ctx's deadline on the write and the read,
// MaxLineBytes, stdout carrying answers only, the process group stopped
// when anything fails. decode reads the line as a stream (io.EOF at its
// newline); a *runfile.AnswerIDError it returns is told as an answer for
// another id. Other kinds of protocol (the judge's) speak through it.
func (r *Retriever) Exchange(ctx context.Context, id string, req []byte, decode func(io.Reader) error) error {
	id = gate.ClipID(id) // from here on only messages name it
	select {
	case r.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("no answer to %s in time: waited for earlier queries to the %s: %w", id, r.noun, ctx.Err())
	}
	defer func() { <-r.turn }()
	if r.broken != nil {
		return r.broken
	}
	if line, ok := r.unsolicited(); ok {
		return r.fail(id, fmt.Errorf("the %s wrote a line that is not an answer to %s (it came before %s was asked): %s; print debug output to stderr", r.noun, id, id, line))
	}
	req = append(append([]byte{}, req...), '\n')

	// The request's end (its timeout, an interrupt) or the process's exit
	// unblocks the pipe at once: both ends get a deadline in the past.
	watched := make(chan struct{})
	stopWatch := make(chan struct{})
	go func() {
		defer close(watched)
		at := time.Now()
		select {
		case <-ctx.Done():
		case <-r.waited:
			// What the process wrote before it ended is still read; only
			// a helper holding the pipe open is not waited for.
			at = time.Now().Add(exitReadGrace)
		case <-stopWatch:
			return
		}
		werr := r.stdin.SetWriteDeadline(at)
		if rerr := r.stdout.SetReadDeadline(at); rerr != nil || werr != nil {
			procgroup.Send(r.cmd, procgroup.Kill) // pipes without deadlines: end the writer
		}
	}()
	defer func() {
		close(stopWatch)
		<-watched
		_ = r.stdin.SetWriteDeadline(time.Time{})
		_ = r.stdout.SetReadDeadline(time.Time{})
	}()

	retrieval.MarkSent(ctx) // the wait for the turn is queue wait, not latency
	sent := time.Now()
	if _, err := r.stdin.Write(req); err != nil {
		switch {
		case ctx.Err() != nil && !r.exited():
			return r.fail(id, fmt.Errorf("the %s did not read the request for %s (%d bytes) from its stdin in time: it must read each request line as it comes; stopped it: %w", r.noun, id, len(req), ctx.Err()))
		case r.answered == 0 && r.waitFor(time.Second): // ended, not only its stdin closed
			return r.fail(id, r.down())
		default:
			return r.fail(id, fmt.Errorf("%s process %s is gone (%s)", r.noun, r.name, r.exitInfo()))
		}
	}
	lr := &lineReader{br: r.br, max: MaxLineBytes}
	err := decode(lr)
	var other *runfile.AnswerIDError
	switch {
	case errors.As(err, &other):
		return r.fail(id, fmt.Errorf("the %s wrote a line that is not an answer to %s: an answer for %s (an extra answer, or answers out of step): %s", r.noun, id, strconv.Quote(other.Got), lr.clipped()))
	case err != nil && r.answered == 0 && lr.n == 0 && r.gone(lr, err):
		return r.fail(id, r.down())
	case err != nil:
		return r.fail(id, r.explain(ctx, id, lr, err))
	}
	if r.answered++; r.answered == 1 {
		r.firstRTT = time.Since(sent)
	}
	return nil
}

// FirstAnswer is how long the program took to answer its first request:
// with the process's start, the retriever's start-up (a program loads its
// model before it reads stdin). 0 before any answer.
func (r *Retriever) FirstAnswer() time.Duration {
	r.turn <- struct{}{}
	defer func() { <-r.turn }()
	return r.firstRTT
}

// gone reports whether a failed read of an answer came from the process
// having ended (its stdout closed), not from a bad line or a timeout.
func (r *Retriever) gone(lr *lineReader, err error) bool {
	fromStream := lr.err != nil && (errors.Is(err, lr.err) ||
		errors.Is(lr.err, io.EOF) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)))
	return fromStream && (r.exited() || errors.Is(lr.err, io.EOF))
}

// down is the error of a program that ended before its first answer: one
// for the whole set (no query is to blame), with how it exited and the end
// of its stderr.
func (r *Retriever) down() error {
	msg := fmt.Sprintf("%s process %s exited before its first answer (%s)", r.noun, r.name, r.exitInfo())
	if t := r.tail.String(); t != "" {
		msg += "; its stderr ended with: " + t
	} else {
		msg += "; it wrote nothing to stderr"
	}
	return &gate.RetrieverDownError{Msg: msg}
}

// explain turns a failed read of the answer to id into what happened.
func (r *Retriever) explain(ctx context.Context, id string, lr *lineReader, err error) error {
	fromStream := lr.err != nil && (errors.Is(err, lr.err) ||
		errors.Is(lr.err, io.EOF) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)))
	switch {
	case lr.tooLong:
		return fmt.Errorf("the %s's answer to %s is longer than %d MiB (the most one answer line may hold): %s", r.noun, id, MaxLineBytes>>20, lr.clipped())
	case fromStream && r.exited() || fromStream && errors.Is(lr.err, io.EOF):
		if lr.n == 0 {
			return fmt.Errorf("%s process %s exited before answering %s (%s)", r.noun, r.name, id, r.exitInfo())
		}
		return fmt.Errorf("%s process %s exited after half an answer to %s (%d bytes without a newline: %s) (%s)", r.noun, r.name, id, lr.n, lr.clipped(), r.exitInfo())
	case fromStream && ctx.Err() != nil:
		if lr.n == 0 {
			return fmt.Errorf("no answer to %s in time; stopped the %s: %w", id, r.noun, ctx.Err())
		}
		return fmt.Errorf("the %s wrote half an answer to %s: %d bytes and no newline in time (%s); stopped it: %w", r.noun, id, lr.n, lr.clipped(), ctx.Err())
	case fromStream:
		return fmt.Errorf("reading the answer to %s: %w", id, lr.err)
	case !lr.startsObject():
		return fmt.Errorf("the %s wrote a line that is not an answer to %s: %s; print debug output to stderr", r.noun, id, lr.clipped())
	}
	return fmt.Errorf("malformed answer to %s: %w; the line: %s", id, err, lr.clipped())
}

// fail stops the process group and keeps why, for every later query.
func (r *Retriever) fail(id string, err error) error {
	r.broken = fmt.Errorf("the %s was stopped after an earlier query (%s) failed", r.noun, id)
	var down *gate.RetrieverDownError
	switch {
	case errors.As(err, &down):
		r.broken = err // the same for every query: said once
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		r.broken = fmt.Errorf("%s process %s did not answer an earlier query (%s) in time; stopped it", r.noun, r.name, id)
	}
	procgroup.Send(r.cmd, procgroup.Kill)
	_ = r.stdin.Close()
	return err
}

// unsolicited reports output the program wrote while no request was
// under way (a debug print after an answer), without waiting for any.
func (r *Retriever) unsolicited() (string, bool) {
	if r.br.Buffered() == 0 {
		if r.stdout.SetReadDeadline(time.Now()) != nil {
			return "", false // this pipe takes no deadline: let the read tell
		}
		_, err := r.br.Peek(1)
		_ = r.stdout.SetReadDeadline(time.Time{})
		if err != nil {
			return "", false
		}
	}
	b, _ := r.br.Peek(min(r.br.Buffered(), clipBytes+1))
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	return clip(b), true
}

// Close ends the process (a line the process wrote after its last answer
// is a warning, the answers being in): it closes stdin and waits up to grace for the
// process to exit, then sends SIGTERM to its process group, then SIGKILL
// (each after a second), and always SIGKILL to what is left of the group,
// so helpers it started end too. It returns within grace + 2 s.
func (r *Retriever) Close(grace time.Duration) error {
	r.closeOnce.Do(func() {
		select {
		case r.turn <- struct{}{}: // no request under way
			if line, ok := r.unsolicited(); ok && r.broken == nil && r.warn != nil {
				r.warn(fmt.Sprintf("the command retriever wrote a line after its last answer: %s; stdout must carry answers only: print debug output to stderr", line))
			}
			<-r.turn
		default:
		}
		_ = r.stdin.Close()
		if !r.waitFor(grace) {
			procgroup.Send(r.cmd, procgroup.Term)
			if !r.waitFor(termGrace) {
				procgroup.Send(r.cmd, procgroup.Kill)
				r.waitFor(killGrace)
			}
		}
		procgroup.Send(r.cmd, procgroup.Kill)
		keeper.Sweep() // what a killed keeper left behind
		_ = r.stdout.Close()
	})
	return nil
}

// waitFor waits up to d for the process to end.
func (r *Retriever) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.waited:
		return true
	case <-t.C:
		return false
	}
}

// lineReader hands one stdout line to the decoder and ends at its newline
// (io.EOF), keeping the line's start for messages. It stops with
// errLineTooLong past max bytes; an error of the pipe (its end, a
// deadline) is kept in err.
type lineReader struct {
	br      *bufio.Reader
	max     int
	pending []byte
	n       int
	head    []byte
	ended   bool
	tooLong bool
	err     error
}

var errLineTooLong = errors.New("answer line too long")

// Read implements io.Reader.
func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		if l.ended {
			return 0, io.EOF
		}
		if l.err != nil {
			return 0, l.err
		}
		s, err := l.br.ReadSlice('\n')
		if l.n+len(s) > l.max {
			s, err, l.tooLong = s[:l.max-l.n], errLineTooLong, true
		}
		l.n += len(s)
		if len(l.head) <= clipBytes {
			l.head = append(l.head, s[:min(len(s), clipBytes+1-len(l.head))]...)
		}
		l.pending = s
		switch {
		case err == nil:
			l.ended = true
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			l.err = err
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// startsObject reports whether the line's first non-blank byte opens a
// JSON object: anything else is not an answer at all.
func (l *lineReader) startsObject() bool {
	b := bytes.TrimLeft(l.head, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// clipped quotes the line's start for an error.
func (l *lineReader) clipped() string {
	return clip(l.head)
}

// clip quotes b, escaped, cut at clipBytes with an ellipsis.
func clip(b []byte) string {
	if len(bytes.TrimSpace(b)) == 0 && len(b) <= 1 {
		return "an empty line"
	}
	b = bytes.TrimRight(b, "\n")
	if len(b) > clipBytes {
		return strconv.Quote(string(b[:clipBytes])) + "…"
	}
	return strconv.Quote(string(b))
}

// The command retriever answers queries as gate.Retriever says.
var _ gate.Retriever = (*Retriever)(nil)
