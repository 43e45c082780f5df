package command

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
	"github.com/recallgate/recallgate/gate/retrieval"
)

// TestMain turns the test binary into a fake retriever when asked, so the
// tests need nothing but Go, and into the memory check's parent process.
func TestMain(m *testing.M) {
	if mode := os.Getenv("RG_FAKE_RETRIEVER"); mode != "" {
		fake(mode)
		os.Exit(0)
	}
	if mode := os.Getenv("RG_MEMCHECK"); mode != "" {
		memcheck(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper starts a sleeping child of the fake that inherits its stdout and
// stderr (and its process group), as a retriever's worker pool would.
func helper() {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "RG_FAKE_RETRIEVER=sleeper")
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fake retriever: helper:", err)
		os.Exit(9)
	}
}

func fake(mode string) {
	if mode == "sleeper" {
		signal.Ignore(syscall.SIGTERM)
		os.WriteFile(os.Getenv("RG_PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o644)
		time.Sleep(time.Hour)
		return
	}
	if mode == "crashstart" {
		fmt.Fprintln(os.Stderr, "Traceback (most recent call last):\nModuleNotFoundError: No module named 'faiss'")
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "fake retriever: model loaded")
	switch mode {
	case "deaf":
		time.Sleep(time.Hour) // never reads a request
	case "helper":
		helper()
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		helper()
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	n := 0
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		n++
		var req struct {
			ID, Query string
			K         int
		}
		json.Unmarshal(line, &req)
		switch {
		case mode == "crash" && n == 2, mode == "helper" && n == 2:
			fmt.Fprintln(os.Stderr, "fake retriever: out of memory")
			os.Exit(7)
		case mode == "garbage":
			fmt.Fprintln(out, "this is not json")
			out.Flush()
			continue
		case mode == "wrongid":
			req.ID = "someone-else"
		case mode == "badsecond" && req.ID == "q2", mode == "staleid" && req.ID == "q1":
			fmt.Fprintln(out, `{"id":"q2","hits":[{"doc":""}]}`)
			out.Flush()
			continue
		case mode == "slow":
			time.Sleep(slowAnswer)
		case mode == "hang" && n == 2, mode == "stubborn" && n == 2:
			time.Sleep(time.Hour)
		case mode == "debugfirst":
			fmt.Fprintf(out, "debug: got %s\n", req.ID)
		case mode == "half":
			fmt.Fprintf(out, `{"id":%q,"hits":[`, req.ID)
			out.Flush()
			time.Sleep(time.Hour)
		case mode == "flood":
			fmt.Fprintf(out, `{"id":%q,"hits":[`, req.ID)
			for i := 0; i < 1_000_000; i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				fmt.Fprintf(out, `{"doc":"doc-%07d","score":%d}`, i, 1_000_000-i)
			}
			out.WriteString("]}\n")
			out.Flush()
			continue
		case mode == "longline": // hits past MaxLineBytes, no newline yet
			fmt.Fprintf(out, `{"id":%q,"hits":[`, req.ID)
			for i, n := 0, 0; n <= MaxLineBytes+1<<20; i++ {
				m, err := fmt.Fprintf(out, `{"doc":"doc-%07d","score":%d},`, i, i)
				if err != nil {
					return
				}
				n += m
			}
			out.WriteString(`{"doc":"last"}]}` + "\n")
			out.Flush()
			continue
		case mode == "context": // the answer lines of a pipeline that logs its final context
			switch req.ID {
			case "q1":
				fmt.Fprintf(out, `{"id":"q1","hits":[{"doc":"a","chunk":"a#1"},{"doc":"b"}],"context":[{"doc":"a","chunk":"a#2","text":"Settings → Keys","tokens":3}],"abstain":false}`+"\n")
			case "q2":
				fmt.Fprintf(out, `{"id":"q2","hits":[],"context":[],"abstain":true}`+"\n")
			case "notarray":
				fmt.Fprintf(out, `{"id":"notarray","hits":[],"context":{"doc":"a"}}`+"\n")
			case "nodoc":
				fmt.Fprintf(out, `{"id":"nodoc","hits":[],"context":[{"text":"x"}]}`+"\n")
			case "negative":
				fmt.Fprintf(out, `{"id":"negative","hits":[],"context":[{"doc":"a","tokens":-2}]}`+"\n")
			case "yes":
				fmt.Fprintf(out, `{"id":"yes","hits":[],"abstain":"yes"}`+"\n")
			default:
				fmt.Fprintf(out, `{"id":%q,"hits":[{"doc":"a"}]}`+"\n", req.ID)
			}
			out.Flush()
			continue
		case mode == "bighit": // one hit holding 8 MiB of text
			fmt.Fprintf(out, `{"id":%q,"hits":[{"doc":"a","text":"%s"}]}`+"\n", req.ID, bytes.Repeat([]byte("x"), 8<<20))
			out.Flush()
			continue
		}
		fmt.Fprintf(out, `{"id":%q,"hits":[{"doc":"doc-for-%s","score":%d}]}`+"\n", req.ID, strings.ReplaceAll(req.Query, " ", "-"), req.K)
		if mode == "debugafter" {
			fmt.Fprintf(out, "debug: answered %s\n", req.ID)
		}
		out.Flush()
	}
}

// syncBuffer is a bytes.Buffer safe for the stderr copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fakeEnv is the environment of a fake in mode, with a file for a
// helper's pid.
func fakeEnv(t testing.TB, mode string, pidfile string) []string {
	return []string{"RG_FAKE_RETRIEVER=" + mode, "RG_PIDFILE=" + pidfile}
}

func startWarn(t *testing.T, mode string, stderr *syncBuffer, warn func(string)) (*Retriever, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(t.TempDir(), "helper.pid")
	r, err := Start([]string{exe}, Options{Env: fakeEnv(t, mode, pidfile), Stderr: stderr, Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(time.Second) })
	return r, pidfile
}

func start(t *testing.T, mode string, stderr *syncBuffer) *Retriever {
	t.Helper()
	r, _ := startWarn(t, mode, stderr, nil)
	return r
}

func askIn(r *Retriever, id string, d time.Duration) ([]gate.Hit, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return r.Retrieve(ctx, &gate.Query{ID: id, Text: "query " + id}, 5)
}

func ask(r *Retriever, id string) ([]gate.Hit, error) {
	return askIn(r, id, 5*time.Second)
}

// closeQuickly closes r as recallgate does and fails past 5 s.
func closeQuickly(t *testing.T, r *Retriever) time.Duration {
	t.Helper()
	start := time.Now()
	r.Close(StopGrace)
	took := time.Since(start)
	if took > 5*time.Second {
		t.Errorf("Close took %v, want under 5 s", took)
	}
	if !r.exited() {
		t.Error("the process is still running after Close")
	}
	return took
}

func TestProtocol(t *testing.T) {
	var stderr syncBuffer
	r := start(t, "ok", &stderr)
	for _, id := range []string{"q1", "q2", "q3"} {
		hits, err := ask(r, id)
		if err != nil || len(hits) != 1 || hits[0].Doc != "doc-for-query-"+id || hits[0].Score != 5 {
			t.Fatalf("%s: %+v %v", id, hits, err)
		}
	}
	r.Close(time.Second)
	if !strings.Contains(stderr.String(), "model loaded") {
		t.Errorf("stderr not passed through: %q", stderr.String())
	}
}

func TestFaults(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"crash", "exited before answering q2 (exit status 7)"},
		{"garbage", `the retriever wrote a line that is not an answer to q1: "this is not json"; print debug output to stderr`},
		{"wrongid", `the retriever wrote a line that is not an answer to q1: an answer for "someone-else"`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			var stderr syncBuffer
			r := start(t, tt.mode, &stderr)
			var err error
			for _, id := range []string{"q1", "q2"} {
				if _, err = ask(r, id); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
			if _, err2 := ask(r, "q3"); err2 == nil {
				t.Error("a broken retriever answered again")
			}
		})
	}
}

