package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestCIRunFilesHonourQueries: the CI job comparing two run files loads a
// qrels set with the config's `queries` texts, as the gate does (it
// loaded the qrels bare: every query "" in the report), and refuses the
// qrels set without them.
func TestCIRunFilesHonourQueries(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.qrels", "q1 0 a 1\nq2 0 b 1\n")
	put(t, dir, "queries.jsonl", `{"id":"q1","text":"first text"}`+"\n"+`{"id":"q2","text":"second text"}`+"\n")
	base, head := put(t, dir, "base.jsonl", goodRun), put(t, dir, "head.jsonl", lossRun)
	cfg := put(t, dir, "rg.toml", "set = \"set.qrels\"\nqueries = \"queries.jsonl\"\n")
	var stderr bytes.Buffer
	cmp, set, err := CI(context.Background(), testEnv(&stderr), CIOptions{Config: cfg, Workspace: dir, BaseResults: base, HeadResults: head})
	if err != nil {
		t.Fatal(err)
	}
	if q := set.Query("q2"); q == nil || q.Text != "second text" || cmp.Set.Query("q1").Text != "first text" {
		t.Errorf("query texts not loaded: %q", set.Query("q2").Text)
	}
	bare := put(t, dir, "bare.toml", "set = \"set.qrels\"\n")
	if _, _, err := CI(context.Background(), testEnv(&stderr), CIOptions{Config: bare, Workspace: dir, BaseResults: base, HeadResults: head}); err == nil {
		t.Error("a qrels set without queries was compared")
	}
}

// TestJSONLBeside: a qrels set given to label becomes the JSONL set beside
// it, named on stderr; a JSONL set is left as it is; without `queries`,
// or with the JSONL file there already, it refuses, naming what to run.
func TestJSONLBeside(t *testing.T) {
	dir := t.TempDir()
	qrels := put(t, dir, "set.qrels", "q1 0 a 1\nq2 0 b 2\n")
	put(t, dir, "queries.jsonl", `{"id":"q1","text":"first text"}`+"\n"+`{"id":"q2","text":"second text"}`+"\n")
	cfg, err := config.Load(put(t, dir, "rg.toml", "set = \"set.qrels\"\nqueries = \"queries.jsonl\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	got, err := jsonlBeside(testEnv(&stderr), cfg, qrels)
	want := filepath.Join(dir, "set.jsonl")
	if err != nil || got != want || !strings.Contains(stderr.String(), "wrote the JSONL set "+want) {
		t.Fatalf("got %q %v; stderr %s", got, err, stderr.String())
	}
	set, err := setfile.LoadDraft(want)
	if err != nil || set.Format != "jsonl" || set.Query("q2").Text != "second text" || set.Query("q2").Gold["b"] != 2 {
		t.Fatalf("the JSONL set: %v %+v", err, set)
	}
	if again, err := jsonlBeside(testEnv(&stderr), cfg, want); err != nil || again != want {
		t.Errorf("a JSONL set: %q %v", again, err)
	}
	if _, err := jsonlBeside(testEnv(&stderr), cfg, qrels); err == nil || !strings.Contains(err.Error(), "is there already") {
		t.Errorf("over an existing JSONL set: %v", err)
	}
	cfg.Queries = ""
	os.Remove(want)
	if _, err := jsonlBeside(testEnv(&stderr), cfg, qrels); err == nil || !strings.Contains(err.Error(), "--export jsonl > "+want) {
		t.Errorf("without queries: %v", err)
	}
}

// TestCIRefusesWhatGateRefuses: the CI job's own gate path checks the
// segment rules against the set before anything is retrieved, as `gate`
// (LoadConfigSet) does: a rule naming no segment of the set is the config
// error naming its file, line and key, never a retrieval first (the head's
// run file here cannot be read as a run, so retrieving it would fail with
// a retriever error instead).
func TestCIRefusesWhatGateRefuses(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "base.jsonl", goodRun)
	put(t, dir, "head.jsonl", "this is not a run\n")
	toml := "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n[[gate.segment]]\nname = \"no-such-segment\"\nmax_recall_drop = 0.1\n"
	cfg := put(t, dir, "rg.toml", toml)
	_, _, gateErr := LoadConfigSet(cfg, "")
	var stderr bytes.Buffer
	_, _, err := CI(context.Background(), testEnv(&stderr), CIOptions{Config: cfg, Workspace: dir})
	var ie *gate.InputError
	if !errors.As(err, &ie) || ie.Field != "gate.segment[0].name" || ie.Line != 9 {
		t.Fatalf("CI: %v (want the segment rule's config error)", err)
	}
	if gateErr == nil || err.Error() != gateErr.Error() {
		t.Errorf("CI refused with %q, gate with %v", err, gateErr)
	}
	var se *gate.StageError
	if !errors.As(err, &se) || se.Stage != gate.StageConfig {
		t.Errorf("stage: %v", err)
	}
	// The run-files path refuses the same before scoring.
	_, _, err = CI(context.Background(), testEnv(&stderr), CIOptions{Config: cfg, Workspace: dir, BaseResults: filepath.Join(dir, "base.jsonl"), HeadResults: filepath.Join(dir, "head.jsonl")})
	if !errors.As(err, &ie) || ie.Field != "gate.segment[0].name" {
		t.Errorf("CI with run files: %v", err)
	}
}

// TestCIDriftChecksTheConfigFirst: the nightly drift path runs the gate's
// checks before it retrieves, as the pre-merge path does: a waiver for a
// query the set does not have is the config error, never a retrieval
// first (the head's run file cannot be read as a run).
func TestCIDriftChecksTheConfigFirst(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "baseline.jsonl", goodRun)
	put(t, dir, "head.jsonl", "this is not a run\n")
	cfg := put(t, dir, "rg.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n[[waiver]]\nquery = \"q99\"\nreason = \"gone\"\nexpires = \"2099-01-01\"\n")
	var stderr bytes.Buffer
	_, _, err := CI(context.Background(), testEnv(&stderr), CIOptions{Config: cfg, Workspace: dir, Drift: true, Baseline: filepath.Join(dir, "baseline.jsonl")})
	var ie *gate.InputError
	if !errors.As(err, &ie) || ie.Field != "waiver" || !strings.Contains(err.Error(), `"q99"`) {
		t.Fatalf("drift: %v (want the waiver's config error)", err)
	}
}

