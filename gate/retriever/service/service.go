// Package service runs the search service an http retriever's table says
// how to start (its start key): in the side's own tree, on a free loopback
// port, until it answers its ready path, and stops it, with every helper it
// started, when the side is done, fails, times out or is interrupted.
//
// The service gets a command retriever's hardening: exactly the
// environment it is given (the factory passes the allowlist, never the
// runner's credentials), a process group of its own, under a keeper
// (gate/keeper) that stops every process it started, in whatever session,
// also when recallgate is killed outright, and bounded output: its stdout and stderr reach the caller's writer up
// to MaxOutputBytes, the rest is counted and dropped (a service that logs
// every request cannot flood the job's log), and the end of it is quoted
// when it fails to start.
package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/recallgate/recallgate/gate/keeper"
	"github.com/recallgate/recallgate/gate/procgroup"
	"github.com/recallgate/recallgate/gate/retriever/spec"
)

// MaxOutputBytes is how much of a service's output (stdout and stderr
// together) is passed on to Options.Output.
const MaxOutputBytes = 64 << 10

// StopGrace is how long Stop waits after SIGTERM before it kills the
// group; with killGrace, Stop returns within 3 s whatever the service does.
const StopGrace = 2 * time.Second

const (
	// killGrace bounds the wait after SIGKILL.
	killGrace = time.Second
	// pollEvery is the pause between two polls of the ready path.
	pollEvery = 100 * time.Millisecond
	// pollTimeout bounds one poll.
	pollTimeout = 2 * time.Second
	// keeperGrace is how long the keeper waits after its SIGTERM to the
	// service before it kills every process left: within StopGrace, so
	// the keeper has ended when Stop's wait does.
	keeperGrace = StopGrace - 500*time.Millisecond
	// waitDelay is exec.Cmd.WaitDelay: how long Wait waits, once the
	// service has exited, for a helper holding its output open.
	waitDelay = time.Second
)

// Options are the service's surroundings.
type Options struct {
	// Dir is the working folder: the side's own tree.
	Dir string
	// Env is exactly the service's environment (nil: an empty one, never
	// recallgate's own).
	Env []string
	// Output receives the service's stdout and stderr, at most
	// MaxOutputBytes of them; nil discards them.
	Output io.Writer
	// URL is the retriever's url, {port} (spec.PortPlaceholder) in it;
	// Ready the path polled until the service answers ("" is URL's).
	URL, Ready string
	// Timeout bounds the wait for the first answer (0: spec.DefaultStartTimeout).
	Timeout time.Duration
	// Client sends the polls (nil: a client of its own).
	Client *http.Client
	// Name is what messages call the service ("base side's service").
	Name string
	// Program is what messages call the program started ("" is
	// argv[0]): the start key's first word as written, so a value read
	// from the environment for it is never shown.
	Program string
	// Prefix starts each line of the service's output passed to Output
	// ("base: "), so the log tells the two sides' services apart.
	Prefix string
	// started, when set, is told the service's pid (tests).
	started func(pid int)
}

// Service is one started service.
type Service struct {
	name   string
	argv0  string
	port   int
	cmd    *exec.Cmd
	tail   *procgroup.Tail
	lines  *prefixed     // nil: no output passed on
	waited chan struct{} // closed when Wait has returned
	status error         // Wait's result, read after waited
	stop   sync.Once
	done   chan struct{} // closed by Stop: the watcher of ctx ends
}

// Start starts argv (spec.PortPlaceholder written as a free loopback
// port) in o.Dir and waits until the service answers o.Ready, o.Timeout
// at most. ctx's end stops it at once, whenever that comes; the caller
// calls Stop when done. On error nothing of the service is left running.
func Start(ctx context.Context, argv []string, o Options) (*Service, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("start names no program")
	}
	if o.Name == "" {
		o.Name = "service"
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%s: find a free loopback port: %w", o.Name, err)
	}
	if o.Program == "" {
		o.Program = argv[0]
	}
	s := &Service{name: o.Name, argv0: o.Program, port: port, waited: make(chan struct{}), done: make(chan struct{})}
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = s.Fill(a)
	}
	// Under a keeper: every process the service starts is stopped with
	// it, even one in a session of its own, and even if recallgate is
	// killed outright (keeper's package comment).
	cmd, err := keeper.Command(args, o.Dir, append([]string{}, o.Env...), keeperGrace)
	if err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", o.Name, o.Program, shownAs(err, o.Program))
	}
	var out io.Writer
	if o.Output != nil {
		s.lines = &prefixed{next: o.Output, prefix: o.Prefix}
		out = s.lines
	}
	s.tail = &procgroup.Tail{Next: &capped{next: out, left: MaxOutputBytes, name: o.Name}}
	cmd.Stdout, cmd.Stderr = s.tail, s.tail
	cmd.WaitDelay = waitDelay
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", o.Name, o.Program, shownAs(err, o.Program))
	}
	s.cmd = cmd
	if o.started != nil {
		o.started(cmd.Process.Pid)
	}
	go func() {
		s.status = cmd.Wait()
		s.lines.flush() // the output is all in once Wait returns
		close(s.waited)
	}()
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-s.done:
		}
	}()
	if err := s.ready(ctx, o); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Port is the loopback port the service was given.
func (s *Service) Port() int { return s.port }

// Pid is the id of the process recallgate started for the service (its
// keeper on Linux, the service elsewhere) and of that process's group.
func (s *Service) Pid() int { return s.cmd.Process.Pid }