// TestHangTimesOut: a query that never gets its answer fails at its
// timeout, later ones at once, and the process is gone well within 5 s of
// the timeout.
func TestHangTimesOut(t *testing.T) {
	var stderr syncBuffer
	r := start(t, "hang", &stderr)
	if _, err := ask(r, "q1"); err != nil {
		t.Fatal(err)
	}
	startT := time.Now()
	_, err := askIn(r, "q2", 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "no answer to q2 in time") || time.Since(startT) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(startT))
	}
	stop := time.Now()
	if _, err := ask(r, "q3"); err == nil || !strings.Contains(err.Error(), "did not answer an earlier query (q2) in time") {
		t.Errorf("after a timeout: %v", err)
	}
	closeQuickly(t, r)
	t.Logf("stopped %v after the timeout", time.Since(stop))
}

// TestDebugPrintIsAnError (hang bug a): a debug print on stdout, before or
// after the answer, fails the query it disturbs with what it printed, and
// the retriever closes at once.
func TestDebugPrintIsAnError(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"debugfirst", `the retriever wrote a line that is not an answer to q1: "debug: got q1"; print debug output to stderr`},
		{"debugafter", `not an answer to q2`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			var stderr syncBuffer
			r := start(t, tt.mode, &stderr)
			var err error
			for _, id := range []string{"q1", "q2", "q3"} {
				if _, err = ask(r, id); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "debug: ") {
				t.Errorf("err %v, want %q", err, tt.want)
			}
			closeQuickly(t, r)
		})
	}
}

