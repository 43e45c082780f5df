package gate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// ruleSet is thirty queries with three gold documents each (gA grade 3, gB
// and gC grade 1); q01–q06 declare the segment "keyword", q29–q30 "rare".
// With judged, the seven filler documents x1…x7 carry grade 0 (judged not
// relevant), so the set records judgements.
func ruleSet(t *testing.T, judged bool) *Set {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		seg := ""
		switch {
		case i <= 6:
			seg = `,"segments":["keyword"]`
		case i >= 29:
			seg = `,"segments":["rare"]`
		}
		zeros := ""
		if judged {
			for x := 1; x <= 7; x++ {
				zeros += fmt.Sprintf(`,"x%d":0`, x)
			}
		}
		fmt.Fprintf(&b, `{"id":"q%02d","query":"how does thing %d work","gold":{"gA":3,"gB":1,"gC":1%s}%s}`+"\n", i, i, zeros, seg)
	}
	s, err := ParseSet(strings.NewReader(b.String()), "rules.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var ruleDepth = Depth{Candidates: 10, Context: 5}

// baseline is every query's base list: the gold first, then filler.
var baseline = []string{"gA", "gB", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}

// ruleCard scores a run: each query returns baseline unless lists gives
// its own (by query number, 1-based).
func ruleCard(t *testing.T, s *Set, lists map[int][]string) *Scorecard {
	t.Helper()
	sc := NewScorer(s, ruleDepth)
	for i, q := range s.Queries {
		docs, ok := lists[i+1]
		if !ok {
			docs = baseline
		}
		if err := sc.Add(Result{ID: q.ID, Hits: hits(docs...)}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// first m queries get the same list.
func firstM(m int, docs ...string) map[int][]string {
	out := map[int][]string{}
	for i := 1; i <= m; i++ {
		out[i] = docs
	}
	return out
}

func rule(t *testing.T, c *Comparison, name, segment string) RuleResult {
	t.Helper()
	for _, r := range c.Rules {
		if r.Name == name && r.Segment == segment {
			return r
		}
	}
	t.Fatalf("no rule %s for segment %q in %+v", name, segment, c.Rules)
	return RuleResult{}
}

func ptr[T any](v T) *T { return &v }

// swapDrop is one query's nDCG@5 loss when gA (3) and gB (1) trade places:
// 1 − (1 + 3/log2 3 + 1/log2 4) / (3 + 1/log2 3 + 1/log2 4).
var swapDrop = 1 - (1+3/math.Log2(3)+0.5)/(3+1/math.Log2(3)+0.5)

func TestRulesContextDepth(t *testing.T) {
	s := ruleSet(t, false)
	base := ruleCard(t, s, nil)
	tests := []struct {
		name        string
		head        map[int][]string
		th          func(*Thresholds)
		verdict     Verdict
		ndcg, prec  string // outcomes
		ndcgDrop    float64
		precDrop    float64
		wantReasons []string
	}{
		// A reranker that swaps the two best documents in 9 of 30 queries:
		// recall and precision do not move, nDCG@5 drops 9 × 0.1787 / 30 = 0.0536.
		{name: "reorder of 9 fails on nDCG", head: firstM(9, "gB", "gA", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7"),
			verdict: Fail, ndcg: RuleFail, prec: RulePass, ndcgDrop: 9 * swapDrop / 30,
			wantReasons: []string{"mean nDCG@5 dropped by 0.054 (limit 0.050, max_ndcg_drop)"}},
		// 8 of 30: 0.0477, within the limit.
		{name: "reorder of 8 passes", head: firstM(8, "gB", "gA", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7"),
			verdict: Pass, ndcg: RulePass, prec: RulePass, ndcgDrop: 8 * swapDrop / 30},
		// The evidence buried below the context in 10 queries: still all
		// candidates (recall 1.0), precision@5 3/5 → 0 and nDCG@5 1 → 0 there.
		{name: "buried evidence fails both context rules", head: firstM(10, "x1", "x2", "x3", "x4", "x5", "gA", "gB", "gC"),
			verdict: Fail, ndcg: RuleFail, prec: RuleFail, ndcgDrop: 10.0 / 30, precDrop: 0.6 * 10 / 30,
			wantReasons: []string{"mean nDCG@5 dropped by 0.333 (limit 0.050, max_ndcg_drop)", "mean precision@5 dropped by 0.200 (limit 0.050, max_precision_drop)"}},
		// Nine losses and no wins: sign-flip p = 2/2^9 < 0.05, so significance does not save it.
		{name: "significant reorder still fails", head: firstM(9, "gB", "gA", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7"),
			th: func(t *Thresholds) { t.RequireSignificance = true }, verdict: Fail, ndcg: RuleFail, prec: RulePass, ndcgDrop: 9 * swapDrop / 30},
		// Four losses at a 0.02 limit: p = 2/16 = 0.125, inconclusive; the
		// family is the three tested rules the policy sets (recall, nDCG,
		// precision), so its adjusted p is 3 · 0.125 = 0.375.
		{name: "insignificant reorder is inconclusive", head: firstM(4, "gB", "gA", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7"),
			th: func(t *Thresholds) { t.RequireSignificance = true; t.MaxNDCGDrop = ptr(0.02) }, verdict: Inconclusive, ndcg: RuleInconclusive, prec: RulePass, ndcgDrop: 4 * swapDrop / 30,
			wantReasons: []string{"mean nDCG@5 dropped by 0.024 (limit 0.020, max_ndcg_drop)", "the nDCG@5 drop is not significant after Holm's correction over the 3 rules significance is required of (sign-flip p = 0.125, adjusted p = 0.375 ≥ 0.05 over 30 queries), so, with significance required, it does not fail the gate"}},
		// min_flipped 10: nine queries moved, so the drop does not fail.
		{name: "fewer than min_flipped is inconclusive", head: firstM(9, "gB", "gA", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7"),
			th: func(t *Thresholds) { t.MinFlipped = 10 }, verdict: Inconclusive, ndcg: RuleInconclusive, prec: RulePass, ndcgDrop: 9 * swapDrop / 30,
			wantReasons: []string{"mean nDCG@5 dropped by 0.054 (limit 0.050, max_ndcg_drop)", "only 9 queries moved nDCG@5 the wrong way (min_flipped 10), so it does not fail the gate"}},
		// Off: a nil limit leaves the rule out.
		{name: "rule off", head: firstM(10, "x1", "x2", "x3", "x4", "x5", "gA", "gB", "gC"),
			th: func(t *Thresholds) { t.MaxNDCGDrop, t.MaxPrecisionDrop = nil, nil }, verdict: Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			if tt.th != nil {
				tt.th(&th)
			}
			c, err := Compare(base, ruleCard(t, s, tt.head), th)
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tt.verdict {
				t.Fatalf("verdict %s, want %s (%q)", c.Verdict, tt.verdict, c.Reasons)
			}
			if r := rule(t, c, RuleRecallDrop, ""); r.Outcome != RulePass || r.Value != 0 {
				t.Errorf("recall rule %+v: recall did not move", r)
			}
			if tt.ndcg != "" {
				r := rule(t, c, RuleNDCGDrop, "")
				if r.Outcome != tt.ndcg || math.Abs(r.Value-tt.ndcgDrop) > 1e-12 || r.Depth != 5 || r.Metric != MetricNDCG {
					t.Errorf("nDCG rule %+v, want %s at %v", r, tt.ndcg, tt.ndcgDrop)
				}
				p := rule(t, c, RulePrecisionDrop, "")
				if p.Outcome != tt.prec || math.Abs(p.Value-tt.precDrop) > 1e-12 {
					t.Errorf("precision rule %+v, want %s at %v", p, tt.prec, tt.precDrop)
				}
			} else {
				for _, r := range c.Rules {
					if r.Name == RuleNDCGDrop || r.Name == RulePrecisionDrop {
						t.Errorf("rule %s applied while off", r.Name)
					}
				}
			}
			for _, want := range tt.wantReasons {
				found := false
				for _, got := range c.Reasons {
					found = found || got == want
				}
				if !found {
					t.Errorf("reason %q missing from %q", want, c.Reasons)
				}
			}
		})
	}
}

// lossOf3 is the head of the segment tests: three keyword queries (q01–q03)
// keep only gA, recall 1/3 each.
var lossOf3 = firstM(3, "gA", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "y1", "y2")

func TestRulesSegmentsTailFloors(t *testing.T) {
	s := ruleSet(t, false)
	base := ruleCard(t, s, nil)
	head := ruleCard(t, s, lossOf3)
	loose := func(th *Thresholds) { th.MaxRecallDrop = 0.1 } // overall drop 3 × (2/3) / 30 = 0.0667 passes
	tests := []struct {
		name    string
		th      func(*Thresholds)
		verdict Verdict
		check   func(t *testing.T, c *Comparison)
	}{
		{"the mean holds: pass", loose, Pass, func(t *testing.T, c *Comparison) {
			if r := rule(t, c, RuleRecallDrop, ""); math.Abs(r.Value-2.0/30) > 1e-12 {
				t.Errorf("overall drop %v, want 2/30", r.Value)
			}
		}},
		{"keyword segment rule fails", func(th *Thresholds) {
			loose(th)
			th.Segments = []SegmentRule{{Name: "keyword", Limits: Limits{MaxRecallDrop: ptr(0.05)}}}
		}, Fail, func(t *testing.T, c *Comparison) {
			r := rule(t, c, RuleRecallDrop, "keyword")
			// 3 of 6 keyword queries lose 2/3: mean drop 1/3.
			if r.Outcome != RuleFail || r.Queries != 6 || math.Abs(r.Value-1.0/3) > 1e-12 || r.Flipped != 3 {
				t.Errorf("segment rule %+v", r)
			}
			if want := "segment keyword: mean recall@10 dropped by 0.333 (limit 0.050, max_recall_drop)"; len(c.Reasons) == 0 || c.Reasons[0] != want {
				t.Errorf("reasons %q, want %q first", c.Reasons, want)
			}
		}},
		{"auto segment by bare name", func(th *Thresholds) {
			loose(th)
			th.Segments = []SegmentRule{{Name: "question", Limits: Limits{MaxRecallDrop: ptr(0.05)}}}
		}, Fail, func(t *testing.T, c *Comparison) {
			if r := rule(t, c, RuleRecallDrop, "auto: question"); r.Queries != 30 || r.Outcome != RuleFail {
				t.Errorf("auto segment %+v", r)
			}
		}},
		{"too small to gate", func(th *Thresholds) {
			loose(th)
			th.Segments = []SegmentRule{{Name: "rare", Limits: Limits{MinRecall: ptr(1.0)}}}
		}, Pass, func(t *testing.T, c *Comparison) {
			r := rule(t, c, "segment", "rare")
			if r.Outcome != RuleSkipped || r.Queries != 2 {
				t.Errorf("small segment %+v", r)
			}
			if want := "segment rare has 2 queries, fewer than min_segment_queries (5): too small to gate, its rules were not applied"; !strings.Contains(strings.Join(c.Reasons, "\n"), want) || c.ReasonKinds[len(c.ReasonKinds)-1] != ReasonNote {
				t.Errorf("reasons %q %q", c.Reasons, c.ReasonKinds)
			}
		}},
		{"the tail rising fails", func(th *Thresholds) { loose(th); th.MaxBelowIncrease = ptr(0) }, Fail, func(t *testing.T, c *Comparison) {
			r := rule(t, c, RuleBelowIncrease, "")
			if r.Outcome != RuleFail || r.Base != 0 || r.Head != 3 || r.Value != 3 {
				t.Errorf("tail rule %+v", r)
			}
			if want := "0 → 3 queries with recall@10 under 0.50 (+3, limit +0, max_below_increase); new: q01, q02, q03"; c.Reasons[0] != want {
				t.Errorf("reason %q, want %q", c.Reasons[0], want)
			}
		}},
		{"the tail within its limit", func(th *Thresholds) { loose(th); th.MaxBelowIncrease = ptr(3) }, Pass, nil},
		{"recall floor", func(th *Thresholds) { loose(th); th.MinRecall = ptr(0.95); th.MinNDCG = ptr(0.9) }, Fail, func(t *testing.T, c *Comparison) {
			// head recall (27 + 3 × 1/3) / 30 = 0.9333 < 0.95; nDCG (27 + 3 × 3/4.1309) / 30 = 0.9726 ≥ 0.9.
			if r := rule(t, c, RuleMinRecall, ""); r.Outcome != RuleFail || math.Abs(r.Value-28.0/30) > 1e-12 {
				t.Errorf("floor %+v", r)
			}
			if r := rule(t, c, RuleMinNDCG, ""); r.Outcome != RulePass {
				t.Errorf("nDCG floor %+v", r)
			}
		}},
		{"fewer flips than min_flipped", func(th *Thresholds) { th.MinFlipped = 4; th.MaxRecallDrop = 0.01 }, Inconclusive, func(t *testing.T, c *Comparison) {
			if r := rule(t, c, RuleRecallDrop, ""); r.Outcome != RuleInconclusive || r.Flipped != 3 {
				t.Errorf("recall %+v", r)
			}
		}},
		{"waiver for one rule", func(th *Thresholds) {
			loose(th)
			th.Segments = []SegmentRule{{Name: "keyword", Limits: Limits{MaxRecallDrop: ptr(0.2)}}}
		}, Fail, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			tt.th(&th)
			c, err := Compare(base, head, th)
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tt.verdict {
				t.Fatalf("verdict %s, want %s (%q)", c.Verdict, tt.verdict, c.Reasons)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}

	// Waivers per rule: q01 waived for the segment's recall rule brings the
	// keyword drop to 2 × (2/3) / 6 = 0.222 > 0.2, still failing; q01 and q02
	// waived bring it to 0.111, passing. A waiver for another rule changes nothing.
	th := DefaultThresholds()
	th.MaxRecallDrop = 0.1
	th.Segments = []SegmentRule{{Name: "keyword", Limits: Limits{MaxRecallDrop: ptr(0.2)}}}
	far := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, w := range []struct {
		waivers []Waiver
		want    Verdict
	}{
		{[]Waiver{{Query: "q01", Reason: "r", Expires: far, Rules: []string{RuleRecallDrop}}}, Fail},
		{[]Waiver{{Query: "q01", Reason: "r", Expires: far, Rules: []string{RuleRecallDrop}}, {Query: "q02", Reason: "r", Expires: far}}, Pass},
		{[]Waiver{{Query: "q01", Reason: "r", Expires: far, Rules: []string{RuleNDCGDrop}}, {Query: "q02", Reason: "r", Expires: far, Rules: []string{RuleNDCGDrop}}}, Fail},
	} {
		c, err := CompareWith(base, head, Policy{Thresholds: th, Waivers: w.waivers})
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != w.want {
			t.Errorf("waivers %+v: verdict %s, want %s (%q)", w.waivers, c.Verdict, w.want, c.Reasons)
		}
	}

	// min_flipped never applies to the new-miss rule: one query at zero fails.
	th = DefaultThresholds()
	th.MinFlipped = 30
	c, err := Compare(base, ruleCard(t, s, firstM(1, "y1")), th)
	if err != nil {
		t.Fatal(err)
	}
	if r := rule(t, c, RuleNewMisses, ""); c.Verdict != Fail || r.Outcome != RuleFail || rule(t, c, RuleRecallDrop, "").Outcome != RuleInconclusive {
		t.Errorf("new miss with min_flipped 30: %s %q", c.Verdict, c.Reasons)
	}

	// A segment no query has is an input error naming the rule's line.
	th = DefaultThresholds()
	th.Segments = []SegmentRule{{Name: "acronym", File: "recallgate.toml", Line: 12, Limits: Limits{MaxRecallDrop: ptr(0.05)}}}
	_, err = Compare(base, head, th)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 12 || ie.Field != "gate.segment[0].name" || !strings.Contains(err.Error(), `recallgate.toml:12: gate.segment[0].name: no segment "acronym" in rules.jsonl (declared segments: keyword, rare`) {
		t.Errorf("unknown segment: %v", err)
	}
}

func TestRulesUnjudged(t *testing.T) {
	judged := ruleSet(t, true)
	if !judged.RecordsJudgements() || ruleSet(t, false).RecordsJudgements() {
		t.Fatal("RecordsJudgements: grade-0 labels record judgements, gold alone does not")
	}
	base := ruleCard(t, judged, nil)
	// The head fills the context of 10 queries with n1…n5, which nobody
	// judged: the nDCG and precision drops are all in those queries.
	head := ruleCard(t, judged, firstM(10, "n1", "n2", "n3", "n4", "n5", "gA", "gB", "gC"))
	ranged := DefaultThresholds()
	ranged.Unjudged = UnjudgedRangeMode
	c, err := Compare(base, head, ranged)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Inconclusive || !c.JudgementsKnown {
		t.Fatalf("verdict %s, want inconclusive (%q)", c.Verdict, c.Reasons)
	}
	// Had n1…n5 been relevant, those 10 queries' precision@5 would be 1
	// against the base's 0.6 (the base's mean over the 30): the mean
	// would rise by 10 · 0.4 / 30 = 0.133, said as a rise, never as "it
	// would drop by 0.000".
	for name, moved := range map[string]string{RuleNDCGDrop: "nDCG@5 would rise by ", RulePrecisionDrop: "precision@5 would rise by 0.133 instead of dropping"} {
		if r := rule(t, c, name, ""); r.Outcome != RuleInconclusive || !strings.Contains(r.Note, "were the 50 unjudged documents in the head's top 5 of the 10 queries whose") || !strings.Contains(r.Note, moved) || strings.Contains(r.Note, "drop by 0.000") {
			t.Errorf("%s: %+v", name, r)
		}
	}
	p := c.Query("q01")
	if strings.Join(p.NewUnjudged, ",") != "n1,n2,n3,n4,n5" || p.HeadUnjudged != (Unjudged{AtK: 5, AtN: 5, ReturnedK: 5, Precision: 1, NDCG: 1}) || p.BaseUnjudged.AtK != 0 || p.BaseUnjudged.ReturnedK != 5 {
		t.Errorf("q01 unjudged: new %v head %+v base %+v", p.NewUnjudged, p.HeadUnjudged, p.BaseUnjudged)
	}
	if q := c.Query("q11"); len(q.NewUnjudged) != 0 {
		t.Errorf("q11 has new unjudged %v", q.NewUnjudged)
	}

	// By default (trec_eval's reading) the same drops fail, and each
	// reason counts the documents nobody judged and says how to clear them.
	c, _ = Compare(base, head, DefaultThresholds())
	if c.Verdict != Fail {
		t.Errorf("default reading: verdict %s, want fail (%q)", c.Verdict, c.Reasons)
	}
	for _, name := range []string{RuleNDCGDrop, RulePrecisionDrop} {
		if r := rule(t, c, name, ""); r.Outcome != RuleFail || !strings.HasSuffix(r.Why, "; fails with 50 documents nobody judged in the head's top 5 counted non-relevant; if they are relevant, judge them (`recallgate label --from-report report.json`) and score again") {
			t.Errorf("default reading %s: %s %q", name, r.Outcome, r.Why)
		}
	}
	// With significance required, a drop that fails after Holm says so too.
	sig := DefaultThresholds()
	sig.RequireSignificance = true
	c, _ = Compare(base, head, sig)
	if r := rule(t, c, RuleNDCGDrop, ""); c.Verdict != Fail || r.Outcome != RuleFail || r.AdjustedP == nil ||
		!strings.HasSuffix(r.Why, "; fails with 50 documents nobody judged in the head's top 5 counted non-relevant; if they are relevant, judge them (`recallgate label --from-report report.json`) and score again") {
		t.Errorf("significance required: verdict %s, nDCG rule %s %q", c.Verdict, r.Outcome, r.Why)
	}
	// Condensed: n1…n5 leave both lists before the cut, so the head's
	// top 5 reads gA gB gC as the base's does: precision 3/5, nDCG 1.
	condensedTh := DefaultThresholds()
	condensedTh.Unjudged = UnjudgedCondensed
	c, _ = Compare(base, head, condensedTh)
	if c.Verdict != Pass || c.Head.Precision != 0.6 || c.Head.NDCG != 1 || c.Base.NDCG != 1 || c.HeadRange == nil || math.Abs(c.HeadRange.Precision[0]-0.4) > 1e-9 {
		t.Errorf("condensed: verdict %s, head P %v nDCG %v, base nDCG %v, range %+v (want pass, 0.6, 1, 1, the range's non-relevant end trec_eval's 0.4)", c.Verdict, c.Head.Precision, c.Head.NDCG, c.Base.NDCG, c.HeadRange)
	}

	// The same burial with documents judged not relevant is a real regression.
	c, _ = Compare(base, ruleCard(t, judged, firstM(10, "x1", "x2", "x3", "x4", "x5", "gA", "gB", "gC")), DefaultThresholds())
	if c.Verdict != Fail || len(c.Query("q01").NewUnjudged) != 0 {
		t.Errorf("judged burial: %s %q", c.Verdict, c.Reasons)
	}

	// A gold-only set cannot tell: the drop fails, unjudged counts stay empty.
	plain := ruleSet(t, false)
	c, _ = Compare(ruleCard(t, plain, nil), ruleCard(t, plain, firstM(10, "n1", "n2", "n3", "n4", "n5", "gA", "gB", "gC")), DefaultThresholds())
	if c.Verdict != Fail || c.JudgementsKnown || len(c.Query("q01").NewUnjudged) != 0 {
		t.Errorf("gold-only set: %s known %v", c.Verdict, c.JudgementsKnown)
	}

	// Judgments by a labeller count as judged too.
	q := &Query{Gold: map[string]int{"a": 1}, Judgments: map[string]map[string]int{"ana": {"b": 0}}}
	if !q.Judged("a") || !q.Judged("b") || q.Judged("c") {
		t.Error("Judged: gold and judgments are judged, anything else is not")
	}
}

func TestRulesLatency(t *testing.T) {
	s := ruleSet(t, false)
	base, head := ruleCard(t, s, nil), ruleCard(t, s, nil)
	ms := func(xs ...int) []time.Duration {
		var out []time.Duration
		for _, x := range xs {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	// Nearest rank over 20 calls: p50 is the 10th, p95 the 19th.
	calls := ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100)
	bl := Latencies(calls, 250*time.Millisecond)
	if bl.P50 != 10*time.Millisecond || bl.P95 != 19*time.Millisecond || bl.Max != 100*time.Millisecond || bl.Total != 290*time.Millisecond || bl.Calls != 20 || bl.Build != 250*time.Millisecond {
		t.Errorf("latencies %+v", bl)
	}
	if Latencies(nil, 0) != nil {
		t.Error("no calls, no stats")
	}
	hl := Latencies(ms(30, 40, 57, 60), 0) // p95 = 60 ms: 3.16× the base's 19
	th := DefaultThresholds()
	th.MaxLatencyRatio = 3
	c, err := CompareWith(base, head, Policy{Thresholds: th, Latency: [2]*LatencyStats{bl, hl}})
	if err != nil {
		t.Fatal(err)
	}
	r := rule(t, c, RuleLatencyRatio, "")
	if c.Verdict != Fail || r.Outcome != RuleFail || math.Abs(r.Value-60.0/19) > 1e-12 || r.Base != 19 || r.Head != 60 {
		t.Errorf("latency rule %+v verdict %s", r, c.Verdict)
	}
	if want := "head p95 latency 60.0 ms is 3.16× the base's 19.0 ms (limit 3.00×, max_latency_ratio)"; c.Reasons[0] != want {
		t.Errorf("reason %q, want %q", c.Reasons[0], want)
	}
	c, _ = CompareWith(base, head, Policy{Thresholds: th, Latency: [2]*LatencyStats{nil, hl}})
	if r := rule(t, c, RuleLatencyRatio, ""); c.Verdict != Pass || r.Outcome != RuleSkipped {
		t.Errorf("an untimed side skips the rule: %+v %s", r, c.Verdict)
	}
}

func TestOutageIsInfrastructure(t *testing.T) {
	s := ruleSet(t, false)
	good := ruleCard(t, s, nil)
	none := map[int][]string{}
	foreign := map[int][]string{}
	some := map[int][]string{}
	for i := 1; i <= 30; i++ {
		none[i] = nil
		foreign[i] = []string{"elsewhere/1", "elsewhere/2"}
		if i <= 7 {
			some[i] = nil
		}
	}
	empty := ruleCard(t, s, none)
	corpus := map[string]bool{"gA": true, "gB": true, "gC": true, "x1": true}
	for _, tt := range []struct {
		name       string
		base, head *Scorecard
		corpus     map[string]bool
		want       string
	}{
		{"both sides empty", empty, empty, nil, "base: every one of the 30 queries came back with no hits"},
		{"head empty", good, empty, nil, "head: every one of the 30 queries came back with no hits"},
		{"head answers from another index", good, ruleCard(t, s, foreign), corpus, "head: no query returned a document the corpus holds"},
	} {
		_, err := CompareWith(tt.base, tt.head, Policy{Thresholds: DefaultThresholds(), Corpus: tt.corpus})
		var ie *InfraError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an infrastructure error with %q", tt.name, err, tt.want)
		}
	}
	// Unknown documents with no corpus to check are only ids: scored as misses.
	if _, err := Compare(good, ruleCard(t, s, foreign), DefaultThresholds()); err != nil {
		t.Errorf("foreign ids without a corpus: %v", err)
	}
	// Seven of thirty empty (23%) is scored, with a warning, and the seven
	// are named as empty answers, apart from the misses.
	c, err := Compare(good, ruleCard(t, s, some), DefaultThresholds())
	if err != nil || !slicesContains(c.Warnings, "head answered 7 of 30 queries with no hits (20% or more): is its index complete?") {
		t.Errorf("partial emptiness: %v %q", err, c.Warnings)
	}
	if got := strings.Join(c.EmptyAnswers[1], " "); got != "q01 q02 q03 q04 q05 q06 q07" || len(c.EmptyAnswers[0]) != 0 {
		t.Errorf("empty answers %q", c.EmptyAnswers)
	}
	// The boundary warns: six of thirty is 20%; five (17%) does not.
	for n, warns := range map[int]bool{6: true, 5: false} {
		part := map[int][]string{}
		for i := 1; i <= n; i++ {
			part[i] = nil
		}
		c, err := Compare(good, ruleCard(t, s, part), DefaultThresholds())
		if got := len(c.Warnings) > 0 && strings.Contains(strings.Join(c.Warnings, "\n"), "with no hits"); err != nil || got != warns || len(c.EmptyAnswers[1]) != n {
			t.Errorf("%d of 30 empty: warned %v (want %v), empty answers %v, err %v", n, got, warns, c.EmptyAnswers[1], err)
		}
	}
}

func slicesContains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// TestRulesBaselineDrop: max_baseline_drop holds the head's mean recall@10
// against the reviewed baseline's over the queries the baseline holds. The
// base already lost gA on q01, the head loses it on q01 and q02: the base →
// head drop is 1/3 / 30 = 0.011, within max_recall_drop 0.02, but against
// a baseline at 1.000 on q01–q29 (q30 not in it) the head's mean is
// (29 − 2/3) / 29 = 0.977, 0.023 below.
func TestRulesBaselineDrop(t *testing.T) {
	s := ruleSet(t, false)
	lost := []string{"gB", "gC", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}
	base := ruleCard(t, s, map[int][]string{1: lost})
	head := ruleCard(t, s, map[int][]string{1: lost, 2: lost})
	reviewed := &ReviewedBaseline{Name: "baselines/head.jsonl@abc", Recall: map[string]float64{}}
	for i := 1; i <= 29; i++ {
		reviewed.Recall[fmt.Sprintf("q%02d", i)] = 1
	}
	drop := 1 - (29-2.0/3)/29
	for _, tt := range []struct {
		name    string
		limit   float64
		waivers []Waiver
		want    string
		value   float64
	}{
		{"beyond the limit", 0.02, nil, RuleFail, drop},
		{"within a wider limit", 0.03, nil, RulePass, drop},
		{"q02 waived for this rule", 0.02, []Waiver{{Query: "q02", Reason: "known", Rules: []string{RuleBaselineDrop}}}, RulePass, 1.0 / 3 / 29},
		{"q02 waived for another rule", 0.02, []Waiver{{Query: "q02", Reason: "known", Rules: []string{RuleNDCGDrop}}}, RuleFail, drop},
	} {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			th.MaxBaselineDrop = &tt.limit
			c, err := CompareWith(base, head, Policy{Thresholds: th, Baseline: reviewed, Waivers: tt.waivers})
			if err != nil {
				t.Fatal(err)
			}
			r := rule(t, c, RuleBaselineDrop, "")
			if r.Outcome != tt.want || math.Abs(r.Value-tt.value) > 1e-12 || r.Queries != 29 || r.Base != 1 || math.Abs(r.Head-(29-2.0/3)/29) > 1e-12 || r.Limit != tt.limit {
				t.Errorf("rule %+v, want %s with value %.6f over 29 queries", r, tt.want, tt.value)
			}
			if rd := rule(t, c, RuleRecallDrop, ""); rd.Outcome != RulePass {
				t.Errorf("the base → head recall drop %.3f must pass on its own: %+v", rd.Value, rd)
			}
			d := c.BaselineDistance
			if d == nil || d.Name != reviewed.Name || d.Queries != 29 || fmt.Sprint(d.Missing) != "[q30]" || math.Abs(d.Drop-tt.value) > 1e-12 || d.Limit != tt.limit {
				t.Errorf("distance %+v", d)
			}
			if tt.want == RuleFail {
				want := "head mean recall@10 0.977 is 0.023 below the reviewed baseline's 1.000 (baselines/head.jsonl@abc, 29 queries; limit 0.020, max_baseline_drop)"
				if c.Verdict != Fail || len(c.Reasons) != 1 || c.Reasons[0] != want {
					t.Errorf("verdict %s reasons %q, want %q", c.Verdict, c.Reasons, want)
				}
			} else if c.Verdict != Pass {
				t.Errorf("verdict %s %q", c.Verdict, c.Reasons)
			}
		})
	}
	th := DefaultThresholds()
	th.MaxBaselineDrop = ptr(0.02)
	// No baseline read: skipped, saying why; the head is not failed by a
	// rule it could not be held to, nor passed by it.
	for _, b := range []*ReviewedBaseline{nil, {Name: "x", Skipped: "the base commit has no recallgate config"}} {
		c, err := CompareWith(base, head, Policy{Thresholds: th, Baseline: b})
		if err != nil {
			t.Fatal(err)
		}
		if r := rule(t, c, RuleBaselineDrop, ""); r.Outcome != RuleSkipped || !strings.Contains(r.Note, "so max_baseline_drop was not applied") || c.BaselineDistance != nil {
			t.Errorf("baseline %+v: rule %+v", b, r)
		}
	}
	// A baseline that holds none of the set's queries measures nothing.
	_, err := CompareWith(base, head, Policy{Thresholds: th, Baseline: &ReviewedBaseline{Name: "old.jsonl@abc", Recall: map[string]float64{"gone": 1}}})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "old.jsonl@abc" || !strings.Contains(err.Error(), "holds none of the 30 queries of rules.jsonl") {
		t.Errorf("a baseline of no query of the set: %v", err)
	}
	// Off without the key: no rule at all.
	c, _ := CompareWith(base, head, Policy{Thresholds: DefaultThresholds(), Baseline: reviewed})
	for _, r := range c.Rules {
		if r.Name == RuleBaselineDrop {
			t.Errorf("max_baseline_drop unset, yet applied: %+v", r)
		}
	}
	// Out of range.
	th.MaxBaselineDrop = ptr(1.5)
	var re *RuleError
	if err := th.Validate(); !errors.As(err, &re) || re.Key != RuleBaselineDrop {
		t.Errorf("max_baseline_drop 1.5: %v", err)
	}
}

// TestRulesMissingGold: on a drift run (StaleGoldApart, the corpus known)
// max_missing_gold counts the distinct relevant gold documents the corpus
// lacks over the non-synthetic queries: gB is gone (all thirty queries
// name it), gC too; a pull request's comparison has no such rule.
func TestRulesMissingGold(t *testing.T) {
	s := ruleSet(t, false)
	corpus := map[string]bool{"gA": true, "x1": true, "x2": true, "x3": true, "x4": true, "x5": true, "x6": true, "x7": true}
	base, head := ruleCard(t, s, nil), ruleCard(t, s, firstM(30, "gA", "x1", "x2"))
	for _, tc := range []struct {
		name    string
		drift   bool
		limit   int
		outcome string
	}{
		{"drift, limit 0", true, 0, RuleFail},
		{"drift, limit 1", true, 1, RuleFail},
		{"drift, limit 2", true, 2, RulePass},
		{"pull request", false, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := DefaultThresholds()
			th.MaxMissingGold = tc.limit
			c, err := CompareWith(base, head, Policy{Thresholds: th, Corpus: corpus, StaleGoldApart: tc.drift})
			if err != nil {
				t.Fatal(err)
			}
			var got *RuleResult
			for i := range c.Rules {
				if c.Rules[i].Name == RuleMissingGold {
					got = &c.Rules[i]
				}
			}
			if tc.outcome == "" {
				if got != nil {
					t.Fatalf("a pull request's comparison applied %s: %+v", RuleMissingGold, got)
				}
				return
			}
			if got == nil || got.Outcome != tc.outcome || got.Value != 2 || got.Queries != 30 || got.Limit != float64(tc.limit) {
				t.Fatalf("rule %+v, want %s with 2 documents over 30 queries", got, tc.outcome)
			}
			if tc.outcome == RuleFail {
				want := fmt.Sprintf("2 gold documents left the corpus (limit %d, max_missing_gold): gB (queries q01, q02, q03, q04, q05, …and 25 more); gC (queries q01, q02, q03, q04, q05, …and 25 more); kept out of the recall rules: queries q01, q02", tc.limit)
				if !strings.HasPrefix(got.Why, want) || c.Verdict != Fail {
					t.Errorf("why %q (verdict %s), want it to start %q", got.Why, c.Verdict, want)
				}
				// The queries themselves lost only missing gold: kept out.
				if len(c.Regressed) != 0 || len(c.DataQuality) != 30 {
					t.Errorf("regressed %v, data quality %d", c.Regressed, len(c.DataQuality))
				}
			}
		})
	}
	if err := (Thresholds{MaxMissingGold: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "max_missing_gold: must not be negative") {
		t.Errorf("negative limit: %v", err)
	}
}
