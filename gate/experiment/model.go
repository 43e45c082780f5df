package experiment

import (
	"math"
	"slices"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/fusion"
	"github.com/recallgate/recallgate/gate/orderedjson"
	"github.com/recallgate/recallgate/gate/report"
)

// Input is one variant's comparison with the baseline.
type Input struct {
	// Name is the variant's, as the config names it.
	Name string
	// Comparison pairs the baseline (base) with the variant (head), judged
	// by the baseline's gate.
	Comparison *gate.Comparison
}

// Report is the leaderboard: the baseline and each variant paired with it,
// in the config's order. Its JSON is the experiment's report.
type Report struct {
	// Tool and Command are "recallgate" and "experiment", so a reader
	// tells this report from a comparison's.
	Tool    string `json:"tool"`
	Command string `json:"command"`
	// Set and Depth are the eval set and the two depths every variant was
	// scored at; Metrics say what each key measures.
	Set     report.SetInfo      `json:"set"`
	Depth   report.DepthInfo    `json:"depth"`
	Metrics []report.MetricInfo `json:"metrics"`
	// Baseline is the base side.
	Baseline Baseline `json:"baseline"`
	// Variants are the candidates, in the config's order.
	Variants []Variant `json:"variants"`
	// Segments name, per segment of the set, the variants that find the
	// most of it (recall@N), when any beats the baseline.
	Segments []Segment `json:"segments"`
	// Warnings are the comparisons' warnings, each once.
	Warnings []string `json:"warnings"`
	// Notes say what was compared when it is not plain: the baseline ran
	// in the base commit's tree, whose config judged.
	Notes []string `json:"notes"`
	// Winner is the top row on the target metric tested against the rest.
	Winner Winner `json:"winner"`
}

// Baseline is the base side's means and timing.
type Baseline struct {
	// Name is BaselineName.
	Name string `json:"name"`
	// Summary is the baseline's means and counts over the set.
	Summary report.SideSummary `json:"summary"`
	// Latency is the baseline retriever's timing; null when not timed (a
	// cached run).
	Latency *report.LatencyInfo `json:"latency"`
}

