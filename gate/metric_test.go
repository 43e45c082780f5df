package gate

import (
	"strings"
	"testing"
)

// TestUnknownMetricIsAnError: a metric key the registry does not know is
// an error, never recall: from LookupMetric, from the rule registry's
// check (run at start-up), and from MetricStats.
func TestUnknownMetricIsAnError(t *testing.T) {
	if m, err := LookupMetric("ap_at_7"); err == nil || m != nil || !strings.Contains(err.Error(), `no metric "ap_at_7"`) {
		t.Errorf("LookupMetric(ap_at_7) = %v, %v; want an error", m, err)
	}
	stray := &Metric{Key: "stray", Name: "stray", field: func(s *QueryScore) float64 { return s.Recall }}
	th := func(t *Thresholds) any { return &t.MaxAPDrop }
	err := checkRules([]*Rule{{Key: "max_stray_drop", Kind: KindDrop, Metric: stray, th: th}})
	if err == nil || err.Error() != `rule registry: max_stray_drop reads metric "stray", which is not registered` {
		t.Errorf("checkRules with an unregistered metric: %v", err)
	}
	err = checkRules([]*Rule{{Key: "max_zero_drop", Kind: KindDrop, Metric: mustMetric(MetricZero), th: th}})
	if err == nil || !strings.Contains(err.Error(), "has no per-query value") {
		t.Errorf("checkRules with a drop on a count: %v", err)
	}
	err = checkRules([]*Rule{{Key: "max_ap_drop", Kind: KindDrop, Metric: mustMetric(MetricAP)}})
	if err == nil || err.Error() != "rule registry: entry 0 has no key, metric or Thresholds field" {
		t.Errorf("checkRules with a rule no Thresholds field holds: %v", err)
	}
	if err := checkRules(rules); err != nil {
		t.Errorf("the registry itself: %v", err)
	}
	if err := checkMetrics(metrics); err != nil {
		t.Errorf("the metric registry itself: %v", err)
	}
	if err := checkMetrics([]*Metric{{Key: "x", Name: "x", Document: true}}); err == nil {
		t.Error("a document metric without a per-query value passed the check")
	}
	defer func() {
		if recover() == nil {
			t.Error("MetricStats(\"nope\") did not stop the program")
		}
	}()
	(&Comparison{}).MetricStats("nope")
}
