package gate

import (
	"reflect"
	"strings"
	"testing"
)

// contextSet is two queries: q1 needs the fact "Settings → Keys", which
// only passage keys#2 holds; q2 has two gold documents and no evidence.
func contextSet(t *testing.T) *Set {
	t.Helper()
	s, err := ParseSet(strings.NewReader(
		`{"id":"q1","query":"rotate api key","gold":{"keys":3},"evidence":["Settings → Keys"],"segments":["keys"]}`+"\n"+
			`{"id":"q2","query":"token expiry","gold":{"tokens":2,"limits":1}}`+"\n"), "context.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tokens(n int) *int { return &n }

// contextCard scores both queries on the same hits (so every document
// score is the same on both sides) with the given final contexts.
func contextCard(t *testing.T, s *Set, q1, q2 []Passage) *Scorecard {
	t.Helper()
	sc := NewScorer(s, Depth{Candidates: 10, Context: 3})
	for _, r := range []Result{
		{ID: "q1", Hits: []Hit{{Doc: "keys", Chunk: "keys#1"}, {Doc: "keys", Chunk: "keys#2"}, {Doc: "other"}}, Context: q1},
		{ID: "q2", Hits: []Hit{{Doc: "tokens"}, {Doc: "limits"}, {Doc: "other"}}, Context: q2},
	} {
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

var (
	keys1  = Passage{Doc: "keys", Chunk: "keys#1", Text: "Keys are secrets.", Tokens: tokens(3)}
	keys2  = Passage{Doc: "keys", Chunk: "keys#2", Text: "Open settings -> keys and press Rotate.", Tokens: tokens(7)}
	other  = Passage{Doc: "other", Text: "Unrelated words."}
	tokP   = Passage{Doc: "tokens", Chunk: "tokens#1", Text: "Tokens expire after 90 days."}
	limitP = Passage{Doc: "limits", Chunk: "limits#4", Text: "Rate limits apply."}
)

// TestContextStageScores: hand-computed context recall, coverage and size
// of the pipeline's own context; coverage is not applicable without
// evidence, never 1.0.
func TestContextStageScores(t *testing.T) {
	s := contextSet(t)
	c := contextCard(t, s, []Passage{keys1, keys2, other}, []Passage{tokP})
	q1, q2 := c.Queries[0].Context, c.Queries[1].Context
	if q1.Source != ContextOwn || q1.Size != 3 || q1.Tokens != 3+7+2 || q1.Recall() != 1 {
		t.Fatalf("q1 %+v", q1)
	}
	if v, ok := q1.Coverage(); !ok || v != 1 || q1.Facts[0].Passage != "keys#2" {
		t.Errorf("q1 coverage %v %v %+v", v, ok, q1.Facts)
	}
	if q2.Recall() != 0.5 || q2.Tokens != 5 || q2.HasEvidence() {
		t.Errorf("q2 %+v", q2)
	}
	if v, ok := q2.Coverage(); ok || v != 0 {
		t.Errorf("q2 has no evidence: coverage %v %v, want not applicable", v, ok)
	}
	cs := c.Summary.Context
	if cs == nil || cs.Queries != 2 || cs.Own != 2 || cs.EvidenceQueries != 1 || cs.Coverage != 1 || cs.Recall != 0.75 || cs.Source() != "the pipeline's own" {
		t.Errorf("summary %+v", cs)
	}
	if other := (&ContextStage{Passages: []ContextPassage{{Doc: "other"}}}).PassageLabel(0); other != "other, passage 1" {
		t.Errorf("label %q", other)
	}
	// Without the answer's context: packed from the hits' text, said so.
	sc := NewScorer(s, Depth{Candidates: 10, Context: 3, ContextTokens: 2000})
	sc.Add(Result{ID: "q1", Hits: []Hit{{Doc: "keys", Chunk: "keys#2", Text: keys2.Text}}})
	sc.Add(Result{ID: "q2", Hits: []Hit{{Doc: "tokens"}}})
	pc, _ := sc.Card()
	if p := pc.Queries[0].Context; p == nil || p.Source != ContextPacked || p.Tokens != 7 || p.FactsFound != 1 {
		t.Errorf("packed %+v", p)
	}
	if pc.Queries[1].Context != nil {
		t.Errorf("no text, no context: %+v", pc.Queries[1].Context)
	}
	if got := pc.Summary.Context.Source(); got != "packed by recallgate from the hits, context_tokens = 2000" {
		t.Errorf("source %q", got)
	}
}

// TestFactsLostByDedup: the head's pipeline dedups away keys#2, the one
// passage holding q1's fact; the documents and nDCG are the same on both
// sides, and max_facts_lost (default 0) fails naming the passage.
func TestFactsLostByDedup(t *testing.T) {
	s := contextSet(t)
	base := contextCard(t, s, []Passage{keys1, keys2, other}, []Passage{tokP, limitP})
	head := contextCard(t, s, []Passage{keys1, other}, []Passage{tokP, limitP})
	c, err := Compare(base, head, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	p := c.Query("q1")
	if !reflect.DeepEqual(p.Delta, Delta{More: make([]float64, len(p.Delta.More))}) || p.Change != Unchanged {
		t.Fatalf("documents moved: %+v %s", p.Delta, p.Change)
	}
	if c.Verdict != Fail {
		t.Fatalf("verdict %s, reasons %v", c.Verdict, c.Reasons)
	}
	r := findRule(c, RuleFactsLost, "")
	if r == nil || r.Outcome != RuleFail || r.Value != 1 || r.Base != 1 || r.Head != 0 {
		t.Fatalf("rule %+v", r)
	}
	if want := `q1 "Settings → Keys" (base: keys#2; head: keys#1)`; !strings.Contains(r.Why, want) {
		t.Errorf("why %q, want it to hold %q", r.Why, want)
	}
	if len(p.FactsLost) != 1 || p.FactsLost[0].Passage != "keys#2" || p.FactsLost[0].Instead != "keys#1" {
		t.Errorf("facts lost %+v", p.FactsLost)
	}
	var miss *GoldMove
	for i := range p.Moves {
		if p.Moves[i].Cause == CauseContext {
			miss = &p.Moves[i]
		}
	}
	if miss == nil || miss.Doc != "keys" || miss.HeadRank != 1 || miss.Fact != "Settings → Keys" || miss.Passage != "keys#2" || miss.TookItsPlace != "keys#1" {
		t.Errorf("context miss %+v in %+v", miss, p.Moves)
	}
	// A waiver for the rule accepts it; max_facts_lost = 1 passes it.
	pol := Policy{Thresholds: DefaultThresholds(), Waivers: []Waiver{{Query: "q1", Reason: "dedup on purpose", Rules: []string{RuleFactsLost}}}}
	if c, _ := CompareWith(base, head, pol); c.Verdict != Pass {
		t.Errorf("waived: %s %v", c.Verdict, c.Reasons)
	}
	one := DefaultThresholds()
	one.MaxFactsLost = tokens(1)
	if c, _ := Compare(base, head, one); c.Verdict != Pass {
		t.Errorf("max_facts_lost 1: %s %v", c.Verdict, c.Reasons)
	}
}

// TestContextRecallBudgetCut: the head's budget cuts limits#4, the only
// passage of q2's second gold document: context recall 1 → 0.5 on q2, a
// mean drop of 0.25 over the two queries, which fails a limit of 0.1.
func TestContextRecallBudgetCut(t *testing.T) {
	s := contextSet(t)
	base := contextCard(t, s, []Passage{keys2}, []Passage{tokP, limitP})
	head := contextCard(t, s, []Passage{keys2}, []Passage{tokP})
	th := DefaultThresholds()
	if c, _ := Compare(base, head, th); c.Verdict != Pass || findRule(c, RuleContextRecallDrop, "") != nil {
		t.Fatalf("off by default: %s %v", c.Verdict, c.Reasons)
	}
	limit := 0.1
	th.MaxContextRecallDrop = &limit
	c, err := Compare(base, head, th)
	if err != nil {
		t.Fatal(err)
	}
	r := findRule(c, RuleContextRecallDrop, "")
	if c.Verdict != Fail || r == nil || r.Outcome != RuleFail || !near(r.Value, 0.25) || r.Base != 1 || r.Head != 0.75 || r.Flipped != 1 {
		t.Fatalf("%s rule %+v", c.Verdict, r)
	}
	if !strings.Contains(r.Why, "mean context recall dropped by 0.250 (limit 0.100, max_context_recall_drop)") {
		t.Errorf("why %q", r.Why)
	}
	// Evidence coverage is the same (q1's fact stays): that rule passes.
	th.MaxEvidenceDrop = &limit
	c, _ = Compare(base, head, th)
	if r := findRule(c, RuleEvidenceDrop, ""); r == nil || r.Outcome != RulePass || r.Queries != 1 {
		t.Errorf("evidence rule %+v", r)
	}
	// Runs without any final context: the context rules are skipped, never passed.
	plain := ruleSetNoText(t, s)
	c, _ = Compare(plain, plain, th)
	for _, name := range []string{RuleContextRecallDrop, RuleEvidenceDrop, RuleFactsLost} {
		if r := findRule(c, name, ""); r == nil || r.Outcome != RuleSkipped || !strings.Contains(r.Note, "no query has") {
			t.Errorf("%s without contexts: %+v", name, r)
		}
	}
}

func ruleSetNoText(t *testing.T, s *Set) *Scorecard {
	t.Helper()
	c, err := ScoreResults(s, []Result{{ID: "q1", Hits: hits("keys")}, {ID: "q2", Hits: hits("tokens")}}, Depth{Candidates: 10, Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func findRule(c *Comparison, name, segment string) *RuleResult {
	for i := range c.Rules {
		if c.Rules[i].Name == name && c.Rules[i].Segment == segment {
			return &c.Rules[i]
		}
	}
	return nil
}

// TestWordsAndNormalize: the fast paths agree with strings.Fields and
// with the Unicode path.
func TestWordsAndNormalize(t *testing.T) {
	for _, s := range []string{"", "  a  b\tc\n", "Settings → Keys", "x\u00a0y z", "ÉTÉ  été", "a-b,c  TP-429: wait!"} {
		if got, want := words(s), len(strings.Fields(s)); got != want {
			t.Errorf("words(%q) = %d, want %d", s, got, want)
		}
		if got, want := normalize(s), normalizeUnicode(s); got != want {
			t.Errorf("normalize(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestContextRulesLikeTheOthers: min_flipped and require_significance make
// a context-recall drop beyond its limit inconclusive, as for nDCG; a
// segment rule gates facts lost in its segment alone.
func TestContextRulesLikeTheOthers(t *testing.T) {
	s := contextSet(t)
	base := contextCard(t, s, []Passage{keys1, keys2}, []Passage{tokP, limitP})
	head := contextCard(t, s, []Passage{keys1}, []Passage{tokP})
	limit := 0.1
	th := DefaultThresholds()
	th.MaxContextRecallDrop, th.MinFlipped = &limit, 2
	c, _ := Compare(base, head, th)
	if r := findRule(c, RuleContextRecallDrop, ""); r == nil || r.Outcome != RuleInconclusive || !strings.Contains(r.Note, "min_flipped 2") {
		t.Errorf("min_flipped: %+v", r)
	}
	th.MinFlipped, th.RequireSignificance = 1, true
	c, _ = Compare(base, head, th)
	if r := findRule(c, RuleContextRecallDrop, ""); r == nil || r.Outcome != RuleInconclusive || !strings.Contains(r.Note, "not significant") {
		t.Errorf("significance: %+v", r)
	}
	off := (*int)(nil)
	th = DefaultThresholds()
	th.MaxFactsLost, th.MinSegmentQueries = off, 1
	th.Segments = []SegmentRule{{Name: "keys", Limits: Limits{MaxFactsLost: tokens(0)}}}
	c, err := Compare(base, head, th)
	if err != nil {
		t.Fatal(err)
	}
	if findRule(c, RuleFactsLost, "") != nil {
		t.Error("max_facts_lost off for the whole set, yet applied")
	}
	if r := findRule(c, RuleFactsLost, "keys"); r == nil || r.Outcome != RuleFail || r.Queries != 1 || !strings.HasPrefix(r.Why, "segment keys: 1 required fact") {
		t.Errorf("segment rule: %+v", r)
	}
}
