package report

import (
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/orderedjson"
)

// StatisticsInfo says what the set can detect and how the rules tested for
// significance were corrected for testing several at once.
type StatisticsInfo struct {
	// Queries is how many queries the paired test counts.
	Queries int `json:"queries"`
	// MinSameDirectionFlips is the fewest queries that must all move the
	// same way (none the other) for the exact sign-flip test to reach
	// p < 0.05 on this many queries; null when no number is enough.
	MinSameDirectionFlips *int `json:"min_same_direction_flips"`
	// MinDetectableRecallDrop is the smallest mean recall@N drop that could
	// then be significant: that many queries each losing one relevant
	// document from the top N, chosen where one document is the smallest
	// share of the query's gold (gate.MinDetectableDrop); null when none.
	MinDetectableRecallDrop *float64 `json:"min_detectable_recall_drop"`
	// SignificanceTests are the rules tested for significance
	// (require_significance, beyond their limit), with each p-value and
	// its Holm-adjusted value over all of them, in rule order.
	SignificanceTests []SignificanceTest `json:"significance_tests"`
	// HolmFamily is how many rules the Holm correction ran over: every
	// rule of a significance-tested kind the comparison applied under
	// require_significance, breached or not (an untested one counts as
	// p = 1); absent (0) when significance is not required.
	HolmFamily int `json:"holm_family,omitempty"`
	// Bound is, per gated mean metric, the one-sided 95% bound on the drop
	// the set allows (what a pass rules out); absent from a report written
	// before it.
	Bound []BoundInfo `json:"bound,omitempty"`
}

// SignificanceTest is one rule's significance test.
type SignificanceTest struct {
	// Rule is the rule tested, e.g. max_recall_drop; Segment the segment
	// it judged ("" the whole set).
	Rule    string `json:"rule"`
	Segment string `json:"segment"`
	// PValue is the rule's sign-flip p; AdjustedP is it after Holm's
	// correction over every test of the report.
	PValue    float64 `json:"p_value"`
	AdjustedP float64 `json:"adjusted_p"`
	// Significant is AdjustedP < 0.05.
	Significant bool `json:"significant"`
}

// LabelDebtInfo counts the documents nobody judged that the head brought
// into its context (the pairs `label --from-report` offers).
type LabelDebtInfo struct {
	// Documents counts the unjudged (query, document) pairs; Queries the
	// queries that hold them.
	Documents int `json:"documents"`
	Queries   int `json:"queries"`
}

// RangeInfo bounds the head's mean precision@k and nDCG@k by the documents
// nobody judged in its top k: each pair is the lower and the higher of the
// value with them counted non-relevant (the score) and relevant at the
// set's top grade.
type RangeInfo struct {
	// Documents counts the unjudged documents in the head's top k;
	// Queries the queries that hold them.
	Documents int `json:"documents"`
	Queries   int `json:"queries"`
	// PrecisionAtK and NDCGAtK are each metric's [lower, higher] bound,
	// written under the metric's registry key.
	PrecisionAtK [2]float64 `json:"-"`
	NDCGAtK      [2]float64 `json:"-"`
}

// fields are the range's values under their keys (pointers to them with
// to).
func (r *RangeInfo) fields(to bool) []orderedjson.Field {
	vals := []any{r.Documents, r.Queries, r.PrecisionAtK, r.NDCGAtK}
	if to {
		vals = []any{&r.Documents, &r.Queries, &r.PrecisionAtK, &r.NDCGAtK}
	}
	keys := []string{"documents", "queries", gate.MetricPrecision, gate.MetricNDCG}
	out := make([]orderedjson.Field, len(keys))
	for i, k := range keys {
		out[i] = orderedjson.Field{Key: k, Value: vals[i]}
	}
	return out
}

// MarshalJSON writes the range, its bounds under their metric keys.
func (r RangeInfo) MarshalJSON() ([]byte, error) { return orderedjson.Marshal(r.fields(false)...) }

// UnmarshalJSON reads what MarshalJSON writes, strictly.
func (r *RangeInfo) UnmarshalJSON(b []byte) error { return orderedjson.Unmarshal(b, r.fields(true)...) }

