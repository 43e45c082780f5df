package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
	"github.com/recallgate/recallgate/gate/runfile"
)

// memoryLimitKiB is the peak resident set every hostile input of the
// suite must stay under (issue 26: 256 MB).
const memoryLimitKiB = 256 << 10

// childAddressSpace caps the address space of the child running a hostile
// input: a reader that is not bounded (a fix reverted) then fails fast
// with "out of memory" instead of eating the shared machine.
const childAddressSpace = 3 << 30

// TestMemoryChild is the child process of rgChild: it runs the CLI with
// the arguments in RECALLGATE_MEMORY_CHILD and exits with its code.
func TestMemoryChild(t *testing.T) {
	spec := os.Getenv("RECALLGATE_MEMORY_CHILD")
	if spec == "" {
		t.Skip("the child of the memory tests")
	}
	var args []string
	if err := json.Unmarshal([]byte(spec), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	lim := syscall.Rlimit{Cur: childAddressSpace, Max: childAddressSpace}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	code := run(context.Background(), args, func(string) string { return "" }, os.Stdout, os.Stderr)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(99)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Fprintf(os.Stderr, "\n%s%s\n", hwmMark, strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")))
		}
	}
	os.Exit(code)
}

// hwmMark starts the line on which the child reports its peak RSS.
const hwmMark = "recallgate-test-vmhwm: "

// rgChild runs the CLI in a child process (this test binary) and returns
// its exit code, stderr and peak resident set in KiB: VmHWM of the child's
// /proc/self/status when it is done (ru_maxrss would count this process's
// own peak too: the child shares its memory until exec). A child that
// dies before it can say (out of memory) reports the limit exceeded.
func rgChild(t *testing.T, args ...string) (int, string, int64) {
	t.Helper()
	spec, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestMemoryChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RECALLGATE_MEMORY_CHILD="+string(spec))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v: still running after 30 s (a hang)\n%s", args, stderr.String())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	errs := stderr.String()
	hwm := int64(childAddressSpace >> 10)
	if i := strings.LastIndex(errs, "\n"+hwmMark); i >= 0 {
		fmt.Sscanf(errs[i+1+len(hwmMark):], "%d kB", &hwm)
		errs = errs[:i]
	} else {
		t.Errorf("%v: the child did not report its peak RSS (it died: out of memory?)", args)
	}
	return cmd.ProcessState.ExitCode(), errs, hwm
}

// checkBounded asserts a hostile run's exit code, its error and its peak memory.
func checkBounded(t *testing.T, code int, errs string, rss int64, wantCode int, want string) {
	t.Helper()
	if code != wantCode || !strings.Contains(errs, want) {
		t.Errorf("exit %d, want %d with %q\n%.2000s", code, wantCode, want, errs)
	}
	if rss > memoryLimitKiB {
		t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>10, memoryLimitKiB>>10)
	}
	t.Logf("exit %d, peak RSS %.1f MiB", code, float64(rss)/1024)
}

// sparse makes a file of size zero bytes (no newline in it) without
// writing them: a line as long as the file.
func sparse(t *testing.T, path string, size int64) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDeepReportBoundedInMemory: a 600 KB report.json nested 120,000
// levels deep, given to the privileged comment job (and report --in), is
// refused at gate.MaxJSONDepth in linear time, not walked to 580 MB.
func TestDeepReportBoundedInMemory(t *testing.T) {
	dir := t.TempDir()
	const levels = 120_000
	body := strings.Repeat(`{"a":`, levels) + "1" + strings.Repeat("}", levels)
	in := write(t, dir, "report.json", body)
	code, errs, rss := rgChild(t, "comment", "--report", in)
	checkBounded(t, code, errs, rss, 2, "JSON nested more than 64 levels deep")
	code, errs, rss = rgChild(t, "report", "--in", in, "--format", "text")
	checkBounded(t, code, errs, rss, 2, "JSON nested more than 64 levels deep")
}

// TestLargeReportRefused: a report over 8 MiB is refused before it is
// parsed, and one that is not a regular file before it is read.
func TestLargeReportRefused(t *testing.T) {
	dir := t.TempDir()
	in := write(t, dir, "report.json", `{"tool":"recallgate","x":"`+strings.Repeat("a", 9<<20)+`"}`)
	if code, _, errs := rg(t, "comment", "--report", in); code != 2 || !strings.Contains(errs, "the report is longer than 8 MiB") {
		t.Errorf("exit %d: %s", code, errs)
	}
	link := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	code, errs, rss := rgChild(t, "comment", "--report", link)
	checkBounded(t, code, errs, rss, 2, "not a regular file")
}

// TestConfigOnDevZeroBoundedInMemory: a config symlinked to /dev/zero is
// refused before a byte of it is read.
func TestConfigOnDevZeroBoundedInMemory(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "recallgate.toml")
	if err := os.Symlink("/dev/zero", cfg); err != nil {
		t.Fatal(err)
	}
	code, errs, rss := rgChild(t, "validate", "--config", cfg)
	checkBounded(t, code, errs, rss, 2, "not a regular file")
	big := write(t, dir, "big.toml", "# "+strings.Repeat("x", 2<<20)+"\n")
	if code, _, errs := rg(t, "validate", "--config", big); code != 2 || !strings.Contains(errs, "the config is longer than 1 MiB") {
		t.Errorf("a 2 MiB config: exit %d: %s", code, errs)
	}
}