// TestLineAfterTheLastAnswer: a debug line after the last answer, when
// no query is left to disturb, is one warning at Close.
func TestLineAfterTheLastAnswer(t *testing.T) {
	var stderr syncBuffer
	var warnings []string
	r, _ := startWarn(t, "debugafter", &stderr, func(s string) { warnings = append(warnings, s) })
	if _, err := ask(r, "q1"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	closeQuickly(t, r)
	if len(warnings) != 1 || !strings.Contains(warnings[0], `after its last answer: "debug: answered q1"`) {
		t.Errorf("warnings %q", warnings)
	}
}

// TestHalfLine (hang bug b): half an answer and no newline, the process
// alive, fails the query at its timeout quoting what came.
func TestHalfLine(t *testing.T) {
	var stderr syncBuffer
	r := start(t, "half", &stderr)
	_, err := askIn(r, "q1", 500*time.Millisecond)
	want := `the retriever wrote half an answer to q1: 19 bytes and no newline in time ("{\"id\":\"q1\",\"hits\":[")`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v\nwant %s", err, want)
	}
	closeQuickly(t, r)
}

// TestHelperHoldingStdout (hang bug c): the retriever dies while a helper
// it started still holds its stdout and stderr: the query fails naming the
// exit, long before its timeout, and Close ends the helper too.
func TestHelperHoldingStdout(t *testing.T) {
	var stderr syncBuffer
	r, pidfile := startWarn(t, "helper", &stderr, nil)
	if _, err := ask(r, "q1"); err != nil {
		t.Fatal(err)
	}
	helperPid := waitPid(t, pidfile)
	startT := time.Now()
	_, err := askIn(r, "q2", 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited before answering q2 (exit status 7)") || time.Since(startT) > 5*time.Second {
		t.Errorf("err %v after %v", err, time.Since(startT))
	}
	closeQuickly(t, r)
	if alive(helperPid) {
		t.Errorf("the helper %d outlived Close", helperPid)
	}
}

