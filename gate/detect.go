package gate

import "github.com/recallgate/recallgate/gate/stats"

// The one wording of how large a set should be (README, validate, the
// reports): about SetSizeLarge queries catch large drops, SetSizeSmall to
// two hundred the small ones; validate says what the user's own set can
// catch.
const (
	SetSizeLarge  = 30
	SetSizeSmall  = 50
	SetSizeAdvice = "about thirty queries catch large drops, fifty to two hundred the small ones"
)

// Detectability is what a comparison's set can call significant.
type Detectability struct {
	// Queries is how many queries the paired test counts.
	Queries int
	// MinFlips is MinSameDirectionFlips(Queries); 0 when no number is
	// enough (FlipsKnown false).
	MinFlips int
	// FlipsKnown says whether any number of same-direction flips can be
	// significant over Queries.
	FlipsKnown bool
	// MinRecallDrop is MinDetectableDrop over the counted queries' recall@N
	// steps; DropKnown is false when there is none.
	MinRecallDrop float64
	// DropKnown says whether MinRecallDrop is a value: false when no
	// counted query has a recall@N step.
	DropKnown bool
	// Family is Holm's family when significance is required and it holds
	// more than one rule (0 otherwise): then a rule can fail only when its
	// p is under Alpha / Family (Holm's first step), and MinFlips and
	// MinRecallDrop are counted at that level.
	Family int
}

// detectability is what c's counted queries can detect: recall@N steps by
// one relevant document on each query the base found something for (a
// waived query cannot drop: its delta counts as 0), at Alpha, or at
// Alpha / HolmFamily when the family holds more than one rule (so it is
// computed after holm).
func (c *Comparison) detectability() Detectability {
	d := Detectability{Queries: c.Stats.N}
	alpha := Alpha
	if c.HolmFamily > 1 {
		d.Family = c.HolmFamily
		alpha = Alpha / float64(c.HolmFamily)
	}
	d.MinFlips, d.FlipsKnown = stats.MinFlipsAt(d.Queries, alpha)
	var steps []float64
	for i := range c.Queries {
		p := &c.Queries[i]
		if p.counted() && p.Waiver == nil && p.Base.Found > 0 && p.Base.Relevant > 0 {
			steps = append(steps, 1/float64(p.Base.Relevant))
		}
	}
	d.MinRecallDrop, d.DropKnown = stats.MinDropAt(steps, d.Queries, alpha)
	return d
}