// Interval is a 95% paired bootstrap interval of a mean delta.
type Interval struct {
	// Low and High are the interval's ends, Low ≤ High.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Intervals are the intervals of the two deltas the leaderboard ranks by,
// written under the metrics' registry keys.
type Intervals struct {
	// RecallAtN is the interval of the mean recall@N delta.
	RecallAtN Interval
	// NDCGAtK is the interval of the mean nDCG@k delta.
	NDCGAtK Interval
}

// MarshalJSON writes the intervals under their metric keys.
func (c Intervals) MarshalJSON() ([]byte, error) {
	return orderedjson.Marshal(orderedjson.Field{Key: gate.MetricRecall, Value: c.RecallAtN}, orderedjson.Field{Key: gate.MetricNDCG, Value: c.NDCGAtK})
}

// UnmarshalJSON reads what MarshalJSON writes, strictly.
func (c *Intervals) UnmarshalJSON(b []byte) error {
	return orderedjson.Unmarshal(b, orderedjson.Field{Key: gate.MetricRecall, Value: &c.RecallAtN}, orderedjson.Field{Key: gate.MetricNDCG, Value: &c.NDCGAtK})
}

// ZeroRecall are the queries that newly reach zero recall@N (new) and
// those that leave it (recovered), in set order.
type ZeroRecall struct {
	// New are the query ids at zero on the variant, not on the baseline.
	New []string `json:"new"`
	// Recovered are the query ids at zero on the baseline, not on the
	// variant.
	Recovered []string `json:"recovered"`
}

// GateOutcome is what the baseline's gate ([gate] of the config) would say
// of the variant as a head.
type GateOutcome struct {
	// Verdict is the gate's: pass, fail or inconclusive.
	Verdict string `json:"verdict"`
	// Reasons are the gate's reasons for it, as a comparison lists them;
	// ReasonKinds says what each is (fail, inconclusive, note), as the
	// gate's report does.
	Reasons     []string `json:"reasons"`
	ReasonKinds []string `json:"reason_kinds"`
	// Pass is Verdict == "pass".
	Pass bool `json:"pass"`
}

// Kind is the outcome word of the i-th reason: its ReasonKinds entry, or
// for an outcome read without them, the verdict's word.
func (g GateOutcome) Kind(i int) string {
	if i < len(g.ReasonKinds) {
		return g.ReasonKinds[i]
	}
	if g.Verdict == string(gate.Fail) || g.Verdict == string(gate.Inconclusive) {
		return g.Verdict
	}
	return gate.ReasonNote
}

// Variant is one candidate against the baseline.
type Variant struct {
	// Name is the variant's, as the config names it.
	Name string `json:"name"`
	// Summary is the variant's means and counts over the set.
	Summary report.SideSummary `json:"summary"`
	// Delta is the variant minus the baseline.
	Delta report.DeltaSummary `json:"delta"`
	// CI are the 95% bootstrap intervals of the two mean deltas.
	CI Intervals `json:"ci"`
	// PValue is the exact sign-flip p-value of the recall@N delta (the
	// gate's statistic: Monte Carlo beyond gate.ExactFlipLimit moved
	// queries, then Exact is false); NDCGPValue the nDCG@k delta's.
	PValue     float64 `json:"p_value"`
	Exact      bool    `json:"exact"`
	NDCGPValue float64 `json:"ndcg_p_value"`
	// Regressed and Improved are the queries that flipped, the largest
	// recall move first, as the gate lists them.
	Regressed []string `json:"regressed"`
	Improved  []string `json:"improved"`
	// ZeroRecall are the queries the variant newly loses all of, and
	// those it recovers.
	ZeroRecall ZeroRecall `json:"zero_recall"`
	// Wins are the segments where this variant finds the most.
	Wins []string `json:"wins"`
	// Latency is the variant's retriever timing; null when not timed (a
	// cached run).
	Latency *report.LatencyInfo `json:"latency"`
	// Gate is what the baseline's gate says of the variant.
	Gate GateOutcome `json:"gate"`
	// Bound is, per gated mean metric, the one-sided 95% bound on the drop
	// from the baseline the set allows (what the gate's pass rules out).
	Bound []report.BoundInfo `json:"bound"`
	// Fusion is how a [fusion.NAME] row was made and chosen; absent for
	// a retrieved variant.
	Fusion *FusionInfo `json:"fusion,omitempty"`
}

// Segment is one segment's recall@N on the baseline and on each variant
// (Recall, in the variants' order), and the variants that find the most
// of it when that is more than the baseline (Winners; empty: the
// baseline holds).
type Segment struct {
	// Label names the segment, as a comparison's report does.
	Label string `json:"segment"`
	// Queries is how many queries of the set are in it.
	Queries int `json:"queries"`
	// Baseline is the baseline's mean recall@N on it.
	Baseline float64 `json:"baseline"`
	// Recall is each variant's mean recall@N on it, in the variants'
	// order.
	Recall []float64 `json:"recall"`
	// Winners are the variants with the highest, when above the baseline.
	Winners []string `json:"winners"`
}

// winEpsilon absorbs floating-point noise when segment means are compared.
const winEpsilon = 1e-9

// Build makes the leaderboard of the variants' comparisons; every
// comparison pairs the same baseline run on the same set at the same depths.
func Build(in []Input) *Report {
	rows := make([]row, len(in))
	for i, v := range in {
		rows[i] = rowOf(v, fusion.TargetNDCG)
	}
	return assemble(rows, fusion.TargetNDCG)
}

// row is what the leaderboard keeps of one variant's comparison: its line,
// its segments and warnings, and the baseline's side, a few hundred bytes
// where the comparison holds every query. Run makes each as soon as the
// variant is scored and drops the comparison.
type row struct {
	variant  Variant
	baseline Baseline
	depth    report.DepthInfo
	set      report.SetInfo
	metrics  []report.MetricInfo
	segments []report.SegmentInfo
	warnings []string
	// ids are the queries the winner is tested on, base and head their
	// target values per query on each side.
	ids        []string
	base, head map[string]float64
}

// rowOf is the leaderboard's row of one variant's comparison.
func rowOf(v Input, target string) row {
	c := v.Comparison
	cr := report.FromComparison(c)
	nd := c.MetricStats(gate.MetricNDCG)
	out := row{
		variant: Variant{
			Name: v.Name, Summary: cr.Summary.Head, Delta: cr.Summary.Delta,
			CI:     Intervals{RecallAtN: Interval{c.Stats.CILow, c.Stats.CIHigh}, NDCGAtK: Interval{nd.CILow, nd.CIHigh}},
			PValue: c.Stats.PValue, Exact: c.Stats.Exact, NDCGPValue: nd.PValue,
			Regressed: cr.Regressed, Improved: cr.Improved, Wins: []string{}, Bound: []report.BoundInfo{},
			ZeroRecall: ZeroRecall{New: cr.NewMisses, Recovered: without(cr.Summary.Base.ZeroRecall, cr.Summary.Head.ZeroRecall)},
			Gate:       GateOutcome{Verdict: cr.Verdict, Reasons: cr.Reasons, ReasonKinds: append([]string{}, cr.ReasonKinds...), Pass: cr.Verdict == string(gate.Pass)},
		},
		baseline: Baseline{Name: BaselineName, Summary: cr.Summary.Base},
		set:      cr.Set, depth: cr.Depth, metrics: cr.Metrics, segments: cr.Segments, warnings: cr.Warnings,
	}
	if cr.Statistics != nil {
		out.variant.Bound = cr.Statistics.Bound
	}
	out.base, out.head = targets(c, target)
	for i := range c.Queries {
		if q := c.Queries[i].Query; q != nil {
			if _, ok := out.base[q.ID]; ok {
				out.ids = append(out.ids, q.ID)
			}
		}
	}
	if cr.Latency != nil {
		out.variant.Latency = cr.Latency.Head
		out.baseline.Latency = cr.Latency.Base
	}
	return out
}

// assemble makes the leaderboard of the variants' rows, in the config's
// order: the set, depths and baseline are the first row's (every row pairs
// the same baseline run), the warnings each once, and each segment's
// winners.
func assemble(rows []row, target string) *Report {
	r := &Report{Tool: "recallgate", Command: "experiment", Variants: []Variant{}, Segments: []Segment{}, Warnings: []string{}, Notes: []string{}}
	seenWarning := map[string]bool{}
	segIndex := map[string]int{}
	for i, row := range rows {
		if i == 0 {
			r.Set, r.Depth, r.Metrics, r.Baseline = row.set, row.depth, row.metrics, row.baseline
		}
		r.Variants = append(r.Variants, row.variant)
		for _, w := range row.warnings {
			if !seenWarning[w] {
				seenWarning[w] = true
				r.Warnings = append(r.Warnings, w)
			}
		}
		for _, s := range row.segments {
			label := s.Label()
			j, ok := segIndex[label]
			if !ok {
				j = len(r.Segments)
				segIndex[label] = j
				r.Segments = append(r.Segments, Segment{Label: label, Queries: s.Queries, Baseline: s.BaseRecall, Recall: make([]float64, len(rows)), Winners: []string{}})
			}
			r.Segments[j].Recall[i] = s.HeadRecall
		}
	}
	if len(rows) > 0 {
		names, values := []string{BaselineName}, []map[string]float64{rows[0].base}
		for _, row := range rows {
			names, values = append(names, row.variant.Name), append(values, row.head)
		}
		r.Winner = chooseWinner(names, values, rows[0].ids, target)
	}
	for j := range r.Segments {
		s := &r.Segments[j]
		best := slices.Max(append([]float64{s.Baseline}, s.Recall...))
		if best <= s.Baseline+winEpsilon {
			continue
		}
		for i, v := range s.Recall {
			if math.Abs(v-best) <= winEpsilon {
				s.Winners = append(s.Winners, r.Variants[i].Name)
				r.Variants[i].Wins = append(r.Variants[i].Wins, s.Label)
			}
		}
	}
	return r
}

// without is the ids of a that are not in b, in a's order.
func without(a, b []string) []string {
	out := []string{}
	for _, id := range a {
		if !slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	return out
}