// TestDeafToStdin (hang bug d): a retriever that never reads its stdin
// cannot block the write of a long query past its timeout.
func TestDeafToStdin(t *testing.T) {
	var stderr syncBuffer
	r := start(t, "deaf", &stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	startT := time.Now()
	_, err := r.Retrieve(ctx, &gate.Query{ID: "q1", Text: strings.Repeat("long query ", 100_000)}, 5)
	if err == nil || !strings.Contains(err.Error(), "the retriever did not read the request for q1 (1100029 bytes) from its stdin in time") || time.Since(startT) > 3*time.Second {
		t.Errorf("err %v after %v", err, time.Since(startT))
	}
	closeQuickly(t, r)
}

// TestStubbornGroupGone (hang bug e): a retriever that ignores SIGTERM
// while blocked, and its helper, are both gone within 5 s of Close.
func TestStubbornGroupGone(t *testing.T) {
	var stderr syncBuffer
	r, pidfile := startWarn(t, "stubborn", &stderr, nil)
	if _, err := ask(r, "q1"); err != nil {
		t.Fatal(err)
	}
	helperPid := waitPid(t, pidfile)
	leader := r.cmd.Process.Pid
	go askIn(r, "q2", time.Hour) // blocks the retriever; Close must not wait for it
	time.Sleep(100 * time.Millisecond)
	took := closeQuickly(t, r)
	for _, pid := range []int{leader, helperPid} {
		if alive(pid) {
			t.Errorf("process %d outlived Close", pid)
		}
	}
	t.Logf("Close took %v", took)
}

// TestLongLine: a line over MaxLineBytes, or one hit over
// runfile.MaxAnswerValueBytes, is an error naming the query.
func TestLongLine(t *testing.T) {
	for _, tt := range []struct{ mode, want string }{
		{"longline", "the retriever's answer to q1 is longer than 64 MiB"},
		{"bighit", `malformed answer to q1: ` + os.Args[0] + ` stdout: hits[0]: longer than 4 MiB`},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			var stderr syncBuffer
			r := start(t, tt.mode, &stderr)
			exe, _ := os.Executable()
			want := strings.ReplaceAll(tt.want, os.Args[0], exe)
			_, err := askIn(r, "q1", 20*time.Second)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err %v\nwant %s", err, want)
			}
			closeQuickly(t, r)
		})
	}
}

// TestManyHitsKeptCapped: an answer of a million hits keeps its first
// input.MaxKeptHits(k) in order, with one warning for the retriever.
func TestManyHitsKeptCapped(t *testing.T) {
	var stderr syncBuffer
	var warnings []string
	r, _ := startWarn(t, "flood", &stderr, func(s string) { warnings = append(warnings, s) })
	for _, id := range []string{"q1", "q2"} {
		hits, err := askIn(r, id, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != input.MaxKeptHits(5) || hits[0].Doc != "doc-0000000" || hits[len(hits)-1].Doc != fmt.Sprintf("doc-%07d", len(hits)-1) {
			t.Fatalf("%s: %d hits, first %+v", id, len(hits), hits[0])
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "answered q1 with 1000000 hits for k=5: kept the first 1000") {
		t.Errorf("warnings %q, want one", warnings)
	}
}

// memcheck is the child of TestMemoryBound: it asks a fake retriever for
// two answers and prints what it kept and its peak RSS.
func memcheck(mode string) {
	exe, _ := os.Executable()
	warnings := 0
	r, err := Start([]string{exe}, Options{Env: []string{"RG_FAKE_RETRIEVER=" + mode}, Stderr: os.Stderr, Warn: func(string) { warnings++ }})
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer r.Close(time.Second)
	var kept []int
	var errs []string
	for _, id := range []string{"q1", "q2"} {
		hits, err := askIn(r, id, 30*time.Second)
		kept = append(kept, len(hits))
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	status, _ := os.ReadFile("/proc/self/status")
	hwm := ""
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			hwm = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "VmHWM:"), "kB"))
		}
	}
	out, _ := json.Marshal(map[string]any{"kept": kept, "warnings": warnings, "errors": errs, "hwm_kb": hwm})
	fmt.Println(string(out))
}

