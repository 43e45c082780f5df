package pipeline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/fingerprint"
	"github.com/recallgate/recallgate/gate/setfile"
)

const (
	testSet = `{"id":"q1","query":"first","gold":{"a":1}}
{"id":"q2","query":"second","gold":{"b":1}}
`
	goodRun = `{"id":"q1","hits":[{"doc":"a"}]}
{"id":"q2","hits":[{"doc":"b"}]}
`
	lossRun = `{"id":"q1","hits":[{"doc":"a"}]}
{"id":"q2","hits":[{"doc":"x"}]}
`
)

func put(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func testEnv(stderr *bytes.Buffer) *Env {
	return &Env{Getenv: os.Getenv, Stderr: stderr}
}

func load(t *testing.T, path string) (*config.Config, *gate.Set) {
	t.Helper()
	cfg, set, err := LoadConfigSet(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return cfg, set
}

// TestCachedSideIsNotBuilt: a side whose run is cached is never built, so
// a command retriever is not even started; one that is built is closed.
func TestCachedSideIsNotBuilt(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "head.jsonl", goodRun)
	started := filepath.Join(dir, "started")
	put(t, dir, "r.py", `import json, sys
open(sys.argv[1], "a").write("started\n")
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps({"id": req["id"], "hits": [{"doc": "a"}, {"doc": "b"}]}), flush=True)
`)
	cfgPath := put(t, dir, "rg.toml", "set = \"set.jsonl\"\ncache_dir = \"cache\"\n[base.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"r.py\", \"started\"]\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n")
	cfg, set := load(t, cfgPath)
	for i, wantStarts := range []int{1, 1} {
		var stderr bytes.Buffer
		e := testEnv(&stderr)
		e.Cache = &RunCache{Dir: cfg.CacheDir, Keys: map[string]string{"base": "commit-1"}}
		runs, err := Retrieve(context.Background(), e, cfg, set, []string{"base", "head"}, cfg.Depth.Candidates, 1)
		if err != nil || runs["base"].Err != nil {
			t.Fatalf("run %d: %v %v", i, err, runs["base"].Err)
		}
		data, _ := os.ReadFile(started)
		if n := strings.Count(string(data), "started"); n != wantStarts {
			t.Errorf("run %d: the command retriever started %d times, want %d\n%s", i, n, wantStarts, stderr.String())
		}
		if i == 1 && (!runs["base"].Cached || runs["base"].Latency() != nil || !strings.Contains(stderr.String(), "base: reused the cached run")) {
			t.Errorf("run %d: base not taken from the cache: %+v\n%s", i, runs["base"], stderr.String())
		}
		if len(runs["base"].First()) != 2 {
			t.Errorf("run %d: base has %d results", i, len(runs["base"].First()))
		}
	}
	// Another candidate depth is another run: not taken from the cache.
	var stderr bytes.Buffer
	e := testEnv(&stderr)
	e.Cache = &RunCache{Dir: cfg.CacheDir, Keys: map[string]string{"base": "commit-1"}}
	runs, err := Retrieve(context.Background(), e, cfg, set, []string{"base"}, 100, 1)
	if err != nil || runs["base"].Cached {
		t.Errorf("a deeper retrieval reused the cached run: %v\n%s", err, stderr.String())
	}
}

func TestGateJob(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "base.jsonl", goodRun)
	put(t, dir, "head.jsonl", lossRun)
	one, set := load(t, put(t, dir, "one.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n"))
	var stderr bytes.Buffer
	_, err := Gate(context.Background(), testEnv(&stderr), GateOptions{Config: one, Set: set, Thresholds: one.Thresholds, IdenticalFix: "give it a base ref"})
	if !gate.IsInput(err) || !strings.Contains(err.Error(), "so this gate cannot fail: give it a base ref") {
		t.Errorf("one [retriever] without a base ref: %v", err)
	}
	cmp, err := Gate(context.Background(), testEnv(&stderr), GateOptions{Config: one, Set: set, Thresholds: one.Thresholds, AllowIdentical: true})
	if err != nil || cmp.Verdict != gate.Pass {
		t.Errorf("allowed self-check: %v %v", err, cmp)
	}
	ab, set := load(t, put(t, dir, "ab.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n"))
	saved := filepath.Join(dir, "saved")
	cmp, err = Gate(context.Background(), testEnv(&stderr), GateOptions{Config: ab, Set: set, Thresholds: ab.Thresholds, SaveRuns: saved, Baseline: filepath.Join(dir, "baseline.jsonl")})
	if err != nil || cmp.Verdict != gate.Fail || strings.Join(cmp.Regressed, ",") != "q2" || cmp.Latency[1] == nil {
		t.Fatalf("A/B gate: %v %+v", err, cmp)
	}
	for _, f := range []string{"saved/base.jsonl", "saved/head.jsonl", "baseline.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// The same two runs compared as files, and the head against its own
	// baseline as a drift run.
	cmp, err = CompareFiles(testEnv(&stderr), ab, set, ab.Depth, ab.Thresholds, "", filepath.Join(dir, "base.jsonl"), filepath.Join(dir, "head.jsonl"))
	if err != nil || cmp.Verdict != gate.Fail || len(cmp.Fingerprints) != 5 || !fingerprint.Valid(Fingerprint(cmp.Fingerprints, "policy")) {
		t.Errorf("compare files: %v %+v", err, cmp)
	}
	cmp, err = Drift(context.Background(), testEnv(&stderr), GivenRuling(ab, set), DriftOptions{Baseline: filepath.Join(dir, "baseline.jsonl")})
	if err != nil || cmp.Verdict != gate.Pass || len(cmp.Regressed) != 0 {
		t.Errorf("drift against the head's own baseline: %v %+v", err, cmp)
	}
}

func TestInsideWorkspace(t *testing.T) {
	ws := t.TempDir()
	inside := put(t, ws, "set.jsonl", testSet)
	if err := InsideWorkspace(ws, nil, inside, filepath.Join(ws, "not-yet"), filepath.Join(ws, "not", "yet", "either")); err != nil {
		t.Errorf("paths inside: %v", err)
	}
	outside := put(t, t.TempDir(), "x.jsonl", testSet)
	link := filepath.Join(ws, "link.jsonl")
	os.Symlink(outside, link)
	// A folder linked out of the workspace, with folders under it still to
	// be made (a cache_dir, a first night's history): MkdirAll would
	// follow the link.
	dirLink := filepath.Join(ws, "cache")
	os.Symlink(filepath.Dir(outside), dirLink)
	for _, p := range []string{outside, link, filepath.Join(ws, "..", "escape"), filepath.Join(dirLink, "new"), filepath.Join(dirLink, "a", "b", "c")} {
		if err := InsideWorkspace(ws, nil, p); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("%s: %v", p, err)
		}
	}
	// A judge guideline is read (its text sent to the judge, its hash in
	// the fingerprint): a PR's config must not name the runner's files.
	judged := &config.Config{Path: filepath.Join(ws, "recallgate.toml"), Judge: &config.Judge{GuidelineFile: outside}}
	if err := InsideWorkspace(ws, judged); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("a judge guideline outside the workspace: %v", err)
	}
}

func TestDescribeOldest(t *testing.T) {
	set, err := setfile.Parse(strings.NewReader(`{"id":"old","query":"rotate api key","gold":{"a":3,"b":0},"verified":"2026-01-05","judgments":{"ben":{"a":3},"ana":{"a":2,"b":0}}}
{"id":"never","query":"max message size","gold":{"c":1}}
`), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 3, 15, 4, 0, 0, time.UTC)
	got := DescribeOldest(set, OldestVerified(set, 2, 1), now)
	want := []string{
		"never  never verified, no labeller recorded, 1 relevant gold document: max message size",
		"old  verified 2026-01-05 (332 days ago), judged by ana, ben, 1 relevant gold document: rotate api key",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
