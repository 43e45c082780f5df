package gate

import (
	"strings"
	"testing"
)

// TestHeadDroppingContextCannotPass: the base's pipeline sends its own
// context holding q1's fact; the head's answers drop "context" and their
// hits carry no text, so the head has no final context to read. That must
// not turn max_facts_lost (on by default) or the context-recall and
// coverage rules into skipped: they are inconclusive and name the queries.
func TestHeadDroppingContextCannotPass(t *testing.T) {
	s := contextSet(t)
	base := contextCard(t, s, []Passage{keys1, keys2}, []Passage{tokP, limitP})
	head := contextCard(t, s, nil, nil) // no context, hits without text
	if head.Queries[0].Context != nil {
		t.Fatalf("head q1 has a context %+v", head.Queries[0].Context)
	}
	limit := 0.1
	th := DefaultThresholds()
	th.MaxContextRecallDrop, th.MaxEvidenceDrop = &limit, &limit
	c, err := Compare(base, head, th)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict == Pass {
		t.Fatalf("a head without any final context passes: %v", c.Reasons)
	}
	for _, name := range []string{RuleFactsLost, RuleContextRecallDrop, RuleEvidenceDrop} {
		r := findRule(c, name, "")
		if r == nil || r.Outcome != RuleInconclusive || !strings.Contains(r.Why, "q1") || !strings.Contains(r.Why, "cannot pass") {
			t.Errorf("%s: %+v", name, r)
		}
	}
	// Only some queries dropped: q2 keeps its context, q1 (the one with
	// the fact) drops it; still not a pass.
	head = contextCard(t, s, nil, []Passage{tokP, limitP})
	c, _ = Compare(base, head, DefaultThresholds())
	if r := findRule(c, RuleFactsLost, ""); c.Verdict == Pass || r == nil || r.Outcome != RuleInconclusive {
		t.Errorf("q1 alone dropped: %s %+v", c.Verdict, r)
	}
	// A waiver of q1 for the rule accepts it.
	pol := Policy{Thresholds: DefaultThresholds(), Waivers: []Waiver{{Query: "q1", Reason: "context moved to the reranker", Rules: []string{RuleFactsLost}}}}
	if c, _ := CompareWith(base, head, pol); c.Verdict != Pass {
		t.Errorf("waived: %s %v", c.Verdict, c.Reasons)
	}
	// Neither side has a context: skipped, as before.
	c, _ = Compare(head, head, DefaultThresholds())
	if c.Verdict != Pass {
		t.Errorf("same head twice: %s %v", c.Verdict, c.Reasons)
	}
}

// TestHeadFallingBackToPackingCannotPass: the base's pipeline sends its
// own context, the head's drops "context" on q1 while its hits carry the
// fact's text: recallgate's packing finds the fact, but that is not what
// the head's model read, so max_facts_lost is inconclusive, not a pass.
func TestHeadFallingBackToPackingCannotPass(t *testing.T) {
	s := contextSet(t)
	base := contextCard(t, s, []Passage{keys1, keys2}, []Passage{tokP, limitP})
	sc := NewScorer(s, Depth{Candidates: 10, Context: 3})
	for _, r := range []Result{
		{ID: "q1", Hits: []Hit{{Doc: "keys", Chunk: "keys#1", Text: keys1.Text}, {Doc: "keys", Chunk: "keys#2", Text: keys2.Text}, {Doc: "other"}}},
		{ID: "q2", Hits: []Hit{{Doc: "tokens"}, {Doc: "limits"}, {Doc: "other"}}, Context: []Passage{tokP, limitP}},
	} {
		if err := sc.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	head, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	if head.Queries[0].Context.Source != ContextPacked || head.Queries[0].Context.FactsFound != 1 {
		t.Fatalf("head q1 %+v", head.Queries[0].Context)
	}
	c, _ := Compare(base, head, DefaultThresholds())
	r := findRule(c, RuleFactsLost, "")
	if c.Verdict == Pass || r == nil || r.Outcome != RuleInconclusive || !strings.Contains(r.Why, "(q1)") {
		t.Errorf("verdict %s, rule %+v", c.Verdict, r)
	}
	// The other way round (the head gains its own context) is no drop.
	c, _ = Compare(head, base, DefaultThresholds())
	if c.Verdict != Pass {
		t.Errorf("head gaining its own context: %s %v", c.Verdict, c.Reasons)
	}
}
