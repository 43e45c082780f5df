package gate

import (
	"fmt"
	"math"
	"sort"
)

// Default gate thresholds.
const (
	// DefaultMaxRecallDrop is the largest absolute drop of mean recall@N that passes.
	DefaultMaxRecallDrop = 0.02
	// DefaultMaxNewMisses is how many queries may newly reach zero recall.
	DefaultMaxNewMisses = 0
)

// epsilon absorbs floating-point noise when a delta is compared with a threshold.
const epsilon = 1e-9

// Thresholds decide the verdict of a comparison.
type Thresholds struct {
	// MaxRecallDrop is the largest absolute drop of mean recall@N that passes.
	MaxRecallDrop float64
	// MaxNewMisses is how many queries may go from some recall to none.
	MaxNewMisses int
}

// DefaultThresholds returns the default thresholds (0.02 drop, no new misses).
func DefaultThresholds() Thresholds {
	return Thresholds{MaxRecallDrop: DefaultMaxRecallDrop, MaxNewMisses: DefaultMaxNewMisses}
}

// Validate reports thresholds that make no sense.
func (t Thresholds) Validate() error {
	if t.MaxRecallDrop < 0 || t.MaxRecallDrop > 1 || math.IsNaN(t.MaxRecallDrop) {
		return fmt.Errorf("max_recall_drop must be within 0–1, got %v", t.MaxRecallDrop)
	}
	if t.MaxNewMisses < 0 {
		return fmt.Errorf("max_new_misses must not be negative, got %d", t.MaxNewMisses)
	}
	return nil
}

// Change classifies a query by its recall@N from base to head.
type Change string

// The three ways a query's recall@N can move.
const (
	Regressed Change = "regressed"
	Improved  Change = "improved"
	Unchanged Change = "unchanged"
)

// Verdict is the outcome of the gate.
type Verdict string

// Verdicts.
const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
)

// Delta is head minus base for the four document metrics.
type Delta struct {
	Recall, Precision, NDCG, RR float64
}

func delta(base, head *QueryScore) Delta {
	return Delta{
		Recall:    head.Recall - base.Recall,
		Precision: head.Precision - base.Precision,
		NDCG:      head.NDCG - base.NDCG,
		RR:        head.RR - base.RR,
	}
}

// PairedQuery is one query seen on both sides.
type PairedQuery struct {
	Query *Query
	Base  QueryScore
	Head  QueryScore
	// Change is decided on recall@N alone (by the count of relevant docs found).
	Change Change
	// RankingOnly is true when recall@N did not move but precision@k or
	// nDCG@k did: the same documents were found, ordered differently.
	RankingOnly bool
	Delta       Delta
	// Lost are relevant docs in the base's top N but not the head's;
	// Gained the reverse. Highest grade first.
	Lost, Gained []string
	// NewMiss is true when base found something and head found nothing.
	NewMiss bool
}

// Comparison is the paired comparison of a base and a head run over one set.
type Comparison struct {
	Set        *Set
	Depth      Depth
	Thresholds Thresholds
	Base, Head Summary
	// MeanDelta is head minus base of the summary means.
	MeanDelta Delta
	// Queries are the answerable queries in set order.
	Queries []PairedQuery
	// Regressed and Improved list query ids, the largest recall move first.
	Regressed, Improved []string
	// RankingOnly lists queries whose recall did not move but whose
	// precision@k or nDCG@k did, in set order.
	RankingOnly []string
	// NewMisses lists queries that newly reach zero recall, in set order.
	NewMisses []string
	// Unanswerable pairs what both sides returned for unanswerable queries.
	Unanswerable [][2]UnanswerableResult
	Verdict      Verdict
	// Reasons explains a failing verdict, one line per broken threshold.
	Reasons []string
	// Warnings are the scorecards' warnings, prefixed by side.
	Warnings []string

	index map[string]int // query id → position in Queries
}

// Query returns the paired query with the given id, or nil.
func (c *Comparison) Query(id string) *PairedQuery {
	i, ok := c.index[id]
	if !ok {
		return nil
	}
	return &c.Queries[i]
}

