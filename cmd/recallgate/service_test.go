package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serviceScript is the repository's own search service (testdata).
var serviceScript = func() string {
	b, err := os.ReadFile(filepath.Join("testdata", "search_service.py"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// serviceToken is a runner credential the gate's environment holds: no
// service may see it.
const serviceToken = "ghs_servicetesttoken0123456789"

// serviceRepo is a git repository holding a search service over twelve
// documents and a set of six queries, each with two gold documents (q1
// finds d01 by word1a and d02 by word1b, …), and a config whose [retriever]
// starts the service ({port}) with extra arguments; dump is the folder the
// services write their environment and pids into.
func serviceRepo(t *testing.T, table string) (f *fixture, dump string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f = emptyRepo(t)
	dump = t.TempDir()
	var set strings.Builder
	for i := 1; i <= 6; i++ {
		f.put(fmt.Sprintf("docs/d%02d.txt", 2*i-1), fmt.Sprintf("topic word%da\n", i))
		f.put(fmt.Sprintf("docs/d%02d.txt", 2*i), fmt.Sprintf("topic word%db\n", i))
		fmt.Fprintf(&set, `{"id":"q%d","query":"word%da word%db","gold":{"d%02d":1,"d%02d":1}}`+"\n", i, i, i, 2*i-1, 2*i)
	}
	f.put("set.jsonl", set.String())
	f.put("service.py", serviceScript)
	f.put("README.md", "# our search\n")
	f.put("recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[gate]\nmax_recall_drop = 0.05\n[retriever]\ntype = \"http\"\n"+
		"url = \"http://127.0.0.1:{port}/search\"\nbody = '{\"q\": {{query}}, \"k\": {{k}}}'\nhits = \"hits\"\ndoc = \"id\"\nscore = \"score\"\n"+
		strings.ReplaceAll(table, "DUMP", dump))
	f.base = f.commit("the search service and its set")
	return f, dump
}

// startTable starts the service with its environment dumped.
const startTable = "start = [\"python3\", \"service.py\", \"--port\", \"{port}\", \"--dump\", \"DUMP\"]\n"

// serviceEnv is the gate's environment: the runner's token among it.
func serviceEnv(tmp string) func(string) string {
	env := map[string]string{"RUNNER_TEMP": tmp, "PATH": os.Getenv("PATH"), "GITHUB_TOKEN": serviceToken, "SEARCH_HOME": "kept-out"}
	return func(k string) string { return env[k] }
}

// gateService runs `gate --base-ref` on the fixture with serviceEnv.
func (f *fixture) gateService(ctx context.Context, extra ...string) (int, compareJSON, string) {
	f.t.Helper()
	args := append([]string{"gate", "--config", filepath.Join(f.dir, "recallgate.toml"), "--base-ref", f.base, "--no-cache", "--format", "json"}, extra...)
	var out, errb bytes.Buffer
	code := run(ctx, args, serviceEnv(f.t.TempDir()), &out, &errb)
	var rep compareJSON
	if code < 2 {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			f.t.Fatalf("report: %v\n%s\n%s", err, out.String(), errb.String())
		}
	}
	return code, rep, errb.String()
}

// serviceDump is what one started service wrote about itself.
type serviceDump struct {
	Pid, Helper   int
	Cwd           string
	Environ       map[string]string
	ParentEnviron string `json:"parent_environ"`
}

// dumps reads every service's dump in dir.
func dumps(t *testing.T, dir string) []serviceDump {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []serviceDump
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var d serviceDump
		if err := json.Unmarshal(b, &d); err != nil {
			continue // being written
		}
		out = append(out, d)
	}
	return out
}

// checkNoneLeft fails when a process of a dumped service's group (the
// service or the helper it started) is still running (a zombie not yet
// reaped by init counts as gone), or the service saw the token.
func checkNoneLeft(t *testing.T, ds []serviceDump) {
	t.Helper()
	for _, d := range ds {
		if pids := groupRunning(d.Pid); len(pids) > 0 {
			t.Errorf("the process group of service %d (helper %d) outlived the gate: %v still running", d.Pid, d.Helper, pids)
			_ = syscall.Kill(-d.Pid, syscall.SIGKILL)
		}
		for k, v := range d.Environ {
			if strings.Contains(v, serviceToken) || k == "GITHUB_TOKEN" || k == "SEARCH_HOME" {
				t.Errorf("service %d's environment holds %s", d.Pid, k)
			}
		}
		// root reads any process's environ: only another user proves
		// nodump (TestParentOutOfReach runs the binary as one).
		if os.Geteuid() != 0 && (strings.Contains(d.ParentEnviron, serviceToken) || !strings.HasPrefix(d.ParentEnviron, "unreadable")) {
			t.Errorf("service %d read recallgate's environment through /proc: %.80q", d.Pid, d.ParentEnviron)
		}
	}
}

// groupRunning lists the processes of group pgid that are not zombies,
// waiting up to a second for the group to go.
func groupRunning(pgid int) []int {
	var alive []int
	for try := 0; try < 10; try++ {
		alive = alive[:0]
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if fields := procStat(e.Name()); len(fields) > 2 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgid) {
				pid, _ := strconv.Atoi(e.Name())
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return alive
}

// procStat is /proc/<pid>/stat's fields after the command's name (state,
// ppid, pgrp, …), nil when there is no such process.
func procStat(pid string) []string {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	// pid (comm) state ppid pgrp …: comm may hold spaces, so read after its ')'.
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// TestServiceCappedPRFails: a repository keeps its own search service and
// the table starts it. A pull request that caps the service's answers at
// one hit fails (each query keeps one of its two gold documents), because
// the base side is the base commit's service, started in its tree; a
// README-only pull request passes. Both sides' services ran (one in the
// base commit's tree, one in the checkout), none outlives the gate, and
// none saw the runner's token.
func TestServiceCappedPRFails(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", serviceToken) // in recallgate's own environment too
	f, dump := serviceRepo(t, startTable)
	f.git("checkout", "-q", "-b", "cap")
	f.edit("service.py", "CAP = 50", "CAP = 1")
	f.commit("search: answer one hit")
	code, rep, errs := f.gateService(context.Background())
	if code != 1 || rep.Verdict != "fail" || rep.Summary.Delta.RecallAtN > -0.49 {
		t.Errorf("capped service: exit %d, verdict %q, delta %.3f, want 1, fail, -0.5\n%s", code, rep.Verdict, rep.Summary.Delta.RecallAtN, errs)
	}
	ds := dumps(t, dump)
	cwds := map[bool]bool{}
	for _, d := range ds {
		cwds[d.Cwd == f.dir] = true
	}
	if len(ds) != 2 || !cwds[true] || !cwds[false] {
		t.Errorf("want one service in the checkout and one in the base commit's tree, got %+v", ds)
	}
	checkNoneLeft(t, ds)

	f.git("checkout", "-q", "main")
	f.git("checkout", "-q", "-b", "readme")
	f.put("README.md", "# our search, documented\n")
	f.commit("docs: readme")
	for _, e := range ds {
		_ = os.Remove(filepath.Join(dump, fmt.Sprintf("%d.json", e.Pid)))
	}
	if code, rep, errs := f.gateService(context.Background()); code != 0 || rep.Verdict != "pass" {
		t.Errorf("README-only change: exit %d, verdict %q, want 0, pass\n%s", code, rep.Verdict, errs)
	}
	checkNoneLeft(t, dumps(t, dump))
}

// TestServiceWithoutStartRefused: the same table without start, and one
// service running at its URL: both sides would ask it, so a change to the
// service in the pull request could never be seen. The gate refuses (exit
// 2), naming the URL and what to do; --allow-identical runs it with a
// warning. Per-side URLs read from the environment (a preview deployment
// for the head) are not refused; both naming one URL are.
func TestServiceWithoutStartRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"hits":[{"id":"d01","score":1}]}`)
	}))
	defer srv.Close()
	f, _ := serviceRepo(t, "")
	f.edit("recallgate.toml", "http://127.0.0.1:{port}/search", srv.URL+"/search")
	f.base = f.commit("search at the team's service")
	f.edit("service.py", "CAP = 50", "CAP = 1")
	f.commit("search: answer one hit")
	code, _, errs := f.gateService(context.Background())
	if code != 2 || !strings.Contains(errs, "same request to "+srv.URL+"/search") || !strings.Contains(errs, "start = [") ||
		!strings.Contains(errs, "--allow-identical") || !strings.Contains(errs, "preview deployment") {
		t.Errorf("one service for both sides: exit %d, want 2 naming %s and the fixes\n%s", code, srv.URL, errs)
	}
	if code, _, errs := f.gateService(context.Background(), "--allow-identical"); code != 0 || !strings.Contains(errs, "compared with itself") {
		t.Errorf("--allow-identical: exit %d, want 0 with a warning\n%s", code, errs)
	}

	// Each side its own deployment: the base commit's config and the
	// head's name per-side variables.
	other := httptest.NewServer(srv.Config.Handler)
	defer other.Close()
	f.put("recallgate.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"http\"\nurl = \"${BASE_SEARCH_URL}/search\"\nhits = \"hits\"\ndoc = \"id\"\n"+
		"[head.retriever]\ntype = \"http\"\nurl = \"${PREVIEW_SEARCH_URL}/search\"\nhits = \"hits\"\ndoc = \"id\"\n")
	f.base = f.commit("per-side deployments")
	f.put("README.md", "# our search, preview\n")
	f.commit("docs")
	env := map[string]string{"RUNNER_TEMP": t.TempDir(), "BASE_SEARCH_URL": srv.URL, "PREVIEW_SEARCH_URL": other.URL}
	gate := func() (int, string) {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"gate", "--config", filepath.Join(f.dir, "recallgate.toml"), "--base-ref", f.base, "--no-cache"}, func(k string) string { return env[k] }, &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := gate(); code != 0 {
		t.Errorf("per-side URLs: exit %d, want 0\n%s", code, out)
	}
	env["PREVIEW_SEARCH_URL"] = srv.URL // both variables at one service: refused again
	if code, out := gate(); code != 2 || !strings.Contains(out, "same request to "+srv.URL+"/search") {
		t.Errorf("per-side variables naming one URL: exit %d, want 2\n%s", code, out)
	}
}

// TestServiceStoppedOnInterrupt: the gate's context ends while both
// sides' services are answering (each answer takes a second): the gate
// ends with exit 3, and neither service nor the helper each started is
// left running.
func TestServiceStoppedOnInterrupt(t *testing.T) {
	f, dump := serviceRepo(t, strings.Replace(startTable, "\"DUMP\"", "\"DUMP\", \"--slow\", \"1\"", 1))
	f.put("README.md", "# our search, changed\n")
	f.commit("docs")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if len(dumps(t, dump)) == 2 {
				time.Sleep(500 * time.Millisecond) // both ready, queries under way
				break
			}
		}
		cancel()
	}()
	code, _, errs := f.gateService(ctx)
	ds := dumps(t, dump)
	if code != 3 || len(ds) != 2 {
		t.Errorf("interrupted: exit %d with %d services started, want 3 and 2\n%s", code, len(ds), errs)
	}
	checkNoneLeft(t, ds)
}

// TestServiceDriftNamesTheCommit: the nightly drift run starts the
// service from the checkout; after a merged change to service.py (the
// file start names, so fingerprinted as an input) it fails and names that
// commit among those since the baseline, and not an unrelated one.
func TestServiceDriftNamesTheCommit(t *testing.T) {
	f, dump := serviceRepo(t, startTable)
	cfg := filepath.Join(f.dir, "recallgate.toml")
	if code, out, errs := rg(t, "gate", "--config", cfg, "--allow-identical", "--no-cache", "--write-baseline", filepath.Join(f.dir, "baselines/head.jsonl")); code != 0 {
		t.Fatalf("write the baseline: exit %d\n%s\n%s", code, out, errs)
	}
	f.commit("baseline after review")
	f.edit("service.py", "CAP = 50", "CAP = 1")
	capped := f.commit("search: answer one hit")
	f.put("NOTES.md", "unrelated\n")
	f.commit("notes: not an input")
	code, out, errs := f.drift()
	if code != 1 {
		t.Fatalf("drift after the service change: exit %d, want 1\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "  "+capped[:7]+" search: answer one hit\n") || strings.Contains(out, "notes: not an input") {
		t.Errorf("the drift report does not name the service's commit %s alone:\n%s", capped[:7], out)
	}
	checkNoneLeft(t, dumps(t, dump))
}

// TestValidateSendsThePreflight: validate --config starts the table's
// service and sends it the gate's preflight (then stops it); with the
// service down (the same table without start, nothing at its URL) it is
// an error naming the URL (exit 3), as is an answer the hits path cannot
// read; --offline sends nothing.
func TestValidateSendsThePreflight(t *testing.T) {
	f, dump := serviceRepo(t, startTable)
	cfg := filepath.Join(f.dir, "recallgate.toml")
	code, out, errs := rg(t, "validate", "--config", cfg)
	if code != 0 || !regexp.MustCompile(`ok: retriever \(this checkout\): http://127\.0\.0\.1:\d+/search \(the service started by python3 service\.py --port \{port\} --dump \S+\) answered the preflight query`).MatchString(out) {
		t.Errorf("validate with start: exit %d\n%s\n%s", code, out, errs)
	}
	ds := dumps(t, dump)
	if len(ds) != 1 {
		t.Errorf("want one service started, got %d", len(ds))
	}
	checkNoneLeft(t, ds)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() + "/search"
	l.Close() // nothing listens there now
	text := string(must(os.ReadFile(cfg)))
	text = strings.Replace(strings.Replace(text, strings.ReplaceAll(startTable, "DUMP", dump), "", 1), "http://127.0.0.1:{port}/search", down, 1)
	f.put("recallgate.toml", text)
	code, out, errs = rg(t, "validate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "request to "+down) || !strings.Contains(errs, "is the service running") {
		t.Errorf("validate with the service down: exit %d, want 3 naming %s\n%s\n%s", code, down, out, errs)
	}
	if code, out, errs := rg(t, "validate", "--config", cfg, "--offline"); code != 0 || strings.Contains(out, "preflight") {
		t.Errorf("validate --offline: exit %d, want 0 and no preflight\n%s\n%s", code, out, errs)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"hits":[{"id":"d01","score":1}]}`)
	}))
	defer srv.Close()
	f.put("recallgate.toml", strings.Replace(strings.Replace(text, down, srv.URL+"/search", 1), "hits = \"hits\"", "hits = \"hits.hits\"", 1))
	if code, out, errs := rg(t, "validate", "--config", cfg); code != 3 || !strings.Contains(errs, `answer has no "hits.hits"`) {
		t.Errorf("validate with a wrong hits path: exit %d, want 3\n%s\n%s", code, out, errs)
	}
}

// TestServiceAdoptionNotRefused: the pull request that adopts recallgate
// with a deployed service (one URL, no start) is not refused: its base
// commit has no config, so there is no base side to see, and its check
// passes as every adoption's does.
func TestServiceAdoptionNotRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"hits":[{"id":"d01","score":1}]}`)
	}))
	defer srv.Close()
	f := emptyRepo(t)
	f.put("README.md", "# our search\n")
	f.base = f.commit("before recallgate")
	f.put("set.jsonl", `{"id":"q1","query":"word1a","gold":{"d01":1}}`+"\n")
	f.put("recallgate.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"http\"\nurl = \""+srv.URL+"/search\"\nhits = \"hits\"\ndoc = \"id\"\n")
	f.commit("adopt recallgate")
	if code, rep, errs := f.gateService(context.Background()); code != 0 || strings.Contains(errs, "same request") {
		t.Errorf("adoption with a deployed service: exit %d, verdict %q, want 0\n%s", code, rep.Verdict, errs)
	}
}
