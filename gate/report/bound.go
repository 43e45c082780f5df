package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/bound"
)

// BoundInfo is one gated mean metric's one-sided 95% bound on the drop
// the set allows (gate/bound): a pass rules out a mean drop larger than
// Drop.
type BoundInfo struct {
	// Metric is the metric's key; Label how the reports name it
	// ("recall@10").
	Metric string `json:"metric"`
	Label  string `json:"label"`
	// Drop is the bound, within 0–1 (0: the set rules out any drop).
	Drop float64 `json:"drop"`
}

// boundInfo are c's bounds, one per gated mean metric.
func boundInfo(c *gate.Comparison) []BoundInfo {
	out := []BoundInfo{}
	for _, b := range bound.Of(c) {
		out = append(out, BoundInfo{Metric: b.Metric, Label: b.Label, Drop: b.Drop})
	}
	return out
}

// boundLine says what a pass rules out: "What a pass rules out (one-sided
// 95%, paired bootstrap): recall@10: this set rules out a drop larger than
// 0.061; …", or "" for a report that does not say.
func boundLine(r *CompareReport) string {
	if r.Statistics == nil || len(r.Statistics.Bound) == 0 {
		return ""
	}
	return "What a pass rules out (one-sided 95% bound, paired bootstrap): " + BoundSentences(r.Statistics.Bound) + "."
}

// BoundSentences are the bounds as one clause each, joined by "; ".
func BoundSentences(bs []BoundInfo) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = bound.Bound{Label: b.Label, Drop: b.Drop}.Sentence()
	}
	return strings.Join(parts, "; ")
}

// boundLabel is the only label a metric's bound may carry at depths d.
func boundLabel(metric string, d DepthInfo) string {
	for _, r := range gate.Rules() {
		if r.Kind == gate.KindDrop && r.InLimits() && r.Metric.Key == metric {
			return r.Metric.Label(gate.Depth{Candidates: d.Candidates, Context: d.Context})
		}
	}
	return ""
}

// ValidateBounds checks bounds read back: each a gated mean metric once,
// labelled as the depths name it, a drop within 0–1.
func ValidateBounds(bs []BoundInfo, d DepthInfo) error {
	var seen []string
	for i, b := range bs {
		want := boundLabel(b.Metric, d)
		switch {
		case want == "" || b.Label != want:
			return fmt.Errorf("bound[%d]: metric %.30q labelled %.30q is no gated mean metric", i, b.Metric, b.Label)
		case slices.Contains(seen, b.Metric):
			return fmt.Errorf("bound[%d]: metric %s twice", i, b.Metric)
		case !(b.Drop >= 0 && b.Drop <= 1) || math.IsNaN(b.Drop):
			return fmt.Errorf("bound[%d] (%s): drop %v: want 0–1", i, b.Metric, b.Drop)
		}
		seen = append(seen, b.Metric)
	}
	return nil
}
