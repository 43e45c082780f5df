package gate

import (
	"fmt"
	"slices"
	"strings"
)

// MetricDepth says which depth a metric is cut at.
type MetricDepth int

// The depths a metric is cut at.
const (
	// AtNone: the metric has no depth (MRR over the whole list, a count).
	AtNone MetricDepth = iota
	// AtN: the candidate depth N.
	AtN
	// AtK: the context depth k.
	AtK
)

// String is the depth's letter as docs write it: "N", "k" or "".
func (d MetricDepth) String() string {
	switch d {
	case AtN:
		return "N"
	case AtK:
		return "k"
	}
	return ""
}

// Of is the depth d holds for this kind (0 for AtNone).
func (d MetricDepth) Of(dp Depth) int {
	switch d {
	case AtN:
		return dp.Candidates
	case AtK:
		return dp.Context
	}
	return 0
}

// Metric describes one metric: its JSON key, how reports name it, its
// depth, which way is better, how one query's value is computed and how
// the queries' values are summarised. Every metric is registered once,
// in metrics; the rules, the reports and the strict report reader read
// it from there.
type Metric struct {
	// Key is the metric's JSON key ("recall_at_n").
	Key string
	// Name is how reports name it, before the depth ("recall", "nDCG").
	Name string
	// Depth is the depth the metric is cut at.
	Depth MetricDepth
	// Tail follows the label ("recall@10 < below").
	Tail string
	// Higher is true when a higher value is better (false for a count of
	// things lost or a latency).
	Higher bool
	// Document is true for a per-query document metric: every report
	// carries its value per query, per side's summary and as a delta.
	Document bool
	// Unit, Denominator and Stage document the metric in every JSON
	// report's "metrics" list (document metrics only).
	Unit, Denominator, Stage string
	// Summary says how the queries' values are summarised (docs).
	Summary string
	// About is the one-line meaning the docs' metric table shows.
	About string
	// context says the metric is read from the final context, over the
	// queries that have one (and evidence, with evidence).
	context, evidence bool
	// field reads a value the scorer keeps in a QueryScore field of its
	// own (the historic metrics); nil for a count a rule reads apart.
	field func(*QueryScore) float64
	// score computes a metric added through the registry from a query's
	// document score (its gold ranks, found and relevant counts); its
	// value is kept in QueryScore.More at slot.
	score func(s *QueryScore, d Depth) float64
	slot  int
}

// Label is the metric's name with its depth: "recall@10", "MRR".
func (m *Metric) Label(d Depth) string {
	if m.Depth == AtNone {
		return m.Name + m.Tail
	}
	return fmt.Sprintf("%s@%d%s", m.Name, m.Depth.Of(d), m.Tail)
}

// PerQuery reports whether the metric has a per-query value Of reads.
func (m *Metric) PerQuery() bool { return m.field != nil || m.score != nil }

// Of is one query's value of the metric (0 for a metric with no per-query
// value).
func (m *Metric) Of(s *QueryScore) float64 {
	switch {
	case m.field != nil:
		return m.field(s)
	case m.score != nil && m.slot < len(s.More):
		return s.More[m.slot]
	}
	return 0
}

// Mean is the metric's mean over the queries of a summary (document
// metrics only).
func (m *Metric) Mean(s *Summary) float64 { return m.pick(s.Recall, s.Precision, s.NDCG, s.RR, s.More) }

// TrecMean is the metric's mean as trec_eval averages it (document
// metrics only).
func (m *Metric) TrecMean(t *TrecMeans) float64 {
	return m.pick(t.Recall, t.Precision, t.NDCG, t.RR, t.More)
}

// Delta is the metric's head − base in d (document metrics only).
func (m *Metric) Delta(d *Delta) float64 { return m.pick(d.Recall, d.Precision, d.NDCG, d.RR, d.More) }

// pick is the metric's value among a summary's four historic fields, or,
// for a metric added through the registry, its slot of more.
func (m *Metric) pick(recall, precision, ndcg, rr float64, more []float64) float64 {
	switch m.Key {
	case MetricRecall:
		return recall
	case MetricPrecision:
		return precision
	case MetricNDCG:
		return ndcg
	case MetricRR:
		return rr
	}
	return moreAt(more, m)
}

