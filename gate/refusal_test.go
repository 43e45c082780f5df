package gate

import (
	"errors"
	"strings"
	"testing"
)

// refusalSet is six answerable queries (a1–a6, gold d1) and two
// unanswerable ones (u1, u2); a1–a3 and u1 declare the segment "billing".
func refusalSet(t *testing.T) *Set {
	t.Helper()
	lines := []string{
		`{"id":"a1","query":"how do refunds work","gold":{"d1":1},"segments":["billing"]}`,
		`{"id":"a2","query":"how do invoices work","gold":{"d1":1},"segments":["billing"]}`,
		`{"id":"a3","query":"how do credits work","gold":{"d1":1},"segments":["billing"]}`,
		`{"id":"a4","query":"how do keys work","gold":{"d1":1}}`,
		`{"id":"a5","query":"how do tokens work","gold":{"d1":1}}`,
		`{"id":"a6","query":"how do logs work","gold":{"d1":1}}`,
		`{"id":"u1","query":"what is the refund policy on mars","gold":{},"unanswerable":true,"segments":["billing"]}`,
		`{"id":"u2","query":"who won the 1930 cup","gold":{},"unanswerable":true}`,
	}
	s, err := ParseSet(strings.NewReader(strings.Join(lines, "\n")+"\n"), "refusal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// topScores are each query's top hit score: a2 and a3 sit between 0.4
// and 0.6, the unanswerable ones under 0.4.
var topScores = map[string]float64{"a1": 0.9, "a2": 0.55, "a3": 0.5, "a4": 0.8, "a5": 0.7, "a6": 0.95, "u1": 0.3, "u2": 0.2}

// refusalCard scores one side: every query returns d1 with its top score
// (score 0 when noScores) and the abstain signal abstain gives, if any.
func refusalCard(t *testing.T, s *Set, noScores bool, abstain map[string]bool) *Scorecard {
	t.Helper()
	sc := NewScorer(s, Depth{Candidates: 5, Context: 3})
	for _, q := range s.Queries {
		h := Hit{Doc: "d1", Score: topScores[q.ID]}
		if noScores {
			h.Score = 0
		}
		r := Result{ID: q.ID, Hits: []Hit{h, {Doc: "x", Score: h.Score / 2}}}
		if a, ok := abstain[q.ID]; ok {
			r.Abstain = &a
		}
		if err := sc.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func minScore(v float64) Refusal { return Refusal{MinScore: &v} }

func refusalRule(t *testing.T, c *Comparison, name, segment string) RuleResult {
	t.Helper()
	for _, r := range c.Rules {
		if r.Name == name && r.Segment == segment {
			return r
		}
	}
	t.Fatalf("no rule %s (segment %q) in %+v", name, segment, c.Rules)
	return RuleResult{}
}

// TestRefusalThresholdRaised: the head raises its min_score from 0.4 to
// 0.6, so it refuses a2 (top score 0.55) and a3 (0.50), both answerable.
// By hand: base false refusals 0/6, head 2/6 (a2, a3); false answers 0/2
// on both (u1 0.3 and u2 0.2 are refused at either threshold). The rise
// of 2 breaks max_false_refusals_increase = 0 and names both queries.
func TestRefusalThresholdRaised(t *testing.T) {
	s := refusalSet(t)
	base, head := refusalCard(t, s, false, nil), refusalCard(t, s, false, nil)
	pol := Policy{Thresholds: DefaultThresholds(), Refusal: [2]Refusal{minScore(0.4), minScore(0.6)}}
	c, err := CompareWith(base, head, pol)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Fail {
		t.Fatalf("verdict %s, reasons %q", c.Verdict, c.Reasons)
	}
	r := refusalRule(t, c, RuleFalseRefusals, "")
	if r.Outcome != RuleFail || r.Base != 0 || r.Head != 2 || r.Value != 2 || r.Queries != 6 || r.Flipped != 2 {
		t.Errorf("false refusals rule %+v", r)
	}
	if !strings.Contains(r.Why, "0 → 2 answerable queries the pipeline would refuse") || !strings.Contains(r.Why, "new: a2, a3") {
		t.Errorf("why %q", r.Why)
	}
	if a := refusalRule(t, c, RuleFalseAnswers, ""); a.Outcome != RulePass || a.Head != 0 || a.Queries != 2 {
		t.Errorf("false answers rule %+v", a)
	}
	rc := c.Refusal
	if got := strings.Join(rc.Sides[1].FalseRefusals, ","); got != "a2,a3" || len(rc.Sides[0].FalseRefusals) != 0 {
		t.Errorf("false refusals base %v head %v", rc.Sides[0].FalseRefusals, rc.Sides[1].FalseRefusals)
	}
	if rc.Sides[0].Signal != SignalMinScore || rc.Sides[1].Answerable != 6 || rc.Sides[1].Unanswerable != 2 {
		t.Errorf("head side %+v", rc.Sides[1])
	}
	if strings.Join(rc.NewFalseRefusals, ",") != "a2,a3" {
		t.Errorf("new false refusals %v", rc.NewFalseRefusals)
	}

	// The limit at 2 passes; a waiver of a2 for the rule leaves 1 (a3).
	pol.Thresholds.MaxFalseRefusalsIncrease = 2
	if c, _ := CompareWith(base, head, pol); refusalRule(t, c, RuleFalseRefusals, "").Outcome != RulePass || c.Verdict != Pass {
		t.Errorf("limit 2: %+v", c.Rules)
	}
	pol.Thresholds.MaxFalseRefusalsIncrease = 0
	pol.Waivers = []Waiver{{Query: "a2", Reason: "known", Rules: []string{RuleFalseRefusals}}}
	if r := refusalRule(t, mustCompare(t, base, head, pol), RuleFalseRefusals, ""); r.Outcome != RuleFail || r.Value != 1 || !strings.Contains(r.Why, "new: a3") {
		t.Errorf("waived a2: %+v", r)
	}
	// min_flipped 3: two queries moved, so inconclusive, never a pass.
	pol.Waivers, pol.Thresholds.MinFlipped = nil, 3
	if c := mustCompare(t, base, head, pol); refusalRule(t, c, RuleFalseRefusals, "").Outcome != RuleInconclusive || c.Verdict != Inconclusive {
		t.Errorf("min_flipped 3: verdict %s %+v", c.Verdict, refusalRule(t, c, RuleFalseRefusals, ""))
	}
	// require_significance: 2 of 6 moved, p = 0.5: inconclusive.
	pol.Thresholds.MinFlipped, pol.Thresholds.RequireSignificance = 1, true
	if r := refusalRule(t, mustCompare(t, base, head, pol), RuleFalseRefusals, ""); r.Outcome != RuleInconclusive || !strings.Contains(r.Note, "not significant") {
		t.Errorf("require_significance: %+v", r)
	}
	// A segment rule over billing (a1–a3, u1): a2 and a3 are in it.
	pol.Thresholds.RequireSignificance, pol.Thresholds.MinSegmentQueries = false, 4
	zero := 0
	pol.Thresholds.Segments = []SegmentRule{{Name: "billing", Limits: Limits{MaxFalseRefusalsIncrease: &zero}}}
	if r := refusalRule(t, mustCompare(t, base, head, pol), RuleFalseRefusals, "billing"); r.Outcome != RuleFail || r.Queries != 3 || r.Value != 2 {
		t.Errorf("segment billing: %+v", r)
	}
}

func mustCompare(t *testing.T, base, head *Scorecard, pol Policy) *Comparison {
	t.Helper()
	c, err := CompareWith(base, head, pol)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNoRefusalSignal: answers without "abstain" and no min_score: both
// rules are skipped (never a pass) and say there is no signal; the
// verdict is the document rules'. A head that drops the base's signal
// is inconclusive, never a pass.
func TestNoRefusalSignal(t *testing.T) {
	s := refusalSet(t)
	plain := refusalCard(t, s, false, nil)
	c := mustCompare(t, plain, plain, Policy{Thresholds: DefaultThresholds()})
	for _, name := range []string{RuleFalseAnswers, RuleFalseRefusals} {
		r := refusalRule(t, c, name, "")
		if r.Outcome != RuleSkipped || !strings.Contains(r.Why, "no refusal signal") {
			t.Errorf("%s: %+v", name, r)
		}
	}
	if c.Verdict != Pass || c.Refusal.Sides[0].Signal != SignalNone || c.Refusal.Sides[1].Signal != SignalNone {
		t.Errorf("verdict %s, sides %+v", c.Verdict, c.Refusal.Sides)
	}

	all := map[string]bool{"a1": false, "a2": false, "a3": false, "a4": false, "a5": false, "a6": false, "u1": true, "u2": true}
	signalled := refusalCard(t, s, false, all)
	c = mustCompare(t, signalled, plain, Policy{Thresholds: DefaultThresholds()})
	if c.Verdict != Inconclusive || refusalRule(t, c, RuleFalseAnswers, "").Outcome != RuleInconclusive {
		t.Errorf("head dropped the signal: verdict %s rules %+v", c.Verdict, c.Rules)
	}
	if !strings.Contains(strings.Join(c.Reasons, "\n"), "a head that drops its refusal signal cannot pass") {
		t.Errorf("reasons %q", c.Reasons)
	}

	// Partial: the head's answer to a4 carries no abstain.
	partial := map[string]bool{}
	for k, v := range all {
		partial[k] = v
	}
	delete(partial, "a4")
	c = mustCompare(t, signalled, refusalCard(t, s, false, partial), Policy{Thresholds: DefaultThresholds()})
	if h := c.Refusal.Sides[1]; h.Signal != SignalPartial || strings.Join(h.Undecided, ",") != "a4" || c.Verdict == Pass {
		t.Errorf("partial head: %+v verdict %s", h, c.Verdict)
	}
}

// TestAbstainFalseAnswers: the abstain signal on both sides; the head
// answers u1 (abstain false) where the base refused it: false answers
// 0/2 → 1/2, max_false_answers_increase fails naming u1.
func TestAbstainFalseAnswers(t *testing.T) {
	s := refusalSet(t)
	all := map[string]bool{"a1": false, "a2": false, "a3": false, "a4": false, "a5": false, "a6": false, "u1": true, "u2": true}
	head := map[string]bool{}
	for k, v := range all {
		head[k] = v
	}
	head["u1"] = false
	// The abstain signal wins over min_score: with min_score 0.95 every
	// answer would be refused, but each carries its own decision.
	c := mustCompare(t, refusalCard(t, s, false, all), refusalCard(t, s, true, head), Policy{Thresholds: DefaultThresholds(), Refusal: [2]Refusal{{}, minScore(0.95)}})
	r := refusalRule(t, c, RuleFalseAnswers, "")
	if r.Outcome != RuleFail || r.Base != 0 || r.Head != 1 || !strings.Contains(r.Why, "new: u1") {
		t.Errorf("false answers %+v", r)
	}
	if got := c.Refusal.Sides[1]; got.Signal != SignalBoth || strings.Join(got.FalseAnswers, ",") != "u1" {
		t.Errorf("head side %+v", got)
	}
}

// TestMinScoreWithoutScores: with min_score, an answer whose hits carry
// no score cannot be decided: an infrastructure error naming the query.
func TestMinScoreWithoutScores(t *testing.T) {
	s := refusalSet(t)
	_, err := CompareWith(refusalCard(t, s, false, nil), refusalCard(t, s, true, nil), Policy{Thresholds: DefaultThresholds(), Refusal: [2]Refusal{minScore(0.4), minScore(0.4)}})
	var ie *InfraError
	if !errors.As(err, &ie) || ie.QueryID != "a1" || !IsInfra(err) || !strings.Contains(err.Error(), "min_score 0.4 needs the retriever's scores") || !strings.HasPrefix(err.Error(), "head: ") {
		t.Fatalf("err = %v", err)
	}
	// No hits at all is a refusal, not an error.
	d, err := decideRefusal("q", AnswerSignal{}, minScore(0.4))
	if err != nil || !d.Refused || d.By != ByNoHits {
		t.Errorf("no hits: %+v %v", d, err)
	}
}
