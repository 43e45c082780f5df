package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/recallgate/recallgate/internal/gitexec"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture is a git repository holding a RAG project: the demo corpus and
// set under rag/, a recallgate.toml, a dependency-free Python retriever
// and a README, committed once as the base.
type fixture struct {
	t    *testing.T
	dir  string // the top of the checkout
	base string // the base commit
}

// fixtureRetriever indexes the first MAX_WORDS words of each document, the
// stand-in for a team's chunking script, and ranks by shared terms (the
// real-runner test of the native action runs the same file).
var fixtureRetriever = func() string {
	b, err := os.ReadFile(filepath.Join("testdata", "terms_retriever.py"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

const (
	builtinConfig = "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n"
	commandConfig = "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \"retriever.py\", \"corpus\"]\n"
)

func newFixture(t *testing.T, config string) *fixture {
	t.Helper()
	f := emptyRepo(t)
	dir := f.dir
	copyDemo(t, dir) // demo/corpus, demo/queries.jsonl
	if err := os.Rename(filepath.Join(dir, "demo"), filepath.Join(dir, "rag")); err != nil {
		t.Fatal(err)
	}
	f.put("rag/recallgate.toml", config)
	f.put("rag/retriever.py", fixtureRetriever)
	f.put("README.md", "# our RAG service\n")
	f.base = f.commit("base")
	return f
}

// emptyRepo is a git repository with no commit yet, on branch main
// (skips without git).
func emptyRepo(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	f := &fixture{t: t, dir: dir}
	f.git("init", "-q", "-b", "main")
	return f
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", f.dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *fixture) put(name, body string) { write(f.t, f.dir, name, body) }

// edit replaces old with new in a file of the fixture.
func (f *fixture) edit(name, old, new string) {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.dir, name))
	if err != nil || !bytes.Contains(data, []byte(old)) {
		f.t.Fatalf("%s has no %q (%v)", name, old, err)
	}
	f.put(name, strings.Replace(string(data), old, new, 1))
}

func (f *fixture) commit(msg string) string {
	f.git("add", "-A")
	f.git("commit", "-qm", msg)
	return f.git("rev-parse", "HEAD")
}

// gate runs `recallgate gate --base-ref` on the fixture with RUNNER_TEMP
// pointing at tmp, and decodes the JSON report.
func (f *fixture) gate(tmp string, extra ...string) (int, compareJSON, string) {
	f.t.Helper()
	args := append([]string{"gate", "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", f.base, "--format", "json"}, extra...)
	var out, errb bytes.Buffer
	env := map[string]string{"RUNNER_TEMP": tmp}
	code := run(context.Background(), args, func(k string) string { return env[k] }, &out, &errb)
	var rep compareJSON
	if code < 2 {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			f.t.Fatalf("report: %v\n%s\n%s", err, out.String(), errb.String())
		}
	}
	return code, rep, errb.String()
}

// compareJSON is the part of the JSON report these tests read.
type compareJSON struct {
	Verdict   string   `json:"verdict"`
	Regressed []string `json:"regressed"`
	Improved  []string `json:"improved"`
	Notes     []string `json:"notes"`
	Summary   struct {
		Delta struct {
			RecallAtN float64 `json:"recall_at_n"`
		} `json:"delta"`
	} `json:"summary"`
	Fingerprints map[string]string `json:"fingerprints"`
}

// TestBaseRefSeesEveryKindOfChange: a change to only the corpus, only the
// retriever's script or only the config each reaches the gate, because the
// base side runs in the base commit's own tree; a change to nothing that
// retrieval reads passes with identical sides.
func TestBaseRefSeesEveryKindOfChange(t *testing.T) {
	python, _ := exec.LookPath("python3")
	for _, tc := range []struct {
		name     string
		config   string
		change   func(f *fixture)
		code     int
		regress  string // a query that must regress ("" = none may)
		note     string // a note the report must carry
		needsPy3 bool
		// retriever says the two sides' retriever fingerprints differ:
		// the table, or a file its command names, changed.
		retriever bool
	}{
		{name: "corpus only", config: builtinConfig, code: 1, regress: "q26", change: func(f *fixture) {
			f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
		}},
		{name: "config only", config: builtinConfig, code: 1, regress: "q26", retriever: true, change: func(f *fixture) {
			f.edit("rag/recallgate.toml", "title_boost = 2.0", "chunk_words = 12")
		}},
		{name: "chunking script only", config: commandConfig, code: 1, regress: "q26", needsPy3: true, retriever: true, change: func(f *fixture) {
			f.edit("rag/retriever.py", "MAX_WORDS = 400", "MAX_WORDS = 3")
		}},
		{name: "nothing retrieval reads", config: builtinConfig, code: 0, change: func(f *fixture) {
			f.put("README.md", "# our RAG service\n\nNow with a logo.\n")
		}},
		{name: "the set only", config: builtinConfig, code: 0, note: "set: the base commit's rag/queries.jsonl@", change: func(f *fixture) {
			f.edit("rag/queries.jsonl", `"rotate api key"`, `"rotate an api key"`)
		}},
		// A change that drops or relabels a query: the base commit's set
		// still scores both sides (see TestSetIsTheBaseCommits).
		{name: "a query removed", config: builtinConfig, code: 0, note: "this change's set (29 queries) is a proposal that takes effect after merge", change: func(f *fixture) {
			f.edit("rag/queries.jsonl", `{"id": "q26", "query": "where can I see who deleted a queue", "gold": {"security/audit-log": 1}, "segments": ["question"], "source": "ticket", "verified": "2026-11-20"}`+"\n", "")
		}},
		{name: "a query relabelled", config: builtinConfig, code: 0, note: "set: the base commit's rag/queries.jsonl@", change: func(f *fixture) {
			f.edit("rag/queries.jsonl", `"gold": {"security/audit-log": 1}, "segments": ["question"], "source": "ticket"`, `"gold": {"security/audit-log": 2}, "segments": ["question"], "source": "ticket"`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needsPy3 && python == "" {
				t.Skip("python3 is not installed")
			}
			f := newFixture(t, tc.config)
			tc.change(f)
			f.commit(tc.name)
			tmp := t.TempDir()
			code, rep, errs := f.gate(tmp)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%+v\n%s", code, tc.code, rep, errs)
			}
			if tc.regress == "" && (len(rep.Regressed)+len(rep.Improved) != 0 || rep.Summary.Delta.RecallAtN != 0) {
				t.Errorf("identical sides expected: %+v", rep)
			}
			if tc.regress != "" && !contains(rep.Regressed, tc.regress) {
				t.Errorf("%s did not regress: %+v", tc.regress, rep)
			}
			if !strings.Contains(strings.Join(rep.Notes, "\n"), "base side: the tree of commit "+f.base[:12]+" (git worktree)") {
				t.Errorf("notes %q", rep.Notes)
			}
			if b, h := rep.Fingerprints["base_retriever"], rep.Fingerprints["head_retriever"]; b == "" || (b != h) != tc.retriever {
				t.Errorf("retriever fingerprints base %s head %s: want them to differ %v", b, h, tc.retriever)
			}
			if tc.note != "" && !strings.Contains(strings.Join(rep.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", rep.Notes, tc.note)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("the base tree was left in %s: %v", tmp, left)
			}
			if wt := f.git("worktree", "list"); strings.Count(wt, "\n") != 0 {
				t.Errorf("git still lists a worktree:\n%s", wt)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestBaseRefCacheUsesTheCommit: a second run against the same base commit
// reuses the base side's run from cache_dir.
func TestBaseRefCacheUsesTheCommit(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f := newFixture(t, commandConfig+"")
	f.edit("rag/recallgate.toml", "[depth]", "cache_dir = \"../.rgcache\"\n[depth]")
	f.commit("cache")
	f.base = f.git("rev-parse", "HEAD")
	f.edit("rag/retriever.py", "MAX_WORDS = 400", "MAX_WORDS = 3")
	f.commit("head")
	if code, _, errs := f.gate(t.TempDir()); code != 1 || strings.Contains(errs, "reused the cached run") {
		t.Fatalf("first run: exit %d\n%s", code, errs)
	}
	code, _, errs := f.gate(t.TempDir())
	if code != 1 || !strings.Contains(errs, "base: reused the cached run") {
		t.Errorf("second run must reuse the base side: exit %d\n%q", code, errs)
	}
}

func TestBaseRefUnreachable(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.base = strings.Repeat("0123456789", 4)
	code, _, errs := f.gate(t.TempDir())
	if code != 3 || !strings.Contains(errs, "fetch-depth: 0") || !strings.Contains(errs, "is not reachable") {
		t.Errorf("exit %d\n%s", code, errs)
	}
}

// TestBaseRefInterruptRemovesTheTree: an interrupt during retrieval still
// removes the base tree and git's record of the worktree.
func TestBaseRefInterruptRemovesTheTree(t *testing.T) {
	srv := hangingSearch(t)
	f := newFixture(t, fmt.Sprintf("set = \"queries.jsonl\"\n[retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\n", srv.URL))
	f.put("README.md", "# our RAG service, changed\n")
	f.commit("a change") // the base is not HEAD
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	// --allow-identical: one service for both sides is the point here.
	code := run(ctx, []string{"gate", "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", f.base, "--allow-identical"},
		func(k string) string { return map[string]string{"RUNNER_TEMP": tmp}[k] }, &out, &errb)
	if code != 3 {
		t.Errorf("exit %d\n%s", code, errb.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the base tree was left behind: %v", left)
	}
	if wt := f.git("worktree", "list"); strings.Count(wt, "\n") != 0 {
		t.Errorf("git still lists a worktree:\n%s", wt)
	}
}

// TestRetrieveBaseRef: the base side alone (a shard of it, as a matrix job
// would) runs in the base commit's tree, and the merged shards compare
// like gate --base-ref.
func TestRetrieveBaseRef(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
	f.commit("head: edit one document")
	dir := t.TempDir()
	cfg := filepath.Join(f.dir, "rag/recallgate.toml")
	var shards []string
	for i := 1; i <= 2; i++ {
		out := filepath.Join(dir, fmt.Sprintf("base-%d.jsonl", i))
		if code, _, errs := rg(t, "retrieve", "--config", cfg, "--side", "base", "--base-ref", f.base, "--shard", fmt.Sprintf("%d/2", i), "--out", out); code != 0 {
			t.Fatalf("shard %d: exit %d %s", i, code, errs)
		}
		shards = append(shards, out)
	}
	base := filepath.Join(dir, "base.jsonl")
	if code, _, errs := rg(t, append([]string{"merge", "--set", filepath.Join(f.dir, "rag/queries.jsonl"), "--out", base}, shards...)...); code != 0 {
		t.Fatalf("merge: %s", errs)
	}
	head := filepath.Join(dir, "head.jsonl")
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--out", head); code != 0 {
		t.Fatalf("head: %s", errs)
	}
	code, out, errs := rg(t, "compare", "--config", cfg, "--base", base, "--head", head, "--format", "json")
	var rep compareJSON
	json.Unmarshal([]byte(out), &rep)
	if code != 1 || !contains(rep.Regressed, "q26") {
		t.Errorf("compare: exit %d regressed %v %s", code, rep.Regressed, errs)
	}
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--base-ref", f.base, "--out", head); code != 2 || !strings.Contains(errs, "--side base") {
		t.Errorf("--base-ref on the head side: exit %d %s", code, errs)
	}
}

// TestBaseWithoutConfigSaysSo: when recallgate is new in the change, the
// base side runs the head's config in the base tree, and the report's note
// says so rather than claiming the base's own config.
func TestBaseWithoutConfigSaysSo(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.git("rm", "-q", "rag/recallgate.toml")
	base := f.commit("before recallgate")
	f.put("rag/recallgate.toml", builtinConfig)
	f.commit("add recallgate")
	f.base = base
	code, rep, errs := f.gate(t.TempDir())
	if code > 1 || !strings.Contains(errs, "does not exist at the base commit") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "but the head's config: recallgate.toml does not exist at that commit") || strings.Contains(rep.Notes[0], "with its own config") {
		t.Errorf("notes %q", rep.Notes)
	}
}

// TestBaseRefHeadRefused: `gate --base-ref HEAD` (or main, run on main)
// compares a commit with itself and cannot fail: exit 2 naming the fix;
// --allow-identical runs it with a warning.
func TestBaseRefHeadRefused(t *testing.T) {
	f := newFixture(t, builtinConfig)
	cfg := filepath.Join(f.dir, "rag/recallgate.toml")
	for _, ref := range []string{"HEAD", "main", f.base} {
		code, _, errs := rg(t, "gate", "--config", cfg, "--base-ref", ref)
		if code != 2 || !strings.Contains(errs, "is the checkout's own HEAD") || !strings.Contains(errs, "--allow-identical") {
			t.Errorf("--base-ref %s: exit %d, want 2 naming --allow-identical:\n%s", ref, code, errs)
		}
	}
	code, _, errs := rg(t, "gate", "--config", cfg, "--base-ref", "HEAD", "--allow-identical")
	if code != 0 || !strings.Contains(errs, "cannot fail (allowed)") {
		t.Errorf("--allow-identical: exit %d\n%s", code, errs)
	}
}

// TestBaseRefReadsHeadOnce: a `--base-ref` gate reads its checkout's HEAD
// once and the top of each folder it asks about once (the config's
// checkout, and the working folder's when it differs), however many of
// its steps (the base tree, the identical-commit check, the commits the
// report records) ask.
func TestBaseRefReadsHeadOnce(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
	f.commit("head")
	ctx := gitexec.Remember(context.Background())
	args := []string{"gate", "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", f.base, "--format", "json"}
	var out, errb bytes.Buffer
	env := map[string]string{"RUNNER_TEMP": t.TempDir()}
	if code := run(ctx, args, func(k string) string { return env[k] }, &out, &errb); code > 1 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	got := gitexec.Counted(ctx)
	if got.Head != 1 || got.TopLevel < 1 || got.TopLevel > 2 {
		t.Errorf("git read HEAD %d times and a top %d times; want HEAD once, each folder's top once (at most 2)", got.Head, got.TopLevel)
	}
}
