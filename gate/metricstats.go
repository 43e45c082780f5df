package gate

// MetricStats are the paired statistics of one metric's per-query deltas
// (head − base) over the queries the verdict counts, as that metric's
// mean-drop rule counts them (a waived loss as 0). For MetricRecall they
// are the comparison's Stats; for MetricNDCG, MetricPrecision,
// MetricContextRecall and MetricCoverage they are computed the same way,
// so a report can put an interval and a p-value on every delta it shows.
func (c *Comparison) MetricStats(metric string) PairedStats {
	if metric == MetricRecall {
		return c.Stats
	}
	// A key the registry does not know is the program's error, never
	// another metric's numbers.
	m := mustMetric(metric)
	rule := ""
	for _, r := range rules {
		if r.Kind == KindDrop && r.Metric == m && r.InLimits() {
			rule = r.Key
			break
		}
	}
	var deltas []float64
	for i := range c.Queries {
		p := &c.Queries[i]
		if !p.counted() {
			continue
		}
		d := m.Of(&p.Head) - m.Of(&p.Base)
		if d < 0 && c.waivedFor(p, rule) {
			d = 0
		}
		deltas = append(deltas, d)
	}
	return Paired(deltas)
}
