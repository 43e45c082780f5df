package gate

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// verdictRank orders verdicts from best to worst: pass < inconclusive < fail.
var verdictRank = map[Verdict]int{Pass: 0, Inconclusive: 1, Fail: 2}

// monotoneSet is n queries with three gold documents of grade 1 each; the
// first half declare the segment "front".
func monotoneSet(t *testing.T, n int) *Set {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		seg := ""
		if i <= n/2 {
			seg = `,"segments":["front"]`
		}
		fmt.Fprintf(&b, `{"id":"q%02d","query":"how does thing %d work","gold":{"g1":1,"g2":1,"g3":1}%s}`+"\n", i, i, seg)
	}
	s, err := ParseSet(strings.NewReader(b.String()), "monotone.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func monotoneCard(t *testing.T, s *Set, d Depth, lists [][]string) *Scorecard {
	t.Helper()
	sc := NewScorer(s, d)
	for i, q := range s.Queries {
		if err := sc.Add(Result{ID: q.ID, Hits: hits(lists[i]...)}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHolmMonotoneHandCase is the case of issue #41 under the base's
// require_significance (max_recall_drop 0.02, max_new_misses 0, the
// default nDCG@1 and precision@1 drops of 0.05; N = 10, k = 1) on ten
// queries of gold a, b. Head A loses b on q01–q06 (recall@10 1 → 0.5
// there, top 1 still a): one rule breached, sign-flip p = 2/2^6 = 0.03125.
// Head B also pushes a to rank 2 behind a filler (precision@1 and nDCG@1
// 1 → 0 there): strictly worse, three rules breached at p = 0.03125 each.
// The family is the three tested rules the policy sets, breached or not:
// A's recall p is adjusted 3 · 0.03125 = 0.09375 (precision and nDCG hold
// their places at p = 1), and B's three are 0.09375 each. Both are
// inconclusive; before, A failed (a family of one) and B, worse, read
// inconclusive.
func TestHolmMonotoneHandCase(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `{"id":"q%02d","query":"question %d","gold":{"a":1,"b":1}}`+"\n", i, i)
	}
	set, err := ParseSet(strings.NewReader(b.String()), "ten.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := Depth{Candidates: 10, Context: 1}
	lists := func(lost []string) [][]string {
		out := make([][]string, 10)
		for i := range out {
			out[i] = []string{"a", "b", "x1", "x2"}
			if i < 6 {
				out[i] = lost
			}
		}
		return out
	}
	base := monotoneCard(t, set, d, lists([]string{"a", "b", "x1", "x2"}))
	headA := monotoneCard(t, set, d, lists([]string{"a", "x1", "x2"}))
	headB := monotoneCard(t, set, d, lists([]string{"x1", "a", "x2"}))
	th := DefaultThresholds()
	th.MaxRecallDrop, th.MaxNewMisses, th.RequireSignificance = 0.02, 0, true
	cA, err := Compare(base, headA, th)
	if err != nil {
		t.Fatal(err)
	}
	cB, err := Compare(base, headB, th)
	if err != nil {
		t.Fatal(err)
	}
	if verdictRank[cB.Verdict] < verdictRank[cA.Verdict] {
		t.Errorf("the strictly worse head reads better: A (one rule breached) %s, B (three) %s", cA.Verdict, cB.Verdict)
	}
	for _, tt := range []struct {
		name   string
		c      *Comparison
		tested []string
	}{
		{"A", cA, []string{RuleRecallDrop}},
		{"B", cB, []string{RuleRecallDrop, RuleNDCGDrop, RulePrecisionDrop}},
	} {
		if tt.c.Verdict != Inconclusive || tt.c.HolmFamily != 3 {
			t.Errorf("%s: verdict %s, Holm family %d; want inconclusive over a family of 3 (%q)", tt.name, tt.c.Verdict, tt.c.HolmFamily, tt.c.Reasons)
		}
		for _, name := range tt.tested {
			r := rule(t, tt.c, name, "")
			if r.PValue == nil || r.AdjustedP == nil || math.Abs(*r.PValue-0.03125) > 1e-12 || math.Abs(*r.AdjustedP-0.09375) > 1e-12 || r.Outcome != RuleInconclusive {
				t.Errorf("%s: %s p %v adjusted %v %s, want 0.03125 → 0.09375 inconclusive", tt.name, name, deref(r.PValue), deref(r.AdjustedP), r.Outcome)
			}
		}
	}
}

// TestHolmMonotoneProperty: over many random comparisons (seeded, so the
// same every run) with significance required, a head made strictly worse
// (some relevant documents of its lists replaced by non-relevant ones,
// which can lower and never raise any query's recall, precision, nDCG or
// reciprocal rank) never gets a better verdict: pass < inconclusive <
// fail. The sets stay at 14 queries or fewer, where the sign-flip test is
// exact (ExactFlipLimit is 20) and quick.
func TestHolmMonotoneProperty(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	pool := []string{"g1", "g2", "g3", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}
	limits := []float64{0, 0.01, 0.02, 0.05, 0.1}
	randomList := func() []string {
		p := append([]string(nil), pool...)
		r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		return p[:3+r.Intn(5)]
	}
	trials, worse := 1000, 0
	for trial := 0; trial < trials; trial++ {
		n := 6 + r.Intn(9) // 6–14 queries
		set := monotoneSet(t, n)
		d := Depth{Candidates: 5, Context: 1 + r.Intn(3)}
		baseLists, headLists, worseLists := make([][]string, n), make([][]string, n), make([][]string, n)
		// damage replaces each relevant document of list by a filler no
		// list holds with probability 1/odds; loseOne replaces one of them.
		damage := func(list []string, odds int) []string {
			w := append([]string(nil), list...)
			for j, doc := range w {
				if strings.HasPrefix(doc, "g") && r.Intn(odds) == 0 {
					w[j] = fmt.Sprintf("y%d", j)
				}
			}
			return w
		}
		loseOne := func(list []string) []string {
			w := append([]string(nil), list...)
			var gold []int
			for j, doc := range w {
				if strings.HasPrefix(doc, "g") {
					gold = append(gold, j)
				}
			}
			if len(gold) > 0 {
				j := gold[r.Intn(len(gold))]
				w[j] = fmt.Sprintf("y%d", j)
			}
			return w
		}
		// demote swaps the first relevant document with the first filler
		// after it: recall@N stays, precision@k, nDCG@k and RR can only
		// fall.
		demote := func(list []string) []string {
			w := append([]string(nil), list...)
			for j, doc := range w {
				if !strings.HasPrefix(doc, "g") {
					continue
				}
				for f := j + 1; f < len(w); f++ {
					if !strings.HasPrefix(w[f], "g") {
						w[j], w[f] = w[f], w[j]
						return w
					}
				}
				return w
			}
			return w
		}
		// Half the trials move every query at random; the other half lose
		// one relevant document on some queries and leave the rest as the
		// base has them (ties: the small p-values near Alpha).
		sparse := r.Intn(2) == 0
		for i := 0; i < n; i++ {
			baseLists[i] = randomList()
			if sparse {
				// The base finds every relevant document first.
				baseLists[i] = append([]string{"g1", "g2", "g3"}, pool[3:3+r.Intn(5)]...)
			}
			switch {
			case sparse && r.Intn(2) == 0:
				headLists[i] = loseOne(baseLists[i])
			case sparse:
				headLists[i] = baseLists[i]
			case r.Intn(3) == 0:
				headLists[i] = baseLists[i]
			case r.Intn(2) == 0:
				headLists[i] = randomList()
			default:
				headLists[i] = damage(baseLists[i], 2)
			}
			worseLists[i] = headLists[i]
			switch {
			case sparse && r.Intn(3) == 0:
				worseLists[i] = loseOne(headLists[i])
			case sparse && r.Intn(2) == 0:
				worseLists[i] = demote(headLists[i])
			case !sparse && r.Intn(2) == 0:
				worseLists[i] = damage(headLists[i], 2)
			}
		}
		th := Thresholds{MaxRecallDrop: limits[r.Intn(len(limits))], MaxNewMisses: r.Intn(3), RequireSignificance: true, MinFlipped: 1 + r.Intn(3)}
		if r.Intn(2) == 0 {
			th.MaxNDCGDrop = ptr(limits[r.Intn(len(limits))])
		}
		if r.Intn(2) == 0 {
			th.MaxPrecisionDrop = ptr(limits[r.Intn(len(limits))])
		}
		if r.Intn(2) == 0 {
			th.Segments = []SegmentRule{{Name: "front", Limits: Limits{MaxRecallDrop: ptr(limits[r.Intn(len(limits))])}}}
			th.MinSegmentQueries = 3
		}
		base := monotoneCard(t, set, d, baseLists)
		c1, err := Compare(base, monotoneCard(t, set, d, headLists), th)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Compare(base, monotoneCard(t, set, d, worseLists), th)
		if err != nil {
			t.Fatal(err)
		}
		if c1.Verdict != c2.Verdict {
			worse++
		}
		if verdictRank[c2.Verdict] < verdictRank[c1.Verdict] {
			t.Fatalf("trial %d: the worse head reads %s, the head %s (n %d, depth %+v, thresholds %+v)\nhead: %q\nworse: %q\nreasons head %q\nreasons worse %q",
				trial, c2.Verdict, c1.Verdict, n, d, th, headLists, worseLists, c1.Reasons, c2.Reasons)
		}
	}
	// The property is not met by doing nothing: the worse heads must move
	// the verdict in a good share of the trials.
	if worse < trials/20 {
		t.Errorf("only %d of %d worse heads changed the verdict: the trials do not probe the rule", worse, trials)
	}
	t.Logf("%d of %d worse heads read worse", worse, trials)
}

// abSet is ten queries q01–q10 of gold a, b, each with extra(i) added to
// its line (a segment, evidence), and then the lines of more.
func abSet(t *testing.T, extra func(i int) string, more string) *Set {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `{"id":"q%02d","query":"question %d","gold":{"a":1,"b":1}%s}`+"\n", i, i, extra(i))
	}
	set, err := ParseSet(strings.NewReader(b.String()+more), "ten.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestHolmFamilyNotGrownBySegmentSize: the base's policy has a segment
// rule for "front" (max_recall_drop 0.02) beside the whole set's rules,
// under require_significance (N = 10, k = 1, ten queries of gold a, b).
// The head loses b on q01–q07: sign-flip p = 2/2^7 = 0.015625. With front
// on four queries (under min_segment_queries 5) its rule is skipped; a
// change that only labels a fifth query front makes it apply. The family
// is the policy's either way: the skipped segment rule holds its seat, so
// both read the same, over a family of 4 (adjusted p 4 · 0.015625 =
// 0.0625: inconclusive). Before, the skipped rule had no seat: a family of
// 3 (adjusted 0.047) failed, and labelling one more query front passed it.
func TestHolmFamilyNotGrownBySegmentSize(t *testing.T) {
	limit := 0.02
	d := Depth{Candidates: 10, Context: 1}
	th := DefaultThresholds()
	th.MaxRecallDrop, th.MaxNewMisses, th.RequireSignificance = 0.02, 0, true
	th.Segments = []SegmentRule{{Name: "front", Limits: Limits{MaxRecallDrop: &limit}}}
	verdict := func(front int) *Comparison {
		set := abSet(t, func(i int) string {
			if i <= front {
				return `,"segments":["front"]`
			}
			return ""
		}, `{"id":"s1","query":"a synthetic one","gold":{"a":1,"b":1},"segments":["front"],"source":"synthetic"}`+"\n")
		lists := func(lost bool) [][]string {
			out := make([][]string, 11)
			for i := range out {
				out[i] = []string{"a", "b", "x1"}
				if lost && i < 7 {
					out[i] = []string{"a", "x1"}
				}
			}
			return out
		}
		c, err := Compare(monotoneCard(t, set, d, lists(false)), monotoneCard(t, set, d, lists(true)), th)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// From no counted member (only the synthetic one, not counted: the rule
	// has no query to measure, yet holds its seat) to the first, and from
	// 4 to 5.
	for _, n := range []int{0, 4} {
		small, grown := verdict(n), verdict(n+1)
		if small.Verdict != grown.Verdict || small.HolmFamily != 4 || grown.HolmFamily != 4 {
			t.Errorf("front on %d queries: %s over a family of %d; on %d: %s over %d; want the same verdict over the policy's family of 4", n, small.Verdict, small.HolmFamily, n+1, grown.Verdict, grown.HolmFamily)
		}
	}
	small := verdict(4)
	if r := rule(t, small, RuleRecallDrop, ""); r.AdjustedP == nil || math.Abs(*r.AdjustedP-0.0625) > 1e-12 || r.Outcome != RuleInconclusive {
		t.Errorf("front on 4: recall drop adjusted p %v %s, want 0.0625 inconclusive", deref(r.AdjustedP), r.Outcome)
	}
}

// TestHolmFamilyNotGrownByUnanswerable: min_score on both sides (a refusal
// signal), require_significance, max_recall_drop 0.02, max_precision_drop
// 0.05 and no nDCG rule, ten answerable queries (N = 10, k = 1) of which
// the head loses b on seven: p = 0.015625. The false-answers rule has no
// unanswerable query to count; a change that adds one to its set makes it
// apply. The family is the policy's either way (recall, precision, false
// refusals, false answers: 4, adjusted p 0.0625). Before, the rule with no
// query had no seat: a family of 3 (adjusted 0.047) failed, and adding an
// unanswerable query to the set passed it.
func TestHolmFamilyNotGrownByUnanswerable(t *testing.T) {
	d := Depth{Candidates: 10, Context: 1}
	th := DefaultThresholds()
	th.MaxRecallDrop, th.MaxNewMisses, th.RequireSignificance, th.MaxNDCGDrop = 0.02, 0, true, nil
	pol := Policy{Thresholds: th, Refusal: [2]Refusal{minScore(0.1), minScore(0.1)}}
	compare := func(unanswerable bool) *Comparison {
		more := ""
		if unanswerable {
			more = `{"id":"u1","query":"who won the 1930 cup","gold":{},"unanswerable":true}` + "\n"
		}
		set := abSet(t, func(int) string { return "" }, more)
		card := func(lost bool) *Scorecard {
			sc := NewScorer(set, d)
			for i, q := range set.Queries {
				hs := []Hit{{Doc: "a", Score: 0.9}, {Doc: "b", Score: 0.8}, {Doc: "x1", Score: 0.5}}
				if q.ID == "u1" {
					hs = []Hit{{Doc: "x1", Score: 0.05}}
				} else if lost && i < 7 {
					hs = []Hit{{Doc: "a", Score: 0.9}, {Doc: "x1", Score: 0.5}}
				}
				if err := sc.Add(Result{ID: q.ID, Hits: hs}); err != nil {
					t.Fatal(err)
				}
			}
			c, err := sc.Card()
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		return mustCompare(t, card(false), card(true), pol)
	}
	without, with := compare(false), compare(true)
	if without.Verdict != with.Verdict || without.HolmFamily != 4 || with.HolmFamily != 4 {
		t.Errorf("no unanswerable query: %s over a family of %d; one: %s over %d; want the same verdict over the policy's family of 4", without.Verdict, without.HolmFamily, with.Verdict, with.HolmFamily)
	}
}

// TestHolmFamilyNotGrownByEvidence: require_significance with
// max_recall_drop 0.02 and max_evidence_drop 0.05 alone (no nDCG or
// precision rule), ten queries (N = 10, k = 1) whose final contexts both
// sides give; the head loses b on six: p = 0.03125. With no query holding
// evidence the evidence rule has nothing to read; a change that gives one
// query of its set an evidence fact (found on both sides) makes it apply.
// The family is the policy's either way (2, adjusted 0.0625). Before, the
// evidence rule with no query had no seat: a family of 1 failed, and one
// evidence fact in the set passed it.
func TestHolmFamilyNotGrownByEvidence(t *testing.T) {
	d := Depth{Candidates: 10, Context: 1}
	ev := 0.05
	th := DefaultThresholds()
	th.MaxRecallDrop, th.MaxNewMisses, th.RequireSignificance = 0.02, 0, true
	th.MaxNDCGDrop, th.MaxPrecisionDrop, th.MaxEvidenceDrop = nil, nil, &ev
	compare := func(evidence bool) *Comparison {
		set := abSet(t, func(i int) string {
			if evidence && i == 10 {
				return `,"evidence":["alpha"]`
			}
			return ""
		}, "")
		card := func(lost bool) *Scorecard {
			sc := NewScorer(set, d)
			for i, q := range set.Queries {
				hs := hits("a", "b", "x1")
				if lost && i < 6 {
					hs = hits("a", "x1")
				}
				if err := sc.Add(Result{ID: q.ID, Hits: hs, Context: []Passage{{Doc: "a", Text: "alpha is here"}}}); err != nil {
					t.Fatal(err)
				}
			}
			c, err := sc.Card()
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		c, err := Compare(card(false), card(true), th)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	without, with := compare(false), compare(true)
	if without.Verdict != with.Verdict || without.HolmFamily != 2 || with.HolmFamily != 2 {
		t.Errorf("no evidence: %s over a family of %d; one fact: %s over %d; want the same verdict over the policy's family of 2", without.Verdict, without.HolmFamily, with.Verdict, with.HolmFamily)
	}
}
