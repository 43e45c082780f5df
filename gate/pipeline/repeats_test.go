package pipeline

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// res is one run over testSet: q1 answers d1, q2 answers d2.
func res(d1, d2 string) []gate.Result {
	return []gate.Result{{ID: "q1", Hits: []gate.Hit{{Doc: d1}}}, {ID: "q2", Hits: []gate.Hit{{Doc: d2}}}}
}

// TestRepeatsJudgeTheHeadAtItsWorst: only the base's repeats excuse a
// query (the noise floor); the head's are judged at their worst. Hand
// computed on two queries of one gold document each.
func TestRepeatsJudgeTheHeadAtItsWorst(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "x.jsonl", goodRun)
	cfg, set := load(t, put(t, dir, "rg.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"x.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"x.jsonl\"\n"))
	for _, c := range []struct {
		name       string
		base, head [][]gate.Result
		verdict    gate.Verdict
		// unstable, headUnstable and newMisses are comma-joined ids.
		unstable, headUnstable, newMisses string
		floor, headRecall                 float64
	}{
		// A cold head: wrong on the first repeat, right on the second.
		{"cold head", [][]gate.Result{res("a", "b"), res("a", "b")}, [][]gate.Result{res("x", "x"), res("a", "b")}, gate.Fail, "", "q1,q2", "q1,q2", 0, 0},
		// A head flaky on q2 only, right on its first repeat: judged at
		// the second, a new miss.
		{"flaky q2", [][]gate.Result{res("a", "b"), res("a", "b")}, [][]gate.Result{res("a", "b"), res("a", "x")}, gate.Fail, "", "q2", "q2", 0, 0.5},
		// The base is noisy on q2 (found, then not): excused, and not a
		// new miss since a base repeat found nothing too. Floor 0.5.
		{"noisy base", [][]gate.Result{res("a", "b"), res("a", "x")}, [][]gate.Result{res("a", "x"), res("a", "x")}, gate.Pass, "q2", "", "", 0.5, 0.5},
		// A head that changes a document nobody judged: no rule breaks,
		// but it cannot pass.
		{"flaky filler", [][]gate.Result{res("a", "b"), res("a", "b")}, [][]gate.Result{res("a", "b"), {{ID: "q1", Hits: []gate.Hit{{Doc: "a"}, {Doc: "y"}}}, {ID: "q2", Hits: []gate.Hit{{Doc: "b"}}}}}, gate.Inconclusive, "", "q1", "", 0, 1},
	} {
		runs := map[string]SideRun{"base": {Results: c.base}, "head": {Results: c.head}}
		var stderr bytes.Buffer
		cmp, err := CompareRuns(testEnv(&stderr), set, cfg, cfg.Thresholds, c.base[0], runs, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := []string{strings.Join(cmp.Unstable, ","), strings.Join(cmp.HeadUnstable, ","), strings.Join(cmp.NewMisses, ",")}
		if cmp.Verdict != c.verdict || got[0] != c.unstable || got[1] != c.headUnstable || got[2] != c.newMisses || cmp.NoiseFloor != c.floor || cmp.Head.Recall != c.headRecall {
			t.Errorf("%s: verdict %s, unstable/head unstable/new misses %q, floor %v, head recall %v; reasons %q", c.name, cmp.Verdict, got, cmp.NoiseFloor, cmp.Head.Recall, cmp.Reasons)
		}
	}
}

// TestPairingScoresTheBaseOnce: one Pairing (the base scored once, the
// corpus read once) judges each head against the base's repeats as
// CompareRuns does (the base noisy on q2: q2 excused, floor 0.5), hand
// computed, and each comparison keeps its own head's fingerprints however
// many heads it pairs after.
func TestPairingScoresTheBaseOnce(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "x.jsonl", goodRun)
	cfg, set := load(t, put(t, dir, "rg.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"x.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"x.jsonl\"\n"))
	base := SideRun{Results: [][]gate.Result{res("a", "b"), res("a", "x")}, Config: "sha256:base"}
	var stderr bytes.Buffer
	p, err := NewPairing(testEnv(&stderr), set, cfg.Depth, base)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		head                    [][]gate.Result
		verdict                 gate.Verdict
		headUnstable, newMisses string
		headRecall              float64
	}{
		{[][]gate.Result{res("a", "x"), res("a", "x")}, gate.Pass, "", "", 0.5},
		{[][]gate.Result{res("x", "x"), res("a", "b")}, gate.Fail, "q1", "q1", 0}, // q2 changes too, excused by the base
		{[][]gate.Result{res("a", "b")}, gate.Pass, "", "", 1},
	}
	var cmps []*gate.Comparison
	for i, c := range cases {
		cmp, err := p.Compare(cfg, cfg.Thresholds, SideRun{Results: c.head, Config: fmt.Sprintf("sha256:head%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		cmps = append(cmps, cmp)
		got := []string{strings.Join(cmp.Unstable, ","), strings.Join(cmp.HeadUnstable, ","), strings.Join(cmp.NewMisses, ",")}
		if cmp.Verdict != c.verdict || got[0] != "q2" || got[1] != c.headUnstable || got[2] != c.newMisses || cmp.NoiseFloor != 0.5 || cmp.Head.Recall != c.headRecall {
			t.Errorf("head %d: verdict %s, unstable/head unstable/new misses %q, floor %v, head recall %v; reasons %q", i, cmp.Verdict, got, cmp.NoiseFloor, cmp.Head.Recall, cmp.Reasons)
		}
	}
	for i, cmp := range cmps {
		if got := Fingerprint(cmp.Fingerprints, "head_retriever"); got != fmt.Sprintf("sha256:head%d", i) || Fingerprint(cmp.Fingerprints, "base_retriever") != "sha256:base" {
			t.Errorf("head %d: fingerprints %q", i, cmp.Fingerprints)
		}
	}
}