// TestCIRunFilesBasePolicyWithoutRetriever: run files on a change with a
// base commit are judged by that commit's config, which needs no
// retriever table when nothing is retrieved: the change's max_new_misses
// 5 is not the policy, the base's 0 is.
func TestCIRunFilesBasePolicyWithoutRetriever(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	put(t, dir, "set.jsonl", `{"id":"q1","query":"first","gold":{"a":1}}`+"\n"+`{"id":"q2","query":"second","gold":{"b":1}}`+"\n")
	loose := "max_recall_drop = 1.0\nmax_ndcg_drop = 1.0\nmax_precision_drop = 1.0\nmax_below_increase = 100\n"
	cfg := put(t, dir, "rg.toml", "set = \"set.jsonl\"\n[gate]\nmax_new_misses = 0\n"+loose)
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "strict")
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	put(t, dir, "rg.toml", "set = \"set.jsonl\"\n[gate]\nmax_new_misses = 5\n"+loose) // by it the runs pass
	base, head := put(t, dir, "base.jsonl", goodRun), put(t, dir, "head.jsonl", lossRun)
	var stderr bytes.Buffer
	cmp, _, err := CI(context.Background(), testEnv(&stderr), CIOptions{Config: cfg, Workspace: dir, TempDir: t.TempDir(),
		BaseResults: base, HeadResults: head, BaseSHA: strings.TrimSpace(string(out))})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if cmp.Verdict != gate.Fail || cmp.Thresholds.MaxNewMisses != 0 || cmp.Policy == nil || cmp.Policy.Source != gate.PolicyBaseCommit {
		t.Errorf("verdict %s, max_new_misses %d, policy %+v: want fail by the base's 0", cmp.Verdict, cmp.Thresholds.MaxNewMisses, cmp.Policy)
	}
}

// TestDepthWarning: candidates N warn from half the corpus up (recall@N
// then hides drops), never below it nor without a corpus.
func TestDepthWarning(t *testing.T) {
	for _, tt := range []struct {
		n, docs int
		warn    bool
	}{
		{50, 120, false}, // 41.7%
		{60, 120, true},  // exactly half
		{50, 100, true},
		{5, 62, false}, // the demo
		{50, 2, true},  // init's starter
		{50, 0, false}, // no corpus known
	} {
		w := DepthWarning(gate.Depth{Candidates: tt.n, Context: 5}, tt.docs)
		if (w != "") != tt.warn {
			t.Errorf("N=%d over %d documents: %q, want a warning %v", tt.n, tt.docs, w, tt.warn)
		}
		if tt.warn && !strings.Contains(w, fmt.Sprintf("candidates = %d is half or more of the corpus's %d document", tt.n, tt.docs)) {
			t.Errorf("N=%d over %d: %q", tt.n, tt.docs, w)
		}
	}
}
