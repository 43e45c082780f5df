// Package bound says what a comparison's pass rules out: for each gated
// mean metric, the one-sided 95% bound on the drop the set allows (from
// the paired bootstrap the comparison already runs, gate.PairedStats'
// DropBound), and the [gate] margin rule built on it: a change passes only
// when every bound is within the margin (non-inferiority, the idea of
// TOST); otherwise it is inconclusive, or a fail with require_proof.
package bound

import (
	"fmt"

	"github.com/recallgate/recallgate/gate"
)

// Rule is the margin rule's name in a comparison's rules.
const Rule = "margin"

// Bound is one gated mean metric's bound on the drop.
type Bound struct {
	// Metric is the metric's key (gate.MetricRecall, …), Label how reports
	// name it ("recall@10").
	Metric, Label string
	// Drop is the one-sided 95% bound: the set rules out a mean drop
	// larger than it (0: it rules out any drop).
	Drop float64
	// Depth is the metric's depth (N or k; 0 for the context metrics);
	// Queries how many queries the bound pairs.
	Depth, Queries int
}

// Of are the bounds of c's gated mean metrics: each whole-set mean-drop
// rule the comparison applied (not skipped), in rule order.
func Of(c *gate.Comparison) []Bound {
	var out []Bound
	for _, r := range c.Rules {
		rule := gate.LookupRule(r.Name)
		if rule == nil || rule.Kind != gate.KindDrop || !rule.InLimits() || r.Segment != "" || r.Outcome == gate.RuleSkipped {
			continue
		}
		st := c.MetricStats(r.Metric)
		out = append(out, Bound{Metric: r.Metric, Label: rule.Metric.Label(c.Depth), Drop: st.DropBound, Depth: r.Depth, Queries: st.N})
	}
	return out
}

// Sentence is the bound as every report states it: "recall@10: this set
// rules out a drop larger than 0.061".
func (b Bound) Sentence() string {
	return fmt.Sprintf("%s: this set rules out a drop larger than %.3f", b.Label, b.Drop)
}

// Rules are the margin rule's results, one per gated mean metric, when
// c's thresholds set a margin (none otherwise): pass when the bound is
// within it; else inconclusive ("this set cannot rule out a drop of up to
// 0.121 (margin 0.020): add queries or accept the risk"), or a fail with
// require_proof. It is gate.Policy.Rules.
func Rules(c *gate.Comparison) []gate.RuleResult {
	t := c.Thresholds
	if t.Margin == nil {
		return nil
	}
	m := *t.Margin
	var out []gate.RuleResult
	for _, b := range Of(c) {
		r := gate.RuleResult{Name: Rule, Metric: b.Metric, Depth: b.Depth, Queries: b.Queries, Value: b.Drop, Limit: m, Outcome: gate.RulePass}
		if b.Drop > m+1e-9 {
			r.Outcome, r.Why = gate.RuleInconclusive, fmt.Sprintf("%s: this set cannot rule out a drop of up to %.3f (margin %.3f): add queries or accept the risk", b.Label, b.Drop, m)
			if t.RequireProof {
				r.Outcome, r.Why = gate.RuleFail, fmt.Sprintf("%s: this set cannot rule out a drop of up to %.3f (margin %.3f, require_proof): add queries, or a change that moves less", b.Label, b.Drop, m)
			}
		}
		out = append(out, r)
	}
	return out
}