// Compare pairs two scorecards of the same set query by query and decides the
// verdict. Both must be scored at the same depths.
func Compare(base, head *Scorecard, t Thresholds) (*Comparison, error) {
	if base.Set != head.Set {
		return nil, fmt.Errorf("base and head were scored against different sets (%s, %s)", base.Set.Path, head.Set.Path)
	}
	if base.Depth != head.Depth {
		return nil, fmt.Errorf("base and head were scored at different depths (%+v, %+v)", base.Depth, head.Depth)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	c := &Comparison{Set: base.Set, Depth: base.Depth, Thresholds: t, Base: base.Summary, Head: head.Summary, index: map[string]int{}}
	c.MeanDelta = Delta{
		Recall:    head.Summary.Recall - base.Summary.Recall,
		Precision: head.Summary.Precision - base.Summary.Precision,
		NDCG:      head.Summary.NDCG - base.Summary.NDCG,
		RR:        head.Summary.RR - base.Summary.RR,
	}
	n := base.Depth.Candidates
	for i := range base.Queries {
		b, h := base.Queries[i], head.Queries[i]
		q := base.Set.Query(b.ID)
		p := PairedQuery{Query: q, Base: b, Head: h, Delta: delta(&b, &h), Change: Unchanged}
		switch {
		case h.Found < b.Found:
			p.Change = Regressed
		case h.Found > b.Found:
			p.Change = Improved
		case h.InContext != b.InContext || math.Abs(p.Delta.NDCG) > epsilon:
			p.RankingOnly = true
		}
		bf, hf := b.foundDocs(n), h.foundDocs(n)
		for d := range bf {
			if !hf[d] {
				p.Lost = append(p.Lost, d)
			}
		}
		for d := range hf {
			if !bf[d] {
				p.Gained = append(p.Gained, d)
			}
		}
		q.sortByGrade(p.Lost)
		q.sortByGrade(p.Gained)
		p.NewMiss = b.Found > 0 && h.Found == 0
		c.index[q.ID] = len(c.Queries)
		c.Queries = append(c.Queries, p)
		if p.RankingOnly {
			c.RankingOnly = append(c.RankingOnly, q.ID)
		}
		if p.NewMiss {
			c.NewMisses = append(c.NewMisses, q.ID)
		}
	}
	for i := range base.Unanswerable {
		c.Unanswerable = append(c.Unanswerable, [2]UnanswerableResult{base.Unanswerable[i], head.Unanswerable[i]})
	}
	c.Regressed = c.flipped(Regressed)
	c.Improved = c.flipped(Improved)
	for _, w := range base.Warnings() {
		c.Warnings = append(c.Warnings, "base: "+w)
	}
	for _, w := range head.Warnings() {
		c.Warnings = append(c.Warnings, "head: "+w)
	}
	c.decide()
	return c, nil
}

// flipped lists the queries with the given change, the largest recall move
// first, ties in set order.
func (c *Comparison) flipped(ch Change) []string {
	var ps []PairedQuery
	for _, p := range c.Queries {
		if p.Change == ch {
			ps = append(ps, p)
		}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		return math.Abs(ps[i].Delta.Recall) > math.Abs(ps[j].Delta.Recall)
	})
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.Query.ID
	}
	return ids
}

func (c *Comparison) decide() {
	c.Verdict = Pass
	drop := -c.MeanDelta.Recall
	if drop > c.Thresholds.MaxRecallDrop+epsilon {
		c.Reasons = append(c.Reasons, fmt.Sprintf("mean recall@%d dropped by %.3f (limit %.3f)", c.Depth.Candidates, drop, c.Thresholds.MaxRecallDrop))
	}
	if len(c.NewMisses) > c.Thresholds.MaxNewMisses {
		c.Reasons = append(c.Reasons, fmt.Sprintf("%d %s newly at zero recall (limit %d): %s", len(c.NewMisses), plural(len(c.NewMisses), "query", "queries"), c.Thresholds.MaxNewMisses, joinFirst(c.NewMisses, 10)))
	}
	if len(c.Reasons) > 0 {
		c.Verdict = Fail
	}
}

// plural picks the singular or plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