// TestMemoryBound: a million hits per answer, or a line past the limit,
// keep recallgate's side (a child process) under 256 MB peak RSS.
func TestMemoryBound(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	for _, tt := range []struct{ mode, want string }{
		{"flood", ""},
		{"longline", `the retriever's answer to q1 is longer than 64 MiB`},
		{"bighit", `malformed answer to q1: `},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			exe, _ := os.Executable()
			c := exec.Command(exe, "-test.run=NoSuchTest")
			c.Env = append(os.Environ(), "RG_MEMCHECK="+tt.mode)
			out, err := c.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var got struct {
				Kept     []int
				Warnings int
				Errors   []string
				HWM      string `json:"hwm_kb"`
			}
			if err := json.Unmarshal(bytes.TrimSpace(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			kb, _ := strconv.Atoi(got.HWM)
			t.Logf("%s: peak RSS %d MB: %s", tt.mode, kb>>10, out)
			if kb == 0 || kb > 256<<10 {
				t.Errorf("peak RSS %d kB, want under 256 MB", kb)
			}
			switch tt.mode {
			case "flood":
				if len(got.Errors) > 0 || len(got.Kept) != 2 || got.Kept[0] != input.MaxKeptHits(5) || got.Warnings != 1 {
					t.Errorf("%s", out)
				}
			default:
				if len(got.Errors) == 0 || !strings.Contains(got.Errors[0], tt.want) {
					t.Errorf("%s", out)
				}
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(nil, Options{Stderr: os.Stderr}); err == nil {
		t.Error("empty argv: want an error")
	}
	if _, err := Start([]string{"/nonexistent/retriever"}, Options{Stderr: os.Stderr}); err == nil {
		t.Error("missing program: want an error")
	}
}

// waitPid reads the pid a helper wrote.
func waitPid(t *testing.T, pidfile string) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		if b, err := os.ReadFile(pidfile); err == nil && len(b) > 0 {
			pid, _ := strconv.Atoi(string(b))
			return pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the helper did not start")
	return 0
}

// alive reports whether pid runs (a zombie awaiting its reaper is not).
func alive(pid int) bool {
	deadline := time.Now().Add(time.Second) // the reaper may lag a little
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && len(b) > i+2 && b[i+2] == 'Z' {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// slowAnswer is how long the "slow" fake takes to answer each request.
const slowAnswer = 150 * time.Millisecond

// TestEachErrorNamesItsQuery: of two queries only the second is bad, and
// its error names it alone; an answer to the first that carries the
// second's id and a bad hit is told as out of step, not as a bad hit of
// "q2" reported under q1.
func TestEachErrorNamesItsQuery(t *testing.T) {
	set := &gate.Set{Queries: []*gate.Query{{ID: "q1", Text: "one"}, {ID: "q2", Text: "two"}}}
	for _, tt := range []struct{ mode, want, not string }{
		{"badsecond", `q2: malformed answer to q2: `, "q1"},
		{"staleid", `q1: the retriever wrote a line that is not an answer to q1: an answer for "q2"`, "hit without a document id"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			var stderr syncBuffer
			r := start(t, tt.mode, &stderr)
			_, err := retrieval.All(context.Background(), "head", set, r, retrieval.Options{K: 5, Concurrency: 1, Timeout: 5 * time.Second})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			first, _, _ := strings.Cut(strings.SplitN(msg, "\n", 3)[1], " (")
			if !strings.Contains(msg, tt.want) || strings.Contains(first, tt.not) {
				t.Errorf("error:\n%s\nwant %q, and its first failure without %q", msg, tt.want, tt.not)
			}
		})
	}
}

// TestCrashAtStartIsOneLine: a program that dies before its first answer
// is one line for the whole set, with the count and its stderr's end, not
// a line per query.
func TestCrashAtStartIsOneLine(t *testing.T) {
	var qs []*gate.Query
	for i := range 40 {
		qs = append(qs, &gate.Query{ID: fmt.Sprintf("q%02d", i), Text: "x"})
	}
	var stderr syncBuffer
	r := start(t, "crashstart", &stderr)
	_, err := retrieval.All(context.Background(), "head", &gate.Set{Queries: qs}, r, retrieval.Options{K: 5, Concurrency: 4, Timeout: 5 * time.Second})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	want := `head: 40 queries not retrieved (not scored as misses): retriever process `
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, want) || !strings.Contains(msg, "exited before its first answer (exit status 1)") ||
		!strings.Contains(msg, `its stderr ended with: "Traceback (most recent call last):\nModuleNotFoundError: No module named 'faiss'"`) {
		t.Errorf("error:\n%s\nwant one line starting %q with the exit and the stderr", msg, want)
	}
}

// TestLatencyExcludesQueueWait: four queries at once to a program that
// answers one at a time in 150 ms each: the last waits ≥ 450 ms for the
// pipe, which is queue wait, so no latency comes near 600 ms (the time
// from the query's start to its answer), and the start-up counts the
// first answer.
func TestLatencyExcludesQueueWait(t *testing.T) {
	var qs []*gate.Query
	for i := range 4 {
		qs = append(qs, &gate.Query{ID: fmt.Sprintf("q%d", i), Text: "x"})
	}
	var stderr syncBuffer
	r := start(t, "slow", &stderr)
	res, err := retrieval.All(context.Background(), "head", &gate.Set{Queries: qs}, r, retrieval.Options{K: 5, Concurrency: 4, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var most, queued time.Duration
	for _, x := range res {
		if x.Latency < slowAnswer {
			t.Errorf("%s: latency %v is below the program's own %v", x.ID, x.Latency, slowAnswer)
		}
		most, queued = max(most, x.Latency), max(queued, x.Queue)
	}
	if queued < 3*slowAnswer || most >= 4*slowAnswer-2*slowAnswer/3 {
		t.Errorf("longest latency %v, longest queue wait %v: want the wait (≥ %v) kept out of the latency (%v each)", most, queued, 3*slowAnswer, slowAnswer)
	}
	if fa := r.FirstAnswer(); fa < slowAnswer {
		t.Errorf("first answer %v, want at least %v (the start-up runs until it)", fa, slowAnswer)
	}
}

// TestAnswerContext: an answer line's context and abstain reach the
// gate.Answer; a line without them carries none; each bad one is an error
// naming the query and the field.
func TestAnswerContext(t *testing.T) {
	var stderr syncBuffer
	r := start(t, "context", &stderr)
	ctx := context.Background()
	a, err := r.Answer(ctx, &gate.Query{ID: "q1", Text: "x"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Hits) != 2 || len(a.Context) != 1 || a.Context[0].Chunk != "a#2" || a.Context[0].Text != "Settings → Keys" || a.Context[0].Tokens == nil || *a.Context[0].Tokens != 3 || a.Abstain == nil || *a.Abstain {
		t.Fatalf("q1: %+v", a)
	}
	a, err = r.Answer(ctx, &gate.Query{ID: "q2", Text: "x"}, 5)
	if err != nil || a.Context == nil || len(a.Context) != 0 || a.Abstain == nil || !*a.Abstain {
		t.Fatalf("q2: %+v %v", a, err)
	}
	a, err = r.Answer(ctx, &gate.Query{ID: "q3", Text: "x"}, 5)
	if err != nil || a.Context != nil || a.Abstain != nil {
		t.Fatalf("q3 (no context, no abstain): %+v %v", a, err)
	}
	for id, want := range map[string]string{"notarray": "context: must be an array", "nodoc": "context[0].doc", "negative": "context[0].tokens", "yes": "abstain: must be true or false"} {
		r := start(t, "context", &stderr)
		_, err := r.Answer(ctx, &gate.Query{ID: id, Text: "x"}, 5)
		if err == nil || !strings.Contains(err.Error(), "answer to "+id) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want it to name the query and %q", id, err, want)
		}
	}
}