// moreAt reads a registry-added metric's value from a More slice.
func moreAt(more []float64, m *Metric) float64 {
	if m.score == nil || m.slot >= len(more) {
		return 0
	}
	return more[m.slot]
}

// MetricRR is the JSON key of the reciprocal rank of the first relevant
// document (reported as MRR).
const MetricRR = "rr"

// MetricAP is the JSON key of average precision at N.
const MetricAP = "ap_at_n"

// averagePrecision is AP@N as trec_eval's map_cut.N computes it: the run
// cut at N, the precision at the rank of each relevant document found
// there, summed, divided by the query's relevant documents (0 without).
func averagePrecision(s *QueryScore, d Depth) float64 {
	if s.Relevant == 0 {
		return 0
	}
	ranks := make([]int, 0, len(s.GoldRanks))
	for _, r := range s.GoldRanks {
		if r <= d.Candidates {
			ranks = append(ranks, r)
		}
	}
	slices.Sort(ranks)
	sum := 0.0
	for i, r := range ranks {
		sum += float64(i+1) / float64(r)
	}
	return sum / float64(s.Relevant)
}

// metrics is the registry: every metric, document metrics first in the
// order reports show them.
var metrics = register([]*Metric{
	{Key: MetricRecall, Name: "recall", Depth: AtN, Higher: true, Document: true, Unit: "documents", Denominator: "relevant gold documents of the query", Stage: "candidates",
		Summary: "mean over the answerable queries", About: "share of the query's relevant documents in the top N",
		field: func(s *QueryScore) float64 { return s.Recall }},
	{Key: MetricPrecision, Name: "precision", Depth: AtK, Higher: true, Document: true, Unit: "documents", Denominator: "k (the context depth), even when fewer came back", Stage: "context",
		Summary: "mean over the answerable queries", About: "share of the top k that is relevant",
		field: func(s *QueryScore) float64 { return s.Precision }},
	{Key: MetricNDCG, Name: "nDCG", Depth: AtK, Higher: true, Document: true, Unit: "documents", Denominator: "DCG of the ideal ranking of the gold grades, cut to k", Stage: "context",
		Summary: "mean over the answerable queries", About: "graded gain of the top k, discounted by rank, over the ideal ranking's",
		field: func(s *QueryScore) float64 { return s.NDCG }},
	{Key: MetricRR, Name: "MRR", Depth: AtNone, Higher: true, Document: true, Unit: "documents", Denominator: "rank of the first relevant document in the whole list", Stage: "candidates",
		Summary: "mean over the answerable queries (MRR)", About: "1 / rank of the first relevant document",
		field: func(s *QueryScore) float64 { return s.RR }},
	{Key: MetricAP, Name: "AP", Depth: AtN, Higher: true, Document: true, Unit: "documents", Denominator: "relevant gold documents of the query", Stage: "candidates",
		Summary: "mean over the answerable queries (MAP@N)", About: "average precision at N, as trec_eval's map_cut.N: precision at each relevant document's rank in the top N, summed, over the query's relevant documents",
		score: averagePrecision},
	{Key: MetricZero, Name: "zero recall", Higher: false, Summary: "count of queries", About: "queries with no relevant document in the top N"},
	{Key: MetricBelow, Name: "recall", Depth: AtN, Tail: " < below", Higher: false, Summary: "count of queries", About: "queries with recall@N under report.below"},
	{Key: MetricLatency, Name: "p95 latency (ms)", Higher: false, Summary: "95th percentile of the retriever calls, ms", About: "time a retriever call took"},
	{Key: MetricContextRecall, Name: "context recall", Higher: true, Summary: "mean over the queries with a final context", About: "share of the relevant documents in the final context", context: true,
		field: func(s *QueryScore) float64 {
			if s.Context == nil {
				return 0
			}
			return s.Context.Recall()
		}},
	{Key: MetricCoverage, Name: "evidence coverage", Higher: true, Summary: "mean over the queries with evidence", About: "share of the required facts the final context holds", context: true, evidence: true,
		field: func(s *QueryScore) float64 {
			if s.Context == nil {
				return 0
			}
			v, _ := s.Context.Coverage()
			return v
		}},
	{Key: MetricFactsLost, Name: "facts found in the final context", Higher: false, Summary: "count of facts", About: "required facts in the base's final context and not the head's"},
	{Key: MetricFalseAnswers, Name: "false answers", Higher: false, Summary: "count of queries", About: "unanswerable queries the pipeline would answer"},
	{Key: MetricFalseRefusals, Name: "false refusals", Higher: false, Summary: "count of queries", About: "answerable queries the pipeline would refuse"},
	{Key: MetricMissingGold, Name: "gold documents not in the corpus", Higher: false, Summary: "count of documents", About: "relevant gold documents the corpus no longer holds"},
})

