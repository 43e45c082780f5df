package repeats

import (
	"slices"

	"github.com/recallgate/recallgate/gate"
)

// epsilon absorbs floating-point noise when two nDCG values are compared
// (gate's own).
const epsilon = 1e-9

// Stability is what running one side several times (`repeats`) tells: the
// queries whose results differed between the repeats and, query by query,
// the worst repeat.
//
// The two sides use it differently. The base side is the noise floor: a
// query whose base repeats disagree cannot show a real change, so it is
// kept out of the flips and the mean rules (gate.Policy.Unstable). The head side
// is what is judged: a query whose head repeats disagree is held to its
// worst repeat by every rule (gate.Policy.HeadUnstable), and the verdict can
// then be fail or inconclusive, never pass. A flaky head cannot hide
// behind its own noise.
type Stability struct {
	// Worst is the side's scorecard with each unstable query at its worst
	// repeat (fewest relevant documents in the top N, then lowest nDCG@k,
	// the earliest repeat on a tie), summaries recomputed; the first
	// repeat when none is unstable.
	Worst *gate.Scorecard
	// Unstable marks the queries whose top documents differed between
	// repeats.
	Unstable map[string]bool
	// FewestFound is, for each unstable query, the fewest relevant
	// documents any repeat found in the top N.
	FewestFound map[string]int
}

// Compare finds, over repeats of one side scored on the same set at
// the same depth, the queries whose top max(N, k) documents differ, and
// builds the worst-of-repeats scorecard. One card is returned as it is.
func Compare(cards []*gate.Scorecard) Stability {
	out := Stability{Unstable: map[string]bool{}, FewestFound: map[string]int{}}
	if len(cards) == 0 {
		return out
	}
	first := cards[0]
	out.Worst = first
	if len(cards) == 1 {
		return out
	}
	worst := *first
	worst.Queries = slices.Clone(first.Queries)
	missing := map[string]bool{}
	for _, id := range first.Missing {
		missing[id] = true
	}
	for i := range first.Queries {
		w := first.Queries[i]
		fewest := w.Found
		for _, c := range cards[1:] {
			q := c.Queries[i]
			if !slices.Equal(q.Docs, first.Queries[i].Docs) {
				out.Unstable[w.ID] = true
			}
			fewest = min(fewest, q.Found)
			if q.Found < w.Found || (q.Found == w.Found && q.NDCG < w.NDCG-epsilon) {
				w = q
			}
		}
		if !out.Unstable[w.ID] {
			continue
		}
		out.FewestFound[w.ID] = fewest
		worst.Queries[i] = w
		missing[w.ID] = w.Missing
	}
	if len(out.Unstable) == 0 {
		return out
	}
	worst.Missing = nil
	for _, q := range first.Set.Queries {
		if missing[q.ID] {
			worst.Missing = append(worst.Missing, q.ID)
		}
	}
	worst.Summarize()
	out.Worst = &worst
	return out
}