// Fill writes the service's port for every {port} in v.
func (s *Service) Fill(v string) string {
	return strings.ReplaceAll(v, spec.PortPlaceholder, strconv.Itoa(s.port))
}

// readyURL is where the service is polled: the url's scheme and host
// with the ready path, or the url's own path (its {{…}} placeholders
// left out, its query string dropped).
func (s *Service) readyURL(o Options) string {
	raw := s.Fill(o.URL)
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	raw = strings.NewReplacer("{{query}}", "", "{{k}}", "", "{{id}}", "").Replace(raw)
	if o.Ready == "" {
		return raw
	}
	scheme, rest, _ := strings.Cut(raw, "://")
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host + o.Ready
}

// ready polls the ready path until any HTTP answer comes, the service
// exits, the timeout passes or ctx ends.
func (s *Service) ready(ctx context.Context, o Options) error {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = spec.DefaultStartTimeout
	}
	client := o.Client
	if client == nil {
		client = &http.Client{}
	}
	where := s.readyURL(o)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, pollTimeout)
		req, err := http.NewRequestWithContext(pctx, http.MethodGet, where, nil)
		if err != nil {
			cancel()
			return fmt.Errorf("%s: ready url %s: %w", s.name, where, err)
		}
		resp, err := client.Do(req)
		cancel()
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			return nil // any HTTP answer: the service listens
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: stopped while waiting for %s to answer: %w", s.name, where, ctx.Err())
		case <-s.waited:
			return s.exitedError(where)
		case <-deadline.C:
			return fmt.Errorf("%s (%s) did not answer at %s within %s (start_timeout): stopped it%s", s.name, s.argv0, where, timeout, s.said())
		case <-time.After(pollEvery):
		}
	}
}

// exitedError says how a service that ended before it answered ended.
func (s *Service) exitedError(where string) error {
	how := "exit status 0"
	if s.status != nil {
		how = s.status.Error()
	}
	return fmt.Errorf("%s (%s) exited before it answered at %s (%s)%s", s.name, s.argv0, where, how, s.said())
}

// said is the end of the service's output for a message.
func (s *Service) said() string {
	if t := s.tail.String(); t != "" {
		return "; its output ended with: " + t
	}
	return "; it wrote nothing"
}

// Stop ends the service and every process it started: SIGTERM to the
// process group (its keeper, the service and the helpers in its group);
// the keeper kills whatever is left below it, in any session, after
// keeperGrace; SIGKILL to the group after StopGrace, and a sweep of what
// a killed keeper left.
// Safe to call more than once, and at once.
func (s *Service) Stop() {
	s.stop.Do(func() {
		close(s.done)
		procgroup.Send(s.cmd, procgroup.Term)
		if !s.waitFor(StopGrace) {
			procgroup.Send(s.cmd, procgroup.Kill)
			s.waitFor(killGrace)
		}
		procgroup.Send(s.cmd, procgroup.Kill)
		keeper.Sweep() // what a killed keeper left behind
	})
}

// waitFor waits up to d for the leader to end.
func (s *Service) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.waited:
		return true
	case <-t.C:
		return false
	}
}

// freePort is a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// capped passes at most left bytes on to next, then one line saying the
// rest is dropped; it never fails the writer (the service's pipe).
type capped struct {
	mu   sync.Mutex
	next io.Writer
	left int
	cut  bool
	name string
}

// Write implements io.Writer.
func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next == nil {
		return len(p), nil
	}
	if len(p) <= c.left {
		c.left -= len(p)
		_, _ = c.next.Write(p)
		return len(p), nil
	}
	if !c.cut {
		_, _ = c.next.Write(p[:c.left])
		c.left, c.cut = 0, true
		fmt.Fprintf(c.next, "\nrecallgate: %s: more output than %d KiB: the rest is dropped\n", c.name, MaxOutputBytes>>10)
	}
	return len(p), nil
}

// shownAs is a start error with the program named as messages show it:
// exec's and the system's errors name the path they tried, which may hold
// a value read from the environment. The error's kind (not found, not
// executable) is kept for errors.Is.
func shownAs(err error, program string) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return &exec.Error{Name: program, Err: ee.Err}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: program, Err: pe.Err}
	}
	return err
}

// maxPartialLine is the most of a line without its end prefixed kept
// back: a longer one is passed on in pieces, each prefixed.
const maxPartialLine = 4 << 10

// prefixed passes whole lines on to next, each starting with prefix, one
// Write a line, so the lines of two services writing to one log at once
// stay whole and each says whose it is. A line without its end yet is
// kept until it ends (maxPartialLine at most) or flush.
type prefixed struct {
	mu     sync.Mutex
	next   io.Writer
	prefix string
	part   []byte
}

// Write implements io.Writer.
func (p *prefixed) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.part = append(p.part, b...)
			if len(p.part) >= maxPartialLine {
				p.emit(nil)
			}
			break
		}
		p.emit(b[:i+1])
		b = b[i+1:]
	}
	return n, nil
}

// emit writes the kept part and rest as one prefixed line.
func (p *prefixed) emit(rest []byte) {
	line := make([]byte, 0, len(p.prefix)+len(p.part)+len(rest)+1)
	line = append(append(append(line, p.prefix...), p.part...), rest...)
	if line[len(line)-1] != '\n' {
		line = append(line, '\n')
	}
	_, _ = p.next.Write(line)
	p.part = p.part[:0]
}

// flush passes on a last line that never ended.
func (p *prefixed) flush() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.part) > 0 {
		p.emit(nil)
	}
}
