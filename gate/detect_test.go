package gate

import (
	"math"
	"strings"
	"testing"
)

// TestMinSameDirectionFlips: with k queries all moving one way and the rest
// tied, the exact sign-flip p is 2/2^k: 5 → 0.0625, 6 → 0.03125.
func TestMinSameDirectionFlips(t *testing.T) {
	for _, tt := range []struct {
		n    int
		k    int
		okay bool
	}{
		{0, 0, false},
		{5, 0, false}, // all five down: p = 2/32 = 0.0625 ≥ 0.05, never significant
		{6, 6, true},  // all six down: p = 2/64 = 0.03125
		{30, 6, true}, // six down, 24 tied: p = 0.03125; five down: 0.0625
	} {
		k, ok := MinSameDirectionFlips(tt.n)
		if k != tt.k || ok != tt.okay {
			t.Errorf("n = %d: %d %v, want %d %v", tt.n, k, ok, tt.k, tt.okay)
		}
	}
	// The count is what Paired says: five of 30 down is not significant, six is.
	for _, down := range []int{5, 6} {
		d := make([]float64, 30)
		for i := 0; i < down; i++ {
			d[i] = -0.5
		}
		if got := Paired(d).Significant(); got != (down == 6) {
			t.Errorf("%d of 30 down: significant %v", down, got)
		}
	}
}

func TestMinDetectableDrop(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []float64
		n     int
		want  float64
		okay  bool
	}{
		// k = 6: the six smallest steps 1/4, 1/3, 1/2, 1/2, 1, 1 over 7 queries.
		{"seven", []float64{1, 0.5, 0.25, 1.0 / 3, 1, 1, 0.5}, 7, (0.25 + 1.0/3 + 0.5 + 0.5 + 1 + 1) / 7, true},
		// 30 queries of three gold each: six lose one: 6 · (1/3) / 30.
		{"thirty", repeat(1.0/3, 30), 30, 6.0 / 3 / 30, true},
		// Only five of 30 queries can drop at all: never six.
		{"five can drop", repeat(1, 5), 30, 0, false},
		{"too small", repeat(1, 5), 5, 0, false},
	} {
		got, ok := MinDetectableDrop(tt.steps, tt.n)
		if ok != tt.okay || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %.6f %v, want %.6f %v", tt.name, got, ok, tt.want, tt.okay)
		}
	}
}