func statisticsInfo(c *gate.Comparison) *StatisticsInfo {
	s := &StatisticsInfo{Queries: c.Detect.Queries, SignificanceTests: []SignificanceTest{}, HolmFamily: c.HolmFamily, Bound: boundInfo(c)}
	if d := c.Detect; d.FlipsKnown {
		k := d.MinFlips
		s.MinSameDirectionFlips = &k
		if d.DropKnown {
			v := d.MinRecallDrop
			s.MinDetectableRecallDrop = &v
		}
	}
	for _, r := range c.Rules {
		if r.PValue != nil && r.AdjustedP != nil {
			s.SignificanceTests = append(s.SignificanceTests, SignificanceTest{Rule: r.Name, Segment: r.Segment, PValue: *r.PValue, AdjustedP: *r.AdjustedP, Significant: *r.AdjustedP < gate.Alpha})
		}
	}
	return s
}

func rangeInfo(r *gate.UnjudgedRange) *RangeInfo {
	if r == nil {
		return nil
	}
	order := func(v [2]float64) [2]float64 { return [2]float64{min(v[0], v[1]), max(v[0], v[1])} }
	return &RangeInfo{Documents: r.Docs, Queries: r.Queries, PrecisionAtK: order(r.Precision), NDCGAtK: order(r.NDCG)}
}

// GrowTowards is the set size below which the detect line gives the
// set-size advice (gate.SetSizeAdvice).
const GrowTowards = gate.SetSizeSmall

// sentence is s with its first letter upper case.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// detectLine says what the set can detect: "This set calls a drop
// significant only when 6 queries move the same way …", or "" for a
// report that does not say.
func detectLine(r *CompareReport) string {
	st := r.Statistics
	if st == nil {
		return ""
	}
	grow := ""
	if st.Queries < GrowTowards {
		grow = " " + sentence(gate.SetSizeAdvice) + "."
	}
	if st.MinSameDirectionFlips == nil {
		return fmt.Sprintf("This set of %d %s cannot call any drop significant: with the exact sign-flip test, not even all of them moving the same way reaches p < 0.05. %s.",
			st.Queries, plural(st.Queries, "query", "queries"), sentence(gate.SetSizeAdvice))
	}
	k := *st.MinSameDirectionFlips
	level := "0.05"
	if m := st.HolmFamily; m > 1 {
		level = fmt.Sprintf("0.05/%d, Holm's first step over the %d rules significance is required of", m, m)
	}
	line := fmt.Sprintf("This set calls a drop significant only when %d queries move the same way (none the other way; sign-flip p = 2/2^%d < %s)", k, k, level)
	if d := st.MinDetectableRecallDrop; d != nil {
		line += fmt.Sprintf(": the smallest mean recall@%d drop that can be significant is %s (%d queries each losing one relevant document).", r.Depth.Candidates, f3(*d), k)
	} else {
		line += fmt.Sprintf(", and fewer than %d queries have a relevant document found on the base to lose.", k)
	}
	return line + grow
}

// holmLine names the significance tests and their Holm-adjusted p-values
// when the family holds more than one rule and one was tested, or "".
func holmLine(r *CompareReport) string {
	if r.Statistics == nil {
		return ""
	}
	tests := r.Statistics.SignificanceTests
	m := max(r.Statistics.HolmFamily, len(tests))
	if len(tests) == 0 || m < 2 {
		return ""
	}
	parts := make([]string, len(tests))
	for i, t := range tests {
		name := t.Rule
		if t.Segment != "" {
			name = "segment " + t.Segment + " " + name
		}
		verdict := "not significant"
		if t.Significant {
			verdict = "significant"
		}
		parts[i] = fmt.Sprintf("%s p = %.3f → %.3f (%s)", name, t.PValue, t.AdjustedP, verdict)
	}
	untested := ""
	if n := m - len(tests); n > 0 {
		untested = fmt.Sprintf(", %d of them not breached, counted as p = 1", n)
	}
	return fmt.Sprintf("Holm's correction over the %d rules significance is required of (require_significance%s): %s; a rule fails only when its adjusted p < 0.05.", m, untested, strings.Join(parts, "; "))
}

// rangeLine shows the head's range of precision@k and nDCG@k, or "".
func rangeLine(u UnjudgedInfo, k int) string {
	rg := u.HeadRange
	if rg == nil {
		return ""
	}
	return fmt.Sprintf("Head precision@%d is %s … %s and nDCG@%d %s … %s: the %d %s nobody judged in the head's top %d over all the set's queries (%d %s hold them) counted non-relevant … relevant.%s",
		k, f3(rg.PrecisionAtK[0]), f3(rg.PrecisionAtK[1]), k, f3(rg.NDCGAtK[0]), f3(rg.NDCGAtK[1]),
		rg.Documents, plural(rg.Documents, "document", "documents"), k, rg.Queries, plural(rg.Queries, "query", "queries"), rangeReading(u.Mode))
}
