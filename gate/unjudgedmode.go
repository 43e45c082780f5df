package gate

import (
	"fmt"
	"math"
)

// The readings of documents nobody judged ([gate] unjudged).
const (
	// UnjudgedNonRelevant counts them non-relevant, trec_eval's
	// convention and the default: a context rule beyond its limit fails.
	UnjudgedNonRelevant = "nonrelevant"
	// UnjudgedCondensed scores precision@k and nDCG@k over each side's
	// list with them removed before the cut (condensed lists, Sakai 2007).
	UnjudgedCondensed = "condensed"
	// UnjudgedRangeMode lets a context rule's breach that the optimistic end
	// of the head's range clears read inconclusive.
	UnjudgedRangeMode = "range"
)

// UnjudgedModes are the values [gate] unjudged takes, the default first.
var UnjudgedModes = []string{UnjudgedNonRelevant, UnjudgedCondensed, UnjudgedRangeMode}

// UnjudgedMode is the reading in force: t.Unjudged, UnjudgedNonRelevant
// when unset.
func (t Thresholds) UnjudgedMode() string {
	if t.Unjudged == "" {
		return UnjudgedNonRelevant
	}
	return t.Unjudged
}

// CheckUnjudgedMode refuses a value of [gate] unjudged that is no reading.
func CheckUnjudgedMode(v string) error {
	if v == "" {
		return nil
	}
	for _, m := range UnjudgedModes {
		if v == m {
			return nil
		}
	}
	return fmt.Errorf("must be %q (the default), %q or %q, got %q", UnjudgedNonRelevant, UnjudgedCondensed, UnjudgedRangeMode, v)
}

// condensed is card scored on condensed lists: each query's precision@k
// and nDCG@k over its documents with those nobody judged for it
// (unjudgedDoc) removed before the cut, the summaries again. The
// documents are those the score kept (the first max(N, k)), so a list
// with fewer than k judged among them is cut short, as a run that
// returned fewer. Every other score is card's; card is left as it was.
func condensed(card *Scorecard, corpus map[string]bool) *Scorecard {
	out := *card
	out.Queries = make([]QueryScore, len(card.Queries))
	k := card.Depth.Context
	for i, s := range card.Queries {
		q := card.Set.Query(s.ID)
		dcg, rel, rank := 0.0, 0, 0
		for _, d := range s.Docs {
			if rank == k {
				break
			}
			if unjudgedDoc(q, d, corpus) {
				continue
			}
			if g := q.Gold[d]; g > 0 {
				rel++
				dcg += float64(g) / math.Log2(float64(rank+2))
			}
			rank++
		}
		s.InContext = rel
		s.Precision = float64(rel) / float64(k)
		s.NDCG = 0
		if ideal := q.idealDCG(k); ideal > 0 {
			s.NDCG = dcg / ideal
		}
		out.Queries[i] = s
	}
	out.summarize()
	return &out
}

// unjudgedFailNote is what a failing context rule's reason adds of the
// documents nobody judged in the head's top k of its dropped queries
// (docs of them, k the depth), "" when there are none.
func unjudgedFailNote(docs, k int) string {
	if docs == 0 {
		return ""
	}
	return fmt.Sprintf("; fails with %d %s nobody judged in the head's top %d counted non-relevant; if they are relevant, judge them (`recallgate label --from-report report.json`) and score again",
		docs, Plural(docs, "document", "documents"), k)
}

// UnjudgedReading is the reading the comparison's scores and rules used:
// the policy's, except that a set that records no judgements (gold only)
// cannot be condensed, so it reads UnjudgedNonRelevant there.
func (c *Comparison) UnjudgedReading() string {
	m := c.Thresholds.UnjudgedMode()
	if m == UnjudgedCondensed && !c.JudgementsKnown {
		return UnjudgedNonRelevant
	}
	return m
}
