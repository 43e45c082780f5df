package fusion

import (
	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/orderedjson"
)

// The sweep's targets: the metric a setting is chosen by.
const (
	// TargetNDCG chooses by nDCG@k (the default).
	TargetNDCG = "ndcg"
	// TargetRecall chooses by recall@N.
	TargetRecall = "recall"
)

// Choice is what a sweep chose, from a table of each setting's target
// value on each query (values[setting][query]).
type Choice struct {
	// Chosen is the in-sample best: the setting with the highest mean over
	// every query (the first of equals). It is what a user would deploy.
	Chosen int
	// Held is, per query, the setting that is best on the other queries
	// (leave-one-query-out; the first of equals): the setting that query
	// is scored with in the cross-validated score.
	Held []int
	// Oracle is, per query, the setting best on that query alone (the
	// first of equals).
	Oracle []int
}

// Choose is the sweep's choice over values[setting][query]. With one
// query there are no other queries to choose by: Held is the first setting.
func Choose(values [][]float64) Choice {
	var c Choice
	if len(values) == 0 {
		return c
	}
	nq := len(values[0])
	sums := make([]float64, len(values))
	for s, vs := range values {
		for _, v := range vs {
			sums[s] += v
		}
	}
	c.Chosen = argmax(len(values), func(s int) float64 { return sums[s] })
	c.Held, c.Oracle = make([]int, nq), make([]int, nq)
	for q := 0; q < nq; q++ {
		c.Held[q] = argmax(len(values), func(s int) float64 { return sums[s] - values[s][q] })
		c.Oracle[q] = argmax(len(values), func(s int) float64 { return values[s][q] })
	}
	return c
}

// argmax is the first index of n with the highest f, equal within 1e-12.
func argmax(n int, f func(int) float64) int {
	best := 0
	for i := 1; i < n; i++ {
		if f(i) > f(best)+1e-12 {
			best = i
		}
	}
	return best
}

// Means are a fused run's mean recall@N and nDCG@k over the swept queries,
// written under the metrics' registry keys.
type Means struct {
	Recall float64
	NDCG   float64
}

// fields are m's values under their metric keys (pointers to them with
// to).
func (m *Means) fields(to bool) []orderedjson.Field {
	if to {
		return []orderedjson.Field{{Key: gate.MetricRecall, Value: &m.Recall}, {Key: gate.MetricNDCG, Value: &m.NDCG}}
	}
	return []orderedjson.Field{{Key: gate.MetricRecall, Value: m.Recall}, {Key: gate.MetricNDCG, Value: m.NDCG}}
}

// MarshalJSON writes the means under their metric keys.
func (m Means) MarshalJSON() ([]byte, error) { return orderedjson.Marshal(m.fields(false)...) }

// UnmarshalJSON reads what MarshalJSON writes, strictly.
func (m *Means) UnmarshalJSON(b []byte) error { return orderedjson.Unmarshal(b, m.fields(true)...) }

// QueryOracle is one query's best setting on it alone, against the chosen.
type QueryOracle struct {
	// Query is the query's id.
	Query string `json:"query"`
	// Best names the oracle setting (Setting.String); Value is its target
	// value on the query, Chosen the chosen setting's.
	Best   string  `json:"best"`
	Value  float64 `json:"value"`
	Chosen float64 `json:"chosen"`
}

// Swept is a fusion's sweep over the set: the cross-validated run it is
// ranked by, and what an in-sample choice would have claimed.
type Swept struct {
	// Settings are the swept settings; Chosen indexes the in-sample best.
	Settings []Setting
	Chosen   int
	// CV are the leave-one-query-out means, InSample the chosen setting's;
	// Optimism is InSample − CV on each metric.
	CV, InSample, Optimism Means
	// Oracle is each swept query's best setting alone, in set order.
	Oracle []QueryOracle
	// Run is the cross-validated run: each query fused with its Held
	// setting (every query of the set the inputs answered; a query that is
	// not swept, having no relevant document, is fused with Chosen).
	Run []gate.Result
}

// Sweep fuses every setting over the set's answerable queries that have a
// relevant document (inputs gives each query's input lists, nil when an
// input has no result for it), scores each at d, chooses by target
// (Choose) and makes the cross-validated run. Only each setting's two
// numbers per query are kept, never its lists.
func Sweep(set *gate.Set, d gate.Depth, settings []Setting, target string, inputs func(id string) [][]gate.Hit) *Swept {
	var swept []*gate.Query
	for _, q := range set.Queries {
		if !q.Unanswerable && q.Relevant() > 0 {
			swept = append(swept, q)
		}
	}
	recall := make([][]float64, len(settings))
	ndcg := make([][]float64, len(settings))
	seen := &gate.Seen{}
	for s, st := range settings {
		recall[s], ndcg[s] = make([]float64, len(swept)), make([]float64, len(swept))
		for i, q := range swept {
			hits := Fuse(st, inputs(q.ID), d.Candidates)
			for j := range hits {
				hits[j].Text = "" // the documents' scores only: no context to pack
			}
			qs := gate.ScoreQuery(q, hits, d, seen)
			recall[s][i], ndcg[s][i] = qs.Recall, qs.NDCG
		}
	}
	values := ndcg
	if target == TargetRecall {
		values = recall
	}
	c := Choose(values)
	out := &Swept{Settings: settings, Chosen: c.Chosen}
	n := float64(max(1, len(swept)))
	held := map[string]int{}
	for i, q := range swept {
		h := c.Held[i]
		held[q.ID] = h
		out.CV.Recall += recall[h][i] / n
		out.CV.NDCG += ndcg[h][i] / n
		out.InSample.Recall += recall[c.Chosen][i] / n
		out.InSample.NDCG += ndcg[c.Chosen][i] / n
		o := c.Oracle[i]
		out.Oracle = append(out.Oracle, QueryOracle{Query: q.ID, Best: settings[o].String(), Value: values[o][i], Chosen: values[c.Chosen][i]})
	}
	out.Optimism = Means{Recall: out.InSample.Recall - out.CV.Recall, NDCG: out.InSample.NDCG - out.CV.NDCG}
	for _, q := range set.Queries {
		lists := inputs(q.ID)
		if lists == nil {
			continue
		}
		s, ok := held[q.ID]
		if !ok {
			s = c.Chosen
		}
		out.Run = append(out.Run, gate.Result{ID: q.ID, Hits: Fuse(settings[s], lists, d.Candidates)})
	}
	return out
}
