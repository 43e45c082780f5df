package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/recallgate/recallgate/gate"
)

// BaselineDistanceInfo is the head's distance to the reviewed baseline run
// (max_baseline_drop): both means over the queries the baseline holds,
// the drop held against the limit, and the queries left out of both.
type BaselineDistanceInfo struct {
	// Run is the baseline run as the report names it (path@commit when
	// read from the base commit's tree).
	Run string `json:"run"`
	// Queries is how many queries both means are over.
	Queries  int     `json:"queries"`
	Baseline float64 `json:"baseline"`
	Head     float64 `json:"head"`
	// Drop is baseline − head (a waived query's loss as 0); Limit is
	// max_baseline_drop.
	Drop  float64 `json:"drop"`
	Limit float64 `json:"limit"`
	// NotInBaseline are the answerable queries of the set the baseline
	// lacks, left out of both means.
	NotInBaseline []string `json:"not_in_baseline"`
}

func baselineDistanceInfo(d *gate.BaselineDistance) *BaselineDistanceInfo {
	if d == nil {
		return nil
	}
	return &BaselineDistanceInfo{Run: d.Name, Queries: d.Queries, Baseline: d.Baseline, Head: d.Head, Drop: d.Drop, Limit: d.Limit, NotInBaseline: list(d.Missing)}
}

// distanceLine is the head's distance to the reviewed baseline in one
// line, "" when the rule was not measured; esc escapes what the report
// did not write (the run's path, query ids).
func distanceLine(r *CompareReport, esc func(string) string) string {
	d := r.BaselineDistance
	if d == nil {
		return ""
	}
	how := fmt.Sprintf("%.3f below", d.Drop)
	if d.Drop < 0 {
		how = fmt.Sprintf("%.3f above", -d.Drop)
	}
	out := fmt.Sprintf("Distance to the baseline: head mean recall@%d %.3f is %s the reviewed baseline's %.3f (%s, %d %s; limit %.3f, %s)",
		r.Depth.Candidates, d.Head, how, d.Baseline, esc(d.Run), d.Queries, plural(d.Queries, "query", "queries"), d.Limit, gate.RuleBaselineDrop)
	if n := len(d.NotInBaseline); n > 0 {
		out += fmt.Sprintf("; %d %s not in the baseline, left out of both: %s", n, plural(n, "query", "queries"), gate.JoinFirst(mapIDs(d.NotInBaseline, esc), 10))
	}
	return out
}

// checkBaselineRule refuses a report whose erosion rule disagrees with its
// thresholds or its distance: the rule is there for the whole set exactly
// when thresholds.max_baseline_drop is, at that limit; the distance is
// there exactly when the rule measured, with the rule's numbers; the rule
// fails exactly when the drop is beyond the limit. A report edited to drop
// the failing rule, or to shrink its drop, is refused.
func (r *CompareReport) checkBaselineRule() error {
	const epsilon = 1e-9 // gate's tolerance
	i := slices.IndexFunc(r.Rules, func(ru RuleInfo) bool { return ru.Name == gate.RuleBaselineDrop })
	var lim *float64
	if v, on := thresholdOf(&r.Thresholds, gate.RuleBaselineDrop); on {
		lim = &v
	}
	switch {
	case i < 0 && lim != nil:
		return fmt.Errorf("rules: no %s rule, but thresholds.%s is %g", gate.RuleBaselineDrop, gate.RuleBaselineDrop, *lim)
	case i < 0 && r.BaselineDistance != nil:
		return fmt.Errorf("baseline_distance without a %s rule", gate.RuleBaselineDrop)
	case i < 0:
		return nil
	case lim == nil || r.Rules[i].Limit != *lim:
		return fmt.Errorf("rules[%d] (%s): limit %g, but thresholds.%s is %v", i, gate.RuleBaselineDrop, r.Rules[i].Limit, gate.RuleBaselineDrop, fmtPtr(lim))
	case slices.ContainsFunc(r.Rules[i+1:], func(ru RuleInfo) bool { return ru.Name == gate.RuleBaselineDrop }):
		return fmt.Errorf("rules: %s twice", gate.RuleBaselineDrop)
	}
	ru, d := r.Rules[i], r.BaselineDistance
	if ru.Segment != "" || ru.Metric != gate.MetricRecall {
		return fmt.Errorf("rules[%d] (%s): segment %q metric %q: want the whole set's %s", i, ru.Name, ru.Segment, ru.Metric, gate.MetricRecall)
	}
	if ru.Outcome == gate.RuleSkipped {
		if d != nil {
			return fmt.Errorf("rules[%d] (%s) is skipped, but baseline_distance measured it", i, ru.Name)
		}
		return nil
	}
	if d == nil {
		return fmt.Errorf("rules[%d] (%s) is %s, but the report has no baseline_distance", i, ru.Name, ru.Outcome)
	}
	if d.Queries != ru.Queries || d.Queries < 1 || d.Baseline != ru.Base || d.Head != ru.Head || d.Drop != ru.Value || d.Limit != ru.Limit {
		return fmt.Errorf("baseline_distance (%d queries, %g → %g, drop %g, limit %g) disagrees with rules[%d] (%d queries, %g → %g, value %g, limit %g)",
			d.Queries, d.Baseline, d.Head, d.Drop, d.Limit, i, ru.Queries, ru.Base, ru.Head, ru.Value, ru.Limit)
	}
	for _, v := range []float64{d.Baseline, d.Head} {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("baseline_distance: means %g, %g: want both within 0–1", d.Baseline, d.Head)
		}
	}
	if math.IsNaN(d.Drop) || d.Drop < -1 || d.Drop > 1 {
		return fmt.Errorf("baseline_distance.drop %g: want within −1–1", d.Drop)
	}
	if beyond := d.Drop > d.Limit+epsilon; beyond != (ru.Outcome == gate.RuleFail) {
		return fmt.Errorf("rules[%d] (%s): outcome %s, but its drop %g against the limit %g gives %s", i, ru.Name, ru.Outcome, d.Drop, d.Limit, map[bool]string{true: gate.RuleFail, false: gate.RulePass}[beyond])
	}
	if len(d.Run) > 512 || strings.ContainsFunc(d.Run, unicode.IsControl) {
		return fmt.Errorf("baseline_distance.run %.40q: not a run path", d.Run)
	}
	return plainAll("baseline_distance.not_in_baseline", d.NotInBaseline...)
}

func fmtPtr(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}
