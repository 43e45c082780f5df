package gate

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// compareRepeats compares the first base repeat with the worst-of-repeats
// head, with the policy the pipeline builds from the repeats.
func compareRepeats(t *testing.T, th Thresholds, base, head []*Scorecard) *Comparison {
	t.Helper()
	_, bUnstable, bFewest := CompareRepeats(base)
	hWorst, hUnstable, _ := CompareRepeats(head)
	c, err := CompareWith(base[0], hWorst, Policy{Thresholds: th, Unstable: bUnstable, BaseFewestFound: bFewest, HeadUnstable: hUnstable})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestColdHeadCannotHideBehindRepeats: a head that answers wrong on its
// first call per query and right on the second (a cold cache), with
// repeats = 2, used to make every query "unstable" and pass with recall
// 1.000 → 0.000. Now the head is judged at its worst repeat: thirty new
// zero-recall queries, fail.
func TestColdHeadCannotHideBehindRepeats(t *testing.T) {
	s := ruleSet(t, false)
	stable := ruleCard(t, s, nil)
	cold := ruleCard(t, s, firstM(30, "x1", "x2", "x3"))
	c := compareRepeats(t, DefaultThresholds(), []*Scorecard{stable, ruleCard(t, s, nil)}, []*Scorecard{cold, ruleCard(t, s, nil)})
	if c.Verdict != Fail {
		t.Fatalf("verdict %s, want fail; reasons %q", c.Verdict, c.Reasons)
	}
	if len(c.Unstable) != 0 || len(c.HeadUnstable) != 30 || len(c.NewMisses) != 30 || c.Head.Recall != 0 || c.Base.Recall != 1 {
		t.Errorf("unstable %v head unstable %d new misses %d, recall %.3f → %.3f", c.Unstable, len(c.HeadUnstable), len(c.NewMisses), c.Base.Recall, c.Head.Recall)
	}
	miss := rule(t, c, RuleNewMisses, "")
	if miss.Outcome != RuleFail || !strings.Contains(miss.Why, "30 queries newly at zero recall") || !strings.Contains(miss.Why, "head unstable, at its worst repeat: q01, q02") {
		t.Errorf("new-miss rule %+v", miss)
	}
	if !slices.Contains(c.ReasonKinds, ReasonNote) || !strings.Contains(strings.Join(c.Reasons, "\n"), "30 queries changed between repeats of the head") {
		t.Errorf("reasons %q kinds %q: want the head-unstable note", c.Reasons, c.ReasonKinds)
	}
	// The order of the repeats does not matter: warm first, cold second.
	c = compareRepeats(t, DefaultThresholds(), []*Scorecard{stable, stable}, []*Scorecard{ruleCard(t, s, nil), cold})
	if c.Verdict != Fail || len(c.NewMisses) != 30 {
		t.Errorf("warm first: verdict %s, %d new misses", c.Verdict, len(c.NewMisses))
	}
}

// TestHeadUnstableIsAtBestInconclusive: when the worst repeat breaks no
// rule the verdict is inconclusive, naming the queries; the worst repeat
// is the one with fewer relevant documents found, then the lower nDCG.
func TestHeadUnstableIsAtBestInconclusive(t *testing.T) {
	s := ruleSet(t, false)
	th := DefaultThresholds()
	th.MaxRecallDrop = 0.1
	stable := ruleCard(t, s, nil)
	// q01: both repeats find all three, the first with gA and gB swapped
	// (lower nDCG). q02: the first finds gA only (recall 1/3, nDCG high),
	// the second gB and gC (recall 2/3, nDCG lower): the first is worst.
	h1 := ruleCard(t, s, map[int][]string{1: {"gB", "gA", "gC"}, 2: {"gA", "x1", "x2"}})
	h2 := ruleCard(t, s, map[int][]string{2: {"gB", "gC", "x1"}})
	c := compareRepeats(t, th, []*Scorecard{stable, stable}, []*Scorecard{h1, h2})
	if c.Verdict != Inconclusive {
		t.Fatalf("verdict %s, want inconclusive; reasons %q", c.Verdict, c.Reasons)
	}
	if strings.Join(c.HeadUnstable, ",") != "q01,q02" {
		t.Errorf("head unstable %v, want q01,q02", c.HeadUnstable)
	}
	if q := c.Query("q01"); !q.HeadUnstable || math.Abs(q.Head.NDCG-(1-swapDrop)) > 1e-9 || q.Head.Found != 3 {
		t.Errorf("q01 head %+v, want the swapped repeat (nDCG %.4f)", q.Head, 1-swapDrop)
	}
	if q := c.Query("q02"); q.Head.Found != 1 || q.Change != Regressed {
		t.Errorf("q02 head found %d change %s, want the repeat that found 1", q.Head.Found, q.Change)
	}
	// Means are those of the worst-of-repeats run: (28 + 1 + 1/3) / 30.
	if want := (29 + 1.0/3) / 30; math.Abs(c.Head.Recall-want) > 1e-9 {
		t.Errorf("head recall %.6f, want %.6f", c.Head.Recall, want)
	}
	want := "2 queries changed between repeats of the head (q01, q02): each was judged at its worst repeat"
	if i := slices.Index(c.ReasonKinds, ReasonInconclusive); i < 0 || !strings.HasPrefix(c.Reasons[i], want) {
		t.Errorf("reasons %q kinds %q, want %q", c.Reasons, c.ReasonKinds, want)
	}
	// The same head with identical repeats passes.
	if c := compareRepeats(t, th, []*Scorecard{stable, stable}, []*Scorecard{h2, h2}); c.Verdict != Pass || len(c.HeadUnstable) != 0 {
		t.Errorf("stable head: verdict %s, head unstable %v", c.Verdict, c.HeadUnstable)
	}
}

// TestBaseNoiseExcusesFlipsNotNewMisses: a query whose base repeats
// disagree is kept out of the flips, but one every base repeat answered
// and the head does not is still a new miss.
func TestBaseNoiseExcusesFlipsNotNewMisses(t *testing.T) {
	s := ruleSet(t, false)
	// q03: base finds 3, then 1; q04: base finds 3, then 0.
	b1, b2 := ruleCard(t, s, nil), ruleCard(t, s, map[int][]string{3: {"gA", "x1"}, 4: {"x1"}})
	head := ruleCard(t, s, map[int][]string{3: {"x1"}, 4: {"x1"}})
	c := compareRepeats(t, DefaultThresholds(), []*Scorecard{b1, b2}, []*Scorecard{head, head})
	if strings.Join(c.Unstable, ",") != "q03,q04" || len(c.HeadUnstable) != 0 {
		t.Errorf("unstable %v head unstable %v", c.Unstable, c.HeadUnstable)
	}
	if strings.Join(c.NewMisses, ",") != "q03" || c.Verdict != Fail || len(c.Regressed) != 0 {
		t.Errorf("new misses %v regressed %v verdict %s, want q03 only, failing", c.NewMisses, c.Regressed, c.Verdict)
	}
}