// register checks the registry and numbers the slots of the metrics
// computed through it; a duplicate key or a document metric without a
// per-query value stops the program at start-up.
func register(ms []*Metric) []*Metric {
	if err := checkMetrics(ms); err != nil {
		panic(err)
	}
	slot := 0
	for _, m := range ms {
		if m.score != nil {
			m.slot = slot
			slot++
		}
	}
	return ms
}

// checkMetrics reports a registry that cannot work: a metric without a
// key or name, a key twice, a document metric with no per-query value.
func checkMetrics(ms []*Metric) error {
	seen := map[string]bool{}
	for i, m := range ms {
		switch {
		case m.Key == "" || m.Name == "":
			return fmt.Errorf("metric registry: entry %d has no key or name", i)
		case seen[m.Key]:
			return fmt.Errorf("metric registry: %s is registered twice", m.Key)
		case m.Document && m.field == nil && m.score == nil:
			return fmt.Errorf("metric registry: document metric %s has no per-query value", m.Key)
		case m.field != nil && m.score != nil:
			return fmt.Errorf("metric registry: metric %s is both a field and a score", m.Key)
		}
		seen[m.Key] = true
	}
	return nil
}

// Metrics returns the document metrics in report order: the ones every
// report carries per query and per side.
func Metrics() []*Metric {
	var out []*Metric
	for _, m := range metrics {
		if m.Document {
			out = append(out, m)
		}
	}
	return out
}

// AllMetrics returns every registered metric, document metrics first.
func AllMetrics() []*Metric { return metrics }

// LookupMetric returns the registered metric with the key; a key the
// registry does not know is an error, never a default.
func LookupMetric(key string) (*Metric, error) {
	for _, m := range metrics {
		if m.Key == key {
			return m, nil
		}
	}
	keys := make([]string, len(metrics))
	for i, m := range metrics {
		keys[i] = m.Key
	}
	return nil, fmt.Errorf("no metric %q (known: %s)", key, strings.Join(keys, ", "))
}

// mustMetric is LookupMetric for the registries' own references, read at
// start-up: an unknown key stops the program there.
func mustMetric(key string) *Metric {
	m, err := LookupMetric(key)
	if err != nil {
		panic(err)
	}
	return m
}

// scoreMore computes the registry-added metrics of a document score; nil
// when the registry adds none.
func scoreMore(s *QueryScore, d Depth) []float64 {
	var out []float64
	for _, m := range metrics {
		if m.score != nil {
			out = append(out, m.score(s, d))
		}
	}
	return out
}

// addMore adds b to a elementwise (a grown to b's length).
func addMore(a, b []float64) []float64 {
	for len(a) < len(b) {
		a = append(a, 0)
	}
	for i, v := range b {
		a[i] += v
	}
	return a
}

// scaleMore multiplies every value of a by f, in a copy.
func scaleMore(a []float64, f float64) []float64 {
	if a == nil {
		return nil
	}
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = v * f
	}
	return out
}

// subMore is head − base elementwise.
func subMore(base, head []float64) []float64 {
	if base == nil && head == nil {
		return nil
	}
	out := make([]float64, max(len(base), len(head)))
	for i := range out {
		var b, h float64
		if i < len(base) {
			b = base[i]
		}
		if i < len(head) {
			h = head[i]
		}
		out[i] = h - b
	}
	return out
}
