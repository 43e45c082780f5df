package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/fusion"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// TestWinnerIdenticalCandidates: two identical candidates on top cannot
// be told apart (every delta 0, p = 1): "no clear winner", naming the
// twin; with one of them gone the top beats the rest on 8 queries of 8
// (p = 2/2^8, Holm over 2: 0.0156) and is a clear winner.
func TestWinnerIdenticalCandidates(t *testing.T) {
	ids := []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"}
	base, worse, best := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for i, id := range ids {
		base[id], worse[id], best[id] = 0.2, 0.1, 0.5+float64(i)/100
	}
	w := chooseWinner([]string{"base", "a", "twin", "c"}, []map[string]float64{base, best, best, worse}, ids, "ndcg")
	if w.Name != "a" || w.Clear || strings.Join(w.Inseparable(), ",") != "twin" {
		t.Fatalf("winner %+v, want a, not clear, inseparable from twin", w)
	}
	if s := w.Sentence(func(s string) string { return s }, "nDCG@3"); !strings.HasPrefix(s, "no clear winner: the top row on nDCG@3, a, cannot be told apart from twin") {
		t.Errorf("sentence %q", s)
	}
	w = chooseWinner([]string{"base", "a", "c"}, []map[string]float64{base, best, worse}, ids, "ndcg")
	if !w.Clear || w.Against[0].P != 2.0/256 || w.Against[0].PHolm != 2*2.0/256 {
		t.Errorf("winner %+v, want a clear, p 2/2^8, Holm 2·p", w)
	}
}

// TestRunFusions: fusion rows made from the runs the experiment retrieved:
// rrf of the baseline with itself (a copy of the baseline) ranks exactly as
// the baseline; a swept wsum reports its cross-validated and in-sample
// scores and a pasteable table that parses back; the identical "same"
// variant keeps the winner unclear; the JSON reads back strictly.
func TestRunFusions(t *testing.T) {
	cfg, set := demoConfig(t, `[variant.same.retriever]
type = "builtin"
corpus = CORPUS
title_boost = 2.0
[variant.plain.retriever]
type = "builtin"
corpus = CORPUS
[fusion.self]
of = ["baseline", "same"]
method = "rrf"
[fusion.mix]
of = ["baseline", "plain"]
method = "wsum"
weights = "grid:0.25"
`)
	r, err := Run(context.Background(), quietEnv(), Options{Config: cfg, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Variants) != 4 || r.Variants[2].Name != "self" || r.Variants[3].Name != "mix" {
		t.Fatalf("rows %d, want same, plain, self, mix", len(r.Variants))
	}
	self, mix := r.Variants[2], r.Variants[3]
	if self.Delta.RecallAtN != 0 || self.Delta.NDCGAtK != 0 || len(self.Regressed)+len(self.Improved) != 0 {
		t.Errorf("rrf of the baseline with itself moved: Δ %+v, flips %v %v", self.Delta, self.Regressed, self.Improved)
	}
	f := mix.Fusion
	if f == nil || f.Settings != 5 || f.Method != "wsum" || f.Norm != "minmax" || len(f.Oracle) == 0 {
		t.Fatalf("mix's fusion: %+v", f)
	}
	if d := f.InSample.NDCG - f.CV.NDCG - f.Optimism.NDCG; d > 1e-12 || d < -1e-12 {
		t.Errorf("optimism %v is not in-sample %v − cv %v", f.Optimism.NDCG, f.InSample.NDCG, f.CV.NDCG)
	}
	if r.Winner.Clear {
		t.Errorf("winner %+v: the baseline and its copy cannot be told apart", r.Winner)
	}
	var b bytes.Buffer
	if err := Write(&b, r, report.JSON); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(&b, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Variants[3].Fusion.Table != f.Table || back.Winner.Name != r.Winner.Name {
		t.Error("the fusion or the winner did not read back")
	}
	// The pasted table parses as the chosen setting, not swept.
	pasted := strings.Replace(f.Table, `[fusion."mix"]`, `[fusion.chosen]`, 1)
	cfg2, _ := demoConfig(t, "[variant.same.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\n[variant.plain.retriever]\ntype = \"builtin\"\ncorpus = CORPUS\n"+pasted)
	if c := cfg2.Fusion("chosen"); c == nil || c.Swept() || c.Settings()[0].String() != f.Chosen {
		t.Errorf("pasted table %q parsed as %+v, want the chosen %s", f.Table, c, f.Chosen)
	}
	for _, format := range []report.Format{report.Text, report.Markdown, report.HTML} {
		var out bytes.Buffer
		if err := Write(&out, r, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "cross-validated") || !strings.Contains(out.String(), "no clear winner") {
			t.Errorf("%s: no cross-validated score or winner line", format)
		}
	}
}

// TestHostileFusionInert: a fusion row whose name and input carry every
// hostile form reaches no format live: its lines, its pasteable table (a
// fenced block in Markdown, a <pre> in HTML) and its oracle chart.
func TestHostileFusionInert(t *testing.T) {
	r := demoReport(t)
	v := &r.Variants[2] // named hostileName
	s := fusion.Setting{Method: fusion.WSum, Norm: fusion.MinMax, Weights: []float64{0.3, 0.7}}
	v.Fusion = &FusionInfo{Of: []string{"baseline", hostileName}, Method: s.Method, Norm: s.Norm, Target: fusion.TargetNDCG, Settings: 11, Chosen: s.String(),
		Table: s.Table(hostileName, []string{"baseline", hostileName}), Oracle: []fusion.QueryOracle{{Query: "q01", Best: "w=1/0", Value: 1, Chosen: 0.5}}}
	var j bytes.Buffer
	if err := Write(&j, r, report.JSON); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReport(&j, "r.json"); err != nil {
		t.Fatalf("the hostile fusion row does not read back: %v", err)
	}
	for f, raws := range map[report.Format][]string{report.Text: {"\u202e"}, report.HTML: {"<img", "\u202e"}, report.Markdown: {"\u202e"}} {
		var b bytes.Buffer
		if err := Write(&b, r, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "w=0.3/0.7") {
			t.Errorf("%s: no fusion section", f)
		}
		if f == report.Markdown {
			t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, out, hostileName) })
		}
		for _, raw := range raws {
			if strings.Contains(out, raw) {
				t.Errorf("%s holds %q raw", f, raw)
			}
		}
	}
	// A table forged to open a fence, or a line no [fusion] table holds,
	// is refused on reading.
	for _, forged := range []string{"```\n<img src=x>\n", "[fusion.\"a\"]\nof = [\"a\", \"b\"]\nscript = 1\n"} {
		v.Fusion.Table = forged
		var b bytes.Buffer
		if err := Write(&b, r, report.JSON); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadReport(&b, "r.json"); err == nil || !strings.Contains(err.Error(), "is not a [fusion] table's") {
			t.Errorf("table %q read back: %v", forged, err)
		}
	}
}
