package pipeline

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
)

// TestCompareFilesBaselineRule: two run files compared under a config
// with the erosion rule (no base commit: the given config's baseline).
// The head keeps q1 and loses q2 (0.5 from its base, within 0.6); the
// baseline holds q1 and q2 at 1.000, not q3: over those two the head is
// 0.5 below, beyond 0.1, and q3 is named as left out. A broken baseline
// is an input error naming its file and line.
func TestCompareFilesBaselineRule(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet+`{"id":"q3","query":"third","gold":{"c":1}}`+"\n")
	base := put(t, dir, "base.jsonl", goodRun+`{"id":"q3","hits":[{"doc":"c"}]}`+"\n")
	head := put(t, dir, "head.jsonl", lossRun+`{"id":"q3","hits":[{"doc":"c"}]}`+"\n")
	put(t, dir, "baseline.jsonl", `{"recallgate":{"set":""}}`+"\n"+goodRun)
	cfgPath := put(t, dir, "recallgate.toml", "set = \"set.jsonl\"\nbaseline = \"baseline.jsonl\"\n[gate]\nmax_recall_drop = 0.6\nmax_new_misses = 5\nmax_ndcg_drop = 1\nmax_precision_drop = 1\nmax_baseline_drop = 0.1\n")
	cfg, set := load(t, cfgPath)
	var stderr bytes.Buffer
	cmp, err := CompareFiles(testEnv(&stderr), cfg, set, cfg.Depth, cfg.Thresholds, "", base, head)
	if err != nil {
		t.Fatal(err)
	}
	d := cmp.BaselineDistance
	if cmp.Verdict != gate.Fail || d == nil || d.Queries != 2 || d.Baseline != 1 || d.Head != 0.5 || d.Drop != 0.5 || strings.Join(d.Missing, ",") != "q3" || d.Name != filepath.Join(dir, "baseline.jsonl") {
		t.Errorf("verdict %s reasons %q distance %+v", cmp.Verdict, cmp.Reasons, d)
	}
	put(t, dir, "baseline.jsonl", goodRun+"{\"id\":\"q3\",\"hits\":[}\n")
	_, err = CompareFiles(testEnv(&stderr), cfg, set, cfg.Depth, cfg.Thresholds, "", base, head)
	var ie *gate.InputError
	if !errors.As(err, &ie) || ie.File != filepath.Join(dir, "baseline.jsonl") || ie.Line != 3 {
		t.Errorf("a broken baseline: %v (%+v)", err, ie)
	}
	// In a CI job the given config's baseline stays in the workspace.
	ws := t.TempDir()
	if err := InsideWorkspace(ws, &config.Config{Path: filepath.Join(ws, "recallgate.toml"), Baseline: filepath.Join(dir, "baseline.jsonl")}); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("a baseline outside the workspace: %v", err)
	}
}

// TestDriftLeavesTheErosionRuleOut: the nightly drift run reads the same
// config as the pull requests; it is measured against its baseline itself,
// so max_baseline_drop is not applied and no reason or note mentions it.
func TestDriftLeavesTheErosionRuleOut(t *testing.T) {
	f := newDriftFixture(t)
	f.edit(t, "recallgate.toml", `set = "set.jsonl"`, "set = \"set.jsonl\"\nbaseline = \"baseline.jsonl\"\n[gate]\nmax_baseline_drop = 0.1")
	cmp, err := f.drift(t, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cmp.Rules {
		if r.Name == gate.RuleBaselineDrop {
			t.Errorf("a drift run applied %+v", r)
		}
	}
	if all := strings.Join(append(cmp.Reasons, cmp.Notes...), "\n"); strings.Contains(all, gate.RuleBaselineDrop) || cmp.BaselineDistance != nil {
		t.Errorf("reasons and notes: %s", all)
	}
}
