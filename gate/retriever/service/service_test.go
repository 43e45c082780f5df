package service

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// server is a Python service that writes noise bytes of output, then
// answers every GET with its port, and starts a sleeping helper in its
// group.
const server = `
import subprocess, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port, noise = int(sys.argv[1]), int(sys.argv[2])
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
sys.stdout.write("x" * noise); sys.stdout.flush()
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(404 if self.path == "/missing" else 200); self.end_headers(); self.wfile.write(str(port).encode())
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", port), H).serve_forever()
`

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

// gone waits up to three seconds for the group led by pid to have no
// process left (a helper's zombie is reaped by init, not by us).
func gone(pid int) bool {
	for i := 0; i < 30; i++ {
		if syscall.Kill(-pid, 0) != nil {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// TestStartReadyStop: the service gets a free port through {port}, is
// polled until it answers (a 404 counts), its output reaches the writer
// bounded, and Stop ends its whole group, the helper it started too.
func TestStartReadyStop(t *testing.T) {
	needPython(t)
	var out bytes.Buffer // written under the cap's lock, read once the service is gone
	s, err := Start(context.Background(), []string{"python3", "-c", server, "{port}", "200000"}, Options{
		Dir: t.TempDir(), Output: &out, URL: "http://127.0.0.1:{port}/search?q={{query}}", Ready: "/missing", Timeout: 20 * time.Second, Name: "head side's service",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Fill("http://127.0.0.1:{port}/x"), "http://127.0.0.1:"+strconv.Itoa(s.Port())+"/x"; got != want {
		t.Errorf("Fill: %q, want %q", got, want)
	}
	s.Stop()
	if !gone(s.Pid()) {
		t.Errorf("the service's group is still there after Stop")
	}
	o := out.String()
	if n := strings.Count(o, "x"); n != MaxOutputBytes || !strings.Contains(o, "head side's service: more output than 64 KiB: the rest is dropped") {
		t.Errorf("passed on %d bytes of output (want %d) and %q", n, MaxOutputBytes, o[max(0, len(o)-120):])
	}
	s.Stop() // again: nothing happens
}

// TestStartFails: a service that exits before it answers, and one that
// never answers within start_timeout, are errors saying so (with how it
// exited and the end of its output); nothing of either is left running.
func TestStartFails(t *testing.T) {
	needPython(t)
	for _, c := range []struct {
		name    string
		argv    []string
		timeout time.Duration
		want    []string
	}{
		{"exits", []string{"python3", "-c", "import sys; print('no such index', file=sys.stderr); sys.exit(4)", "{port}"}, 20 * time.Second,
			[]string{"base side's service (python3) exited before it answered at http://127.0.0.1:", "/search (exit status 4)", `its output ended with: "no such index"`}},
		{"silent", []string{"python3", "-c", "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); time.sleep(600)", "{port}"}, 700 * time.Millisecond,
			[]string{"base side's service (python3) did not answer at http://127.0.0.1:", "/search within 700ms (start_timeout): stopped it; it wrote nothing"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pid int
			_, err := Start(context.Background(), c.argv, Options{Dir: t.TempDir(), URL: "http://127.0.0.1:{port}/search", Timeout: c.timeout, Name: "base side's service", started: func(p int) { pid = p }})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if pid == 0 || !gone(pid) {
				t.Errorf("the service's group (%d) is still there", pid)
			}
		})
	}
}

// TestStopOnContextEnd: the caller's context ends while the service runs
// (an interrupt): its group is stopped at once, without Stop.
func TestStopOnContextEnd(t *testing.T) {
	needPython(t)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, []string{"python3", "-c", server, "{port}", "0"}, Options{Dir: t.TempDir(), URL: "http://127.0.0.1:{port}/", Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if !gone(s.Pid()) {
		t.Errorf("the service's group outlived its context")
	}
}

// TestPrefixedLines: each line reaches the log whole and labelled, however
// the service's writes cut it; a line that never ends is passed on at
// flush, and one longer than maxPartialLine in labelled pieces.
func TestPrefixedLines(t *testing.T) {
	long := strings.Repeat("x", maxPartialLine)
	for _, tc := range []struct {
		writes []string
		want   string
	}{
		{[]string{"indexed 12 documents\n"}, "base: indexed 12 documents\n"},
		{[]string{"list", "ening on 127.0.0.1:1\nind", "exed\n"}, "base: listening on 127.0.0.1:1\nbase: indexed\n"},
		{[]string{"a\n\nb"}, "base: a\nbase: \nbase: b\n"},
		{[]string{long, "y\n"}, "base: " + long + "\nbase: y\n"},
	} {
		var out bytes.Buffer
		p := &prefixed{next: &out, prefix: "base: "}
		for _, w := range tc.writes {
			if n, err := p.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		p.flush()
		if out.String() != tc.want {
			t.Errorf("writes %q: got %q, want %q", tc.writes, out.String(), tc.want)
		}
	}
}
