package bound

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// compare pairs a base that finds each of ten queries' one gold document
// at rank 1 with a head that loses it on the first lost queries (an
// unrelated document in its place), under a margin.
func compare(t *testing.T, lost int, margin float64, proof bool) *gate.Comparison {
	t.Helper()
	var set strings.Builder
	var base, head []gate.Result
	for i := 0; i < 10; i++ {
		id, doc := fmt.Sprintf("q%d", i), fmt.Sprintf("d%d", i)
		fmt.Fprintf(&set, `{"id":%q,"query":"x","gold":{%q:1}}`+"\n", id, doc)
		base = append(base, gate.Result{ID: id, Hits: []gate.Hit{{Doc: doc}}})
		h := gate.Result{ID: id, Hits: []gate.Hit{{Doc: doc}}}
		if i < lost {
			h.Hits = []gate.Hit{{Doc: "other"}}
		}
		head = append(head, h)
	}
	s, err := setfile.Parse(strings.NewReader(set.String()), "s")
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Depth{Candidates: 1, Context: 1}
	bc, _ := gate.ScoreResults(s, base, d)
	hc, _ := gate.ScoreResults(s, head, d)
	th := gate.DefaultThresholds()
	th.MaxRecallDrop, th.MaxNewMisses = 1, 10
	one := 1.0
	th.MaxNDCGDrop, th.MaxPrecisionDrop = &one, &one
	th.Margin, th.RequireProof = &margin, proof
	c, err := gate.CompareWith(bc, hc, gate.Policy{Thresholds: th, Rules: Rules})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMarginRule: every query losing its document (each delta −1) leaves
// no doubt: the bound is the drop itself, 1; a head that changes nothing
// has bound 0 and passes. Between, the margin decides: within it a pass,
// beyond it inconclusive, a fail with require_proof; each rule names the
// metric and the bound.
func TestMarginRule(t *testing.T) {
	for _, tc := range []struct {
		lost    int
		margin  float64
		proof   bool
		verdict gate.Verdict
		bound   float64
		why     string
	}{
		{0, 0.02, false, gate.Pass, 0, ""},
		{0, 0.02, true, gate.Pass, 0, ""},
		{10, 0.02, false, gate.Inconclusive, 1, "recall@1: this set cannot rule out a drop of up to 1.000 (margin 0.020): add queries or accept the risk"},
		{10, 0.02, true, gate.Fail, 1, "recall@1: this set cannot rule out a drop of up to 1.000 (margin 0.020, require_proof): add queries, or a change that moves less"},
		{10, 0.999, false, gate.Inconclusive, 1, "recall@1: this set cannot rule out a drop of up to 1.000 (margin 0.999): add queries or accept the risk"},
		// One of ten lost: a resample draws it 4 times or more with
		// probability 1.3%, 3 times or more 7%: the 5th percentile of the
		// mean is −3/10, so the bound is 0.3, within 0.5.
		{1, 0.5, true, gate.Pass, 0.3, ""},
		{1, 0.2, true, gate.Fail, 0.3, "recall@1: this set cannot rule out a drop of up to 0.300 (margin 0.200, require_proof): add queries, or a change that moves less"},
	} {
		c := compare(t, tc.lost, tc.margin, tc.proof)
		bs := Of(c)
		if len(bs) != 3 || bs[0].Label != "recall@1" || bs[1].Label != "nDCG@1" || bs[2].Label != "precision@1" {
			t.Fatalf("bounds %+v, want recall@1, nDCG@1, precision@1", bs)
		}
		if math.Abs(bs[0].Drop-tc.bound) > 1e-12 || bs[0].Sentence() != fmt.Sprintf("recall@1: this set rules out a drop larger than %.3f", tc.bound) {
			t.Errorf("lost %d: bound %v (%q), want %v", tc.lost, bs[0].Drop, bs[0].Sentence(), tc.bound)
		}
		if c.Verdict != tc.verdict {
			t.Errorf("lost %d margin %v proof %v: verdict %s, want %s (%q)", tc.lost, tc.margin, tc.proof, c.Verdict, tc.verdict, c.Reasons)
		}
		if tc.why != "" && (len(c.Reasons) == 0 || c.Reasons[0] != tc.why) {
			t.Errorf("reasons %q, want %q first", c.Reasons, tc.why)
		}
	}
}
