// Package command is the "command" retriever: a long-lived subprocess that
// reads one JSON request a line on stdin, {"id","query","k"}, and answers one
// JSON line on stdout, {"id","hits":[…]}. The process starts once, so a
// Python retriever loads its model once for the whole set. It is started
// from an argv array, never through a shell; its stderr is passed through.
package command

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// Retriever talks to one subprocess. Requests are sent one at a time.
type Retriever struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan lineOrErr
	mu     sync.Mutex
	broken error // set once the protocol cannot continue
	waited chan struct{}
	status error
}

type lineOrErr struct {
	line []byte
	err  error
}

// Start launches argv[0] with the remaining arguments in dir, with exactly
// the environment env (KEY=value entries; nil is an empty environment, never
// recallgate's own). stderr receives the process's stderr.
func Start(argv []string, dir string, env []string, stderr io.Writer) (*Retriever, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("command is empty")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{}, env...)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	r := &Retriever{name: argv[0], cmd: cmd, stdin: stdin, lines: make(chan lineOrErr), waited: make(chan struct{})}
	go r.read(stdout)
	return r, nil
}

// read forwards stdout lines; it ends with io.EOF when the process closes it.
func (r *Retriever) read(stdout io.Reader) {
	br := bufio.NewReaderSize(stdout, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && err == nil {
			r.lines <- lineOrErr{line: line}
			continue
		}
		if err == nil || errors.Is(err, io.EOF) {
			if len(strings.TrimSpace(string(line))) > 0 {
				r.lines <- lineOrErr{line: line}
			}
			err = io.EOF
		}
		r.status = r.cmd.Wait()
		close(r.waited)
		r.lines <- lineOrErr{err: err}
		close(r.lines)
		return
	}
}

// exitInfo describes how the process ended.
func (r *Retriever) exitInfo() string {
	select {
	case <-r.waited:
		if r.status != nil {
			return r.status.Error()
		}
		return "exit status 0"
	case <-time.After(2 * time.Second):
		return "still running"
	}
}

// Retrieve implements gate.Retriever.
func (r *Retriever) Retrieve(ctx context.Context, q *gate.Query, k int) ([]gate.Hit, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.broken != nil {
		return nil, r.broken
	}
	req, _ := json.Marshal(struct {
		ID    string `json:"id"`
		Query string `json:"query"`
		K     int    `json:"k"`
	}{q.ID, q.Text, k})
	if _, err := r.stdin.Write(append(req, '\n')); err != nil {
		r.broken = fmt.Errorf("retriever process %s is gone (%s)", r.name, r.exitInfo())
		return nil, r.broken
	}
	select {
	case <-ctx.Done():
		// The answer may still come and would then be read as the next
		// query's: the protocol is out of step, so stop the process.
		r.broken = fmt.Errorf("retriever process %s did not answer an earlier query in time; stopped it", r.name)
		_ = r.cmd.Process.Kill()
		return nil, ctx.Err()
	case got, ok := <-r.lines:
		if !ok || got.err != nil {
			r.broken = fmt.Errorf("retriever process %s exited before answering (%s)", r.name, r.exitInfo())
			return nil, r.broken
		}
		res, err := gate.ParseResult(got.line, r.name+" stdout")
		if err != nil {
			r.broken = fmt.Errorf("malformed answer: %w", err)
			return nil, r.broken
		}
		if res.ID != q.ID {
			r.broken = fmt.Errorf("answer is for query %q, not %q: the retriever is out of step", res.ID, q.ID)
			return nil, r.broken
		}
		return res.Hits, nil
	}
}

// Close ends the process: it closes stdin, waits up to grace for it to
// exit, then kills it.
func (r *Retriever) Close(grace time.Duration) error {
	_ = r.stdin.Close()
	select {
	case <-r.waited:
	case <-time.After(grace):
		_ = r.cmd.Process.Kill()
		<-r.waited
	}
	go func() {
		for range r.lines {
		}
	}()
	return nil
}

// The command retriever answers queries as gate.Retriever says.
var _ gate.Retriever = (*Retriever)(nil)
