package report

import (
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// weakPassHeadline says, on a pass, what the pass rules out when that is
// weak: each gated mean whose one-sided 95% bound on the drop is more than
// twice its whole-set limit, "rules out only drops of recall@10 > 0.061";
// "" otherwise (a fail, an inconclusive verdict, or bounds within twice
// their limits), so a 30-query pass does not read like a 225-query one.
func weakPassHeadline(r *CompareReport) string {
	if r.Verdict != string(gate.Pass) || r.Statistics == nil {
		return ""
	}
	var parts []string
	for _, b := range r.Statistics.Bound {
		for _, ru := range r.Rules {
			if ru.Segment != "" || ru.Metric != b.Metric || ru.Outcome == gate.RuleSkipped {
				continue
			}
			if rule := gate.LookupRule(ru.Name); rule == nil || rule.Kind != gate.KindDrop {
				continue
			}
			if b.Drop > 2*ru.Limit+1e-9 {
				parts = append(parts, fmt.Sprintf("%s > %.3f", b.Label, b.Drop))
			}
			break
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "rules out only drops of " + strings.Join(parts, ", ")
}
