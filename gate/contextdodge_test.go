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

// TestContextTokensBounded: a passage claiming 2^63−1 tokens is refused
// naming the query and the field (as the HTTP retriever refuses past
// 2^31−1), so a context's size can never wrap round to a negative sum.
func TestContextTokensBounded(t *testing.T) {
	big := `{"id":"q1","hits":[],"context":[{"doc":"a","tokens":9223372036854775807},{"doc":"b","tokens":9223372036854775807}]}`
	_, err := ParseResult([]byte(big), "run.jsonl")
	if err == nil || !strings.Contains(err.Error(), "context[0].tokens") || !strings.Contains(err.Error(), `"q1"`) {
		t.Fatalf("err = %v, want a refusal naming q1 and context[0].tokens", err)
	}
	ok := `{"id":"q1","hits":[],"context":[{"doc":"a","tokens":2147483647}]}`
	if _, err := ParseResult([]byte(ok), "run.jsonl"); err != nil {
		t.Errorf("2^31-1 tokens: %v", err)
	}
}

// TestRunContextErrorsNamed: a run line's context keeps its errors'
// fields and query through the one-passage-at-a-time reader.
func TestRunContextErrorsNamed(t *testing.T) {
	for line, want := range map[string]string{
		`{"id":"q1","hits":[],"context":[{"doc":"a","extra":1}]}`:                                                    `run.jsonl: context[0].extra: query "q1": unknown field`,
		`{"id":"q1","hits":[],"context":[{"doc":"a"},{"doc":"b","tokens":"x"}]}`:                                     `run.jsonl: context[1].tokens: query "q1": wrong type: got JSON string, want`,
		`{"id":"q1","hits":[],"context":"a"}`:                                                                        `run.jsonl: context: wrong type: got JSON string, want`,
		`{"id":"q1","hits":[],"context":[` + strings.Repeat(`{"doc":"a"},`, MaxRunContextPassages) + `{"doc":"a"}]}`: `run.jsonl: context[10000]: query "q1": the context holds more than 10000 passages`,
	} {
		_, err := ParseResult([]byte(line), "run.jsonl")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.80s: err = %v, want %q", line, err, want)
		}
	}
	line := `{"id":"q1","hits":[],"context":[` + strings.Repeat(`{"doc":"a"},`, MaxRunContextPassages-1) + `{"doc":"a"}]}`
	if r, err := ParseResult([]byte(line), "run.jsonl"); err != nil || len(r.Context) != MaxRunContextPassages {
		t.Errorf("at the cap: %d passages, %v", len(r.Context), err)
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
