package gate

import (
	"fmt"
	"strings"
	"testing"
)

// madeUpCase is ten queries (gold dNN 1, z judged 0) at N = 3, k = 1: the
// base returns dNN, z, f; the head puts an id of its own before the gold
// on every query (made(i)). The corpus holds the gold, z and f.
func madeUpCase(t *testing.T, made func(i int) string) (base, head *Scorecard, corpus map[string]bool) {
	t.Helper()
	var b strings.Builder
	corpus = map[string]bool{"z": true, "f": true}
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `{"id":"q%02d","query":"question %d","gold":{"d%02d":1,"z":0}}`+"\n", i, i, i)
		corpus[fmt.Sprintf("d%02d", i)] = true
	}
	set, err := ParseSet(strings.NewReader(b.String()), "made-up.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := Depth{Candidates: 3, Context: 1}
	base = monotoneCard(t, set, d, listsOf(10, func(i int) []string { return []string{fmt.Sprintf("d%02d", i), "z", "f"} }))
	head = monotoneCard(t, set, d, listsOf(10, func(i int) []string { return []string{made(i), fmt.Sprintf("d%02d", i), "z"} }))
	return base, head, corpus
}

// listsOf is query i's list (from 1) for n queries.
func listsOf(n int, list func(i int) []string) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = list(i + 1)
	}
	return out
}

// TestMadeUpIDsJudgedNonRelevant: the head's top 1 on all ten queries is
// an id the corpus does not hold (zz-q01 …). With the corpus known they
// are no documents: judged non-relevant, so precision@1 1 → 0 (drop 1.000)
// and nDCG@1 1 → 0 fail the gate, nothing is unjudged, no range, no label
// debt, and the comparison counts the ten ids on the head's side. With
// the corpus unknown nothing changes: they are documents nobody judged,
// and the drops are inconclusive.
func TestMadeUpIDsJudgedNonRelevant(t *testing.T) {
	base, head, corpus := madeUpCase(t, func(i int) string { return fmt.Sprintf("zz-q%02d", i) })
	th := DefaultThresholds()
	c, err := CompareWith(base, head, Policy{Thresholds: th, Corpus: corpus})
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Fail {
		t.Errorf("corpus known: verdict %s %q, want fail", c.Verdict, c.Reasons)
	}
	for _, name := range []string{RulePrecisionDrop, RuleNDCGDrop} {
		if r := rule(t, c, name, ""); r.Outcome != RuleFail {
			t.Errorf("corpus known: %s %s (%s), want fail", name, r.Outcome, r.Note)
		}
	}
	if r := rule(t, c, RulePrecisionDrop, ""); r.Value != 1 {
		t.Errorf("precision@1 drop %v, want 1", r.Value)
	}
	if c.HeadRange != nil {
		t.Errorf("corpus known: a range over ids that are no documents: %+v", c.HeadRange)
	}
	for _, p := range c.Queries {
		if p.HeadUnjudged.AtK != 0 || p.HeadUnjudged.AtN != 0 || len(p.NewUnjudged) != 0 {
			t.Errorf("%s: unjudged %+v, new %v: an id the corpus lacks is no label debt", p.Query.ID, p.HeadUnjudged, p.NewUnjudged)
		}
	}
	n := c.NotInCorpus
	if n == nil || n.Count != [2]int{0, 10} || n.Queries != [2]int{0, 10} || len(n.First[1]) != MaxNotInCorpusShown || n.First[1][0] != "zz-q01" || len(n.First[0]) != 0 {
		t.Errorf("not in corpus %+v, want head 10 in 10 queries, zz-q01 first", n)
	}

	th.Unjudged = UnjudgedRangeMode
	c, err = CompareWith(base, head, Policy{Thresholds: th})
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Inconclusive || c.NotInCorpus != nil || c.HeadRange == nil || c.HeadRange.Docs != 10 {
		t.Errorf("corpus unknown: verdict %s, not in corpus %+v, range %+v; want inconclusive as before, ten unjudged", c.Verdict, c.NotInCorpus, c.HeadRange)
	}
}

// TestLookAlikeIDsJudgedNonRelevant: ids that read as the gold d01 but are
// not it (a trailing or a leading space, a zero-width space, full-width
// letters) are ids the corpus does not hold: judged non-relevant like any
// made-up id, never "nobody judged".
func TestLookAlikeIDsJudgedNonRelevant(t *testing.T) {
	for name, made := range map[string]func(i int) string{
		"trailing space": func(i int) string { return fmt.Sprintf("d%02d ", i) },
		"leading space":  func(i int) string { return fmt.Sprintf(" d%02d", i) },
		"zero-width":     func(i int) string { return fmt.Sprintf("d\u200b%02d", i) },
		"full-width":     func(i int) string { return fmt.Sprintf("\uff44%02d", i) },
	} {
		base, head, corpus := madeUpCase(t, made)
		c, err := CompareWith(base, head, Policy{Thresholds: DefaultThresholds(), Corpus: corpus})
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict != Fail || c.HeadRange != nil || c.NotInCorpus == nil || c.NotInCorpus.Count[1] != 10 {
			t.Errorf("%s: verdict %s %q, range %+v, not in corpus %+v; want fail, no range, 10 ids", name, c.Verdict, c.Reasons, c.HeadRange, c.NotInCorpus)
		}
	}
}

// TestUnknownRunIDsShownMarked: a run answering "q01 " (a trailing space)
// for the set's q01 is warned about with the id marked, so the warning
// does not read "not in the set: q01" of a query that is.
func TestUnknownRunIDsShownMarked(t *testing.T) {
	set, err := ParseSet(strings.NewReader(`{"id":"q01","query":"one","gold":{"a":1}}`+"\n"+`{"id":"q02","query":"two","gold":{"b":1}}`+"\n"), "two.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScorer(set, Depth{Candidates: 3, Context: 1})
	for _, r := range []Result{{ID: "q01 ", Hits: hits("a")}, {ID: "q02", Hits: hits("b")}} {
		if err := sc.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(c.RunWarnings(), "\n"); !strings.Contains(w, "not in the set and were ignored: q01⟨U+0020⟩") {
		t.Errorf("warnings %q, want the run's id q01⟨U+0020⟩ marked", w)
	}
}