func repeat(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

func TestHolm(t *testing.T) {
	// Sorted 0.01, 0.03, 0.04 → 3·0.01 = 0.03, 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06.
	got := Holm([]float64{0.01, 0.04, 0.03})
	for i, want := range []float64{0.03, 0.06, 0.06} {
		if math.Abs(got[i]-want) > 1e-12 {
			t.Errorf("Holm[%d] = %v, want %v", i, got[i], want)
		}
	}
	if got := Holm([]float64{0.6, 0.7}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm caps at 1: %v", got)
	}
}

// TestHolmAcrossThreeRules: with significance required, the policy sets
// four rules of a tested kind (the whole set's recall, nDCG and precision
// drops and the keyword segment's recall drop): Holm's family is those
// four, breached or not. Six queries (q01–q06, the keyword segment) losing
// gA breach three, each p = 2/2^6 = 0.03125, significant alone; precision
// (within its limit) holds its place as p = 1. Holm multiplies the
// smallest by 4: 0.125, and the others by 3 and 2, kept non-decreasing:
// 0.125 all three, so none fails. A seventh brings the whole set's two
// tests to p = 2/2^7 = 0.015625: 4 · 0.015625 = 0.0625, still not under
// 0.05. An eighth: 2/2^8 = 0.0078125, 4 · that = 0.03125, then max(0.03125,
// 3 · 0.0078125) = 0.03125: the whole set's two fail; the segment (six
// queries, p = 0.03125) gets max(0.03125, 2 · 0.03125) = 0.0625 and stays
// inconclusive.
func TestHolmAcrossThreeRules(t *testing.T) {
	s := ruleSet(t, false)
	base := ruleCard(t, s, nil)
	lose := []string{"gB", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"}
	th := DefaultThresholds()
	th.RequireSignificance = true
	th.MaxPrecisionDrop = ptr(0.1) // eight lost: precision@5 drops 8 · 0.2 / 30 = 0.053, within it
	th.Segments = []SegmentRule{{Name: "keyword", Limits: Limits{MaxRecallDrop: ptr(0.05)}}}
	for _, tt := range []struct {
		lost    int
		p, adj  [3]float64
		outcome [3]string
		verdict Verdict
		inNote  string
	}{
		{6, [3]float64{0.03125, 0.03125, 0.03125}, [3]float64{0.125, 0.125, 0.125}, [3]string{RuleInconclusive, RuleInconclusive, RuleInconclusive}, Inconclusive,
			"the recall@10 drop is not significant after Holm's correction over the 4 rules significance is required of (sign-flip p = 0.031, adjusted p = 0.125 ≥ 0.05 over 30 queries)"},
		{7, [3]float64{0.015625, 0.015625, 0.03125}, [3]float64{0.0625, 0.0625, 0.0625}, [3]string{RuleInconclusive, RuleInconclusive, RuleInconclusive}, Inconclusive,
			"adjusted p = 0.062 ≥ 0.05 over 30 queries"},
		{8, [3]float64{0.0078125, 0.0078125, 0.03125}, [3]float64{0.03125, 0.03125, 0.0625}, [3]string{RuleFail, RuleFail, RuleInconclusive}, Fail,
			"segment keyword: the recall@10 drop is not significant after Holm's correction over the 4 rules significance is required of (sign-flip p = 0.031, adjusted p = 0.062 ≥ 0.05 over 6 queries)"},
	} {
		c, err := Compare(base, ruleCard(t, s, firstM(tt.lost, lose...)), th)
		if err != nil {
			t.Fatal(err)
		}
		if c.HolmFamily != 4 {
			t.Errorf("%d lost: Holm family %d, want the 4 tested rules the policy sets", tt.lost, c.HolmFamily)
		}
		tested := []RuleResult{rule(t, c, RuleRecallDrop, ""), rule(t, c, RuleNDCGDrop, ""), rule(t, c, RuleRecallDrop, "keyword")}
		for i, r := range tested {
			if r.PValue == nil || r.AdjustedP == nil || math.Abs(*r.PValue-tt.p[i]) > 1e-12 || math.Abs(*r.AdjustedP-tt.adj[i]) > 1e-12 || r.Outcome != tt.outcome[i] {
				t.Errorf("%d lost: %s %q: p %v adjusted %v outcome %s, want %v %v %s", tt.lost, r.Name, r.Segment, deref(r.PValue), deref(r.AdjustedP), r.Outcome, tt.p[i], tt.adj[i], tt.outcome[i])
			}
		}
		if r := rule(t, c, RulePrecisionDrop, ""); r.PValue != nil {
			t.Errorf("%d lost: precision within its limit was tested: %+v", tt.lost, r)
		}
		if c.Verdict != tt.verdict || !strings.Contains(strings.Join(c.Reasons, "\n"), tt.inNote) {
			t.Errorf("%d lost: verdict %s %q", tt.lost, c.Verdict, c.Reasons)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestDetectability: the comparison says what its set can see.
func TestDetectability(t *testing.T) {
	s := ruleSet(t, false)
	base := ruleCard(t, s, nil)
	c, err := Compare(base, base, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	// 30 queries with three gold each, all found: six lose one each.
	if d := c.Detect; d != (Detectability{Queries: 30, MinFlips: 6, FlipsKnown: true, MinRecallDrop: 6.0 / 3 / 30, DropKnown: true}) {
		t.Errorf("detect %+v", d)
	}
	// With significance required, the defaults' family is 3 (recall, nDCG,
	// precision): a rule fails only at p < 0.05/3 ≈ 0.0167, which 2/2^7 =
	// 0.0156 is the first to reach: seven queries, each losing one of three.
	th := DefaultThresholds()
	th.RequireSignificance = true
	if c, err = Compare(base, base, th); err != nil {
		t.Fatal(err)
	}
	if d := c.Detect; d.Queries != 30 || d.MinFlips != 7 || !d.FlipsKnown || !d.DropKnown || d.Family != 3 || math.Abs(d.MinRecallDrop-7.0/3/30) > 1e-12 {
		t.Errorf("require_significance: detect %+v, want seven flips at 0.05/3", d)
	}
}

// TestUnjudgedRange is a hand-made case at N = k = 3 on a set whose top
// grade is 2. q1 (gold a 2, b 2, z 0): the base returns a, b, z
// (nDCG 1); head A returns n1, a, z with n1 unjudged, head B z, x, n1.
// q2 (gold c 1, y 0) returns c, y on every side (precision 1/3, nDCG 1).
func TestUnjudgedRange(t *testing.T) {
	set, err := ParseSet(strings.NewReader(`{"id":"q1","query":"one","gold":{"a":2,"b":2,"z":0}}`+"\n"+`{"id":"q2","query":"two","gold":{"c":1,"y":0}}`+"\n"), "range.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := Depth{Candidates: 3, Context: 3}
	card := func(q1 ...string) *Scorecard {
		sc := NewScorer(set, d)
		if err := sc.Add(Result{ID: "q1", Hits: hits(q1...)}); err != nil {
			t.Fatal(err)
		}
		if err := sc.Add(Result{ID: "q2", Hits: hits("c", "y")}); err != nil {
			t.Fatal(err)
		}
		c, err := sc.Card()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	l3 := math.Log2(3)
	ideal := 2 + 2/l3          // a, b
	idealU := 2 + 2/l3 + 2.0/2 // a, b and n1 at grade 2
	th := DefaultThresholds()  // nDCG and precision drops ≤ 0.05
	th.MaxRecallDrop, th.MaxNewMisses = 1, 30
	th.Unjudged = UnjudgedRangeMode
	for _, tt := range []struct {
		name            string
		head            []string
		prec, ndcg      [2]float64 // the head's mean range
		ndcgOutcome     string
		precisionOutcme string
		note            string
	}{
		// A: scored, q1 has a at 2: precision 1/3, nDCG (2/log2 3)/ideal;
		// with n1 relevant: 2/3, (2 + 2/log2 3)/idealU. The means add q2's
		// 1/3 and 1. The base with n1 relevant has nDCG (2 + 2/log2 3)/idealU
		// too: no drop left, so the drop of 0.5·(1 − (2/l3)/ideal) is named
		// as one the range cannot confirm. Precision: 2/3 → 1/3 (drop 1/6),
		// with n1 relevant 2/3 → 2/3: also unconfirmed.
		{"unconfirmed", []string{"n1", "a", "z"},
			[2]float64{(1.0/3 + 1.0/3) / 2, (2.0/3 + 1.0/3) / 2}, [2]float64{((2/l3)/ideal + 1) / 2, ((2+2/l3)/idealU + 1) / 2},
			RuleInconclusive, RuleInconclusive, "the range of the head's nDCG@3 cannot confirm the drop: were the 1 unjudged document in the head's top 3 of the 1 query whose nDCG@3 dropped (q1) relevant, the mean nDCG@3 would stay as it is instead of dropping;"},
		// B: z, x, n1 (x unjudged too): scored 0; with x and n1 relevant at
		// 2: precision 2/3, nDCG (2/log2 3 + 2/2)/(2 + 2/l3 + 2/2); the
		// base with them: (2 + 2/l3)/(2 + 2/l3 + 2/2) (its a, b; x and n1
		// are not in it). The drop, 0.5 · (that − this), is still over
		// 0.05: confirmed, it fails.
		{"confirmed", []string{"z", "x", "n1"},
			[2]float64{(0 + 1.0/3) / 2, (2.0/3 + 1.0/3) / 2}, [2]float64{(0 + 1.0) / 2, ((2/l3+1)/idealU + 1) / 2},
			RuleFail, RuleInconclusive, ""},
	} {
		c, err := Compare(card("a", "b", "z"), card(tt.head...), th)
		if err != nil {
			t.Fatal(err)
		}
		r := c.HeadRange
		if r == nil {
			t.Fatalf("%s: no head range", tt.name)
		}
		want := 1
		if tt.name == "confirmed" {
			want = 2
		}
		if r.Docs != want || r.Queries != 1 || !near(r.Precision[0], tt.prec[0]) || !near(r.Precision[1], tt.prec[1]) || !near(r.NDCG[0], tt.ndcg[0]) || !near(r.NDCG[1], tt.ndcg[1]) {
			t.Errorf("%s: range %+v, want %d docs, precision %v, nDCG %v", tt.name, *r, want, tt.prec, tt.ndcg)
		}
		if n := rule(t, c, RuleNDCGDrop, ""); n.Outcome != tt.ndcgOutcome || !strings.Contains(n.Note, tt.note) {
			t.Errorf("%s: nDCG rule %s %q", tt.name, n.Outcome, n.Note)
		}
		if p := rule(t, c, RulePrecisionDrop, ""); p.Outcome != tt.precisionOutcme {
			t.Errorf("%s: precision rule %s %q", tt.name, p.Outcome, p.Note)
		}
	}
	// Nothing unjudged in the head's top k: no range.
	c, _ := Compare(card("a", "b", "z"), card("b", "a", "z"), th)
	if c.HeadRange != nil {
		t.Errorf("range without unjudged documents: %+v", *c.HeadRange)
	}
}