// TestLongLineBoundedInMemory: a 256 MiB line without a newline, as an
// eval set or a run, is refused at the line limit (1 MiB for sets, 16 MiB
// for runs) without being held.
func TestLongLineBoundedInMemory(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	long := sparse(t, filepath.Join(dir, "long.jsonl"), 256<<20)
	code, errs, rss := rgChild(t, "validate", "--set", long)
	checkBounded(t, code, errs, rss, 2, "long.jsonl: line 1 is longer than 1 MiB")
	code, errs, rss = rgChild(t, "score", "--set", set, "--results", long)
	checkBounded(t, code, errs, rss, 2, "long.jsonl: line 1 is longer than 16 MiB")
}

// TestGzipCorpusBombBoundedInMemory: a half-MB gzipped corpus holding one
// 400 MB line, read by validate and by the builtin retriever, is refused at
// the corpus line limit.
func TestGzipCorpusBombBoundedInMemory(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "corpus.jsonl.gz")
	f, err := os.Create(gz)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	bw := bufio.NewWriterSize(zw, 1<<20)
	bw.WriteString(`{"id":"d1","text":"`)
	chunk := []byte(strings.Repeat("a", 1<<20))
	for range 400 {
		bw.Write(chunk)
	}
	bw.WriteString("\"}\n")
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(gz); st.Size() > 4<<20 {
		t.Fatalf("the bomb is %d bytes", st.Size())
	}
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"alpha","gold":{"d1":1}}`+"\n")
	code, errs, rss := rgChild(t, "validate", "--set", set, "--corpus", gz)
	checkBounded(t, code, errs, rss, 2, "line 1 is longer than 16 MiB")
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus.jsonl.gz\"\n")
	code, errs, rss = rgChild(t, "retrieve", "--config", cfg, "--out", filepath.Join(dir, "run.jsonl"))
	checkBounded(t, code, errs, rss, 2, "line 1 is longer than 16 MiB")
}

// TestHTTPHitFloodBoundedInMemory: a service answering every query with
// 900,000 hits in 14 MB keeps input.MaxKeptHits(k) of them per answer,
// builds none of the rest, and says so once per side.
func TestHTTPHitFloodBoundedInMemory(t *testing.T) {
	const n = 900_000
	body := `{"hits":` + docArray(n, 4096) + "}"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	cfg := write(t, dir, "rg.toml", fmt.Sprintf("set = \"set.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"q\": {{query}}}'\nhits = \"hits\"\ndoc = \"doc\"\n", srv.URL))
	out := filepath.Join(dir, "run.jsonl")
	code, errs, rss := rgChild(t, "retrieve", "--config", cfg, "--out", out)
	keep := input.MaxKeptHits(5)
	checkBounded(t, code, errs, rss, 0, fmt.Sprintf("with %d hits: only the first %d are kept", n, keep))
	if c := strings.Count(errs, "are kept"); c != 1 {
		t.Errorf("%d warnings about dropped hits, want 1 for the side:\n%s", c, errs)
	}
	hits := 0
	_, err := runfile.ReadRunFile(out, func(r gate.Result) error {
		if len(r.Hits) != keep {
			t.Errorf("%s: %d hits kept, want %d", r.ID, len(r.Hits), keep)
		}
		hits++
		return nil
	})
	if err != nil || hits != 3 {
		t.Errorf("the run: %d results, %v", hits, err)
	}
}

// TestHTTPDeepAnswerIsInfra: an answer nested past gate.MaxJSONDepth is
// the service's fault: exit 3 naming the query.
func TestHTTPDeepAnswerIsInfra(t *testing.T) {
	deep := `{"hits":[{"doc":"a"}],"x":` + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + "}"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "second") {
			fmt.Fprint(w, deep)
			return
		}
		fmt.Fprint(w, `{"hits":[{"doc":"a"}]}`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	cfg := write(t, dir, "rg.toml", fmt.Sprintf("set = \"set.jsonl\"\n[retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"q\": {{query}}}'\nhits = \"hits\"\ndoc = \"doc\"\n", srv.URL))
	code, errs, rss := rgChild(t, "retrieve", "--config", cfg, "--out", filepath.Join(dir, "run.jsonl"))
	checkBounded(t, code, errs, rss, 3, "q2: "+srv.URL+": answer refused: JSON nested more than 64 levels deep")
}

// TestFIFOInputsRefused: a config or a report that is a FIFO (a reader
// would block forever) is refused before it is opened for reading.
func TestFIFOInputsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{{"validate", "--config", fifo}, {"comment", "--report", fifo}, {"report", "--in", fifo}} {
		code, errs, rss := rgChild(t, args...)
		checkBounded(t, code, errs, rss, 2, "not a regular file")
	}
}

// docArray is a JSON array of n tiny passages or hits, {"doc":"<i mod m in
// hex>"}: a flood that stays under a body or line limit.
func docArray(n, m int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"doc":"%x"}`, i%m)
	}
	b.WriteByte(']')
	return b.String()
}
