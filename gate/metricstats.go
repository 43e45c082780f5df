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
	rule := map[string]string{MetricNDCG: RuleNDCGDrop, MetricPrecision: RulePrecisionDrop, MetricContextRecall: RuleContextRecallDrop, MetricCoverage: RuleEvidenceDrop}[metric]
	var deltas []float64
	for i := range c.Queries {
		p := &c.Queries[i]
		if !p.counted() {
			continue
		}
		d := metricOf(&p.Head, metric) - metricOf(&p.Base, metric)
		if d < 0 && c.waivedFor(p, rule) {
			d = 0
		}
		deltas = append(deltas, d)
	}
	return Paired(deltas)
}
