package gate

import (
	"fmt"
	"math"
	"strings"
)

// RuleAPDrop holds the drop of mean average precision at N.
const RuleAPDrop = "max_ap_drop"

// RuleKind says how a rule holds its metric against its limit.
type RuleKind string

// The kinds of rule.
const (
	// KindDrop holds the drop of a metric's mean (base − head).
	KindDrop RuleKind = "drop"
	// KindFloor holds the head's mean of a metric under a floor.
	KindFloor RuleKind = "floor"
	// KindCount holds a count of queries, facts or documents.
	KindCount RuleKind = "count"
	// KindRatio holds head / base.
	KindRatio RuleKind = "ratio"
)

// Rule describes one rule of the gate: its [gate] key, its kind, the
// metric it reads, its default, whether a [[gate.segment]] may set it, and
// how its limit is read from a group's Limits. Every rule is registered
// once, in rules; rule names, the segment message, the limits' checks,
// the report's rule words and the strict reader's allowlist come from it.
type Rule struct {
	// Key is the [gate] key that sets the rule, and the rule's name.
	Key string
	// Kind is how the rule holds its metric.
	Kind RuleKind
	// Metric is the registered metric the rule reads.
	Metric *Metric
	// Default is the rule's default as docs write it ("0.02", "off").
	Default string
	// Segments is true when a [[gate.segment]] may set the rule.
	Segments bool
	// Always is true for a rule every comparison applies to the whole
	// set (the report reader refuses a report without it).
	Always bool
	// About is the rule's one-line meaning in docs/rules.md.
	About string
	// words, when set, is how the gate line names the rule ("tail
	// growth"); {metric} stands for the metric's label.
	words string
	// ratio, frac and count read the rule's limit from a group's Limits:
	// frac a share within 0–1, count a count ≥ 0; nil for a rule only
	// the whole set's Thresholds hold.
	frac  func(*Limits) **float64
	count func(*Limits) **int
	// th points at the rule's field in the whole set's Thresholds: a
	// *float64 or *int the rule always holds (a ratio's 0 is off), or a
	// **float64 or **int, nil when off.
	th func(*Thresholds) any
	// counted applies a count rule Limits holds to a group at its limit;
	// false when the rule does not apply there. nil for a count applied
	// apart (the refusal check's).
	counted func(c *Comparison, s ruleScope, limit int) (RuleResult, bool)
}

// IsCount reports whether the rule's limit is a whole number (a config
// reads it as an integer).
func (r *Rule) IsCount() bool {
	switch r.th(&Thresholds{}).(type) {
	case *int, **int:
		return true
	}
	return false
}

// Setting is the rule's whole-set limit in t and whether the rule is on.
func (r *Rule) Setting(t *Thresholds) (v float64, on bool) {
	switch p := r.th(t).(type) {
	case *float64:
		return *p, *p != 0 || r.Kind != KindRatio
	case *int:
		return float64(*p), true
	case **float64:
		if *p != nil {
			return **p, true
		}
	case **int:
		if *p != nil {
			return float64(**p), true
		}
	}
	return 0, false
}

// LimitIn is the rule's limit in a group's Limits and whether it is set
// there (false for a rule Limits does not hold).
func (r *Rule) LimitIn(l *Limits) (v float64, on bool) {
	switch {
	case r.frac != nil && *r.frac(l) != nil:
		return **r.frac(l), true
	case r.count != nil && *r.count(l) != nil:
		return float64(**r.count(l)), true
	}
	return 0, false
}

// SetIn sets the rule's limit in a group's Limits to v (nothing for a rule
// Limits does not hold).
func (r *Rule) SetIn(l *Limits, v float64) {
	switch {
	case r.frac != nil:
		*r.frac(l) = &v
	case r.count != nil:
		n := int(v)
		*r.count(l) = &n
	}
}

// Set turns the rule on in t with the limit v (a count's v is whole).
func (r *Rule) Set(t *Thresholds, v float64) {
	switch p := r.th(t).(type) {
	case *float64:
		*p = v
	case *int:
		*p = int(v)
	case **float64:
		*p = &v
	case **int:
		n := int(v)
		*p = &n
	}
}

// check reports a limit v the rule cannot hold, for the key named.
func (r *Rule) check(key string, v float64) error {
	switch {
	case r.Kind == KindRatio:
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return &RuleError{Key: key, Err: fmt.Errorf("must be a positive ratio such as 1.5, got %v", v)}
		}
	case r.IsCount():
		if v < 0 {
			return &RuleError{Key: key, Err: fmt.Errorf("must not be negative, got %d", int(v))}
		}
	case v < 0 || v > 1 || math.IsNaN(v):
		return &RuleError{Key: key, Err: fmt.Errorf("must be within 0–1, got %v", v)}
	}
	return nil
}

// Words names the rule as the report's gate line does ("recall@10
// drop", "new zero-recall") at the depths.
func (r *Rule) Words(d Depth) string {
	if r.words != "" {
		return strings.ReplaceAll(r.words, "{metric}", r.Metric.Label(d))
	}
	if r.Kind == KindDrop {
		return r.Metric.Label(d) + " drop"
	}
	return r.Metric.Label(d)
}

// InLimits reports whether a group's Limits hold the rule (a segment or
// the whole set's limits).
func (r *Rule) InLimits() bool { return r.frac != nil || r.count != nil }

// Config is how the rule's config value is read, for docs: "0–1" or
// "count ≥ 0" or "ratio > 0".
func (r *Rule) Config() string {
	switch {
	case r.Kind == KindRatio:
		return "ratio > 0"
	case r.count != nil || r.Kind == KindCount:
		return "count ≥ 0"
	}
	return "0–1"
}

// Limits are the rules that apply to a group of queries: the whole set or
// one segment. A nil field is off.
type Limits struct {
	MaxRecallDrop, MaxNDCGDrop, MaxPrecisionDrop *float64
	MaxBelowIncrease                             *int
	MinRecall, MinNDCG                           *float64
	// MaxFalseAnswersIncrease and MaxFalseRefusalsIncrease are the refusal
	// check's rules (see Thresholds).
	MaxFalseAnswersIncrease, MaxFalseRefusalsIncrease *int
	// The final-context rules (see Thresholds).
	MaxContextRecallDrop, MaxEvidenceDrop *float64
	MaxFactsLost                          *int
	// MaxAPDrop bounds the drop of mean AP@N; nil is off.
	MaxAPDrop *float64
}

// limits are the whole-set rules of t that Limits holds and that may be
// off; a rule the whole set always holds (recall's drop, the refusal
// counts: a plain value in Thresholds) is applied apart.
func (t Thresholds) limits() Limits {
	var l Limits
	for _, r := range rules {
		switch p := r.th(&t).(type) {
		case **float64:
			if r.frac != nil {
				*r.frac(&l) = *p
			}
		case **int:
			if r.count != nil {
				*r.count(&l) = *p
			}
		}
	}
	return l
}

// rules is the registry, in the order reports show the rules.
var rules = registerRules([]*Rule{
	{Key: RuleRecallDrop, Always: true, th: func(t *Thresholds) any { return &t.MaxRecallDrop }, Kind: KindDrop, Metric: mustMetric(MetricRecall), Default: "0.02", Segments: true,
		About: "largest drop of mean recall@N that passes", frac: func(l *Limits) **float64 { return &l.MaxRecallDrop }},
	{Key: RuleNewMisses, Always: true, th: func(t *Thresholds) any { return &t.MaxNewMisses }, Kind: KindCount, Metric: mustMetric(MetricZero), Default: "0", words: "new zero-recall",
		About: "queries that found a relevant document on the base and none on the head"},
	{Key: RuleNDCGDrop, th: func(t *Thresholds) any { return &t.MaxNDCGDrop }, Kind: KindDrop, Metric: mustMetric(MetricNDCG), Default: "0.05", Segments: true,
		About: "largest drop of mean nDCG@k that passes", frac: func(l *Limits) **float64 { return &l.MaxNDCGDrop }},
	{Key: RulePrecisionDrop, th: func(t *Thresholds) any { return &t.MaxPrecisionDrop }, Kind: KindDrop, Metric: mustMetric(MetricPrecision), Default: "0.05", Segments: true,
		About: "largest drop of mean precision@k that passes", frac: func(l *Limits) **float64 { return &l.MaxPrecisionDrop }},
	{Key: RuleAPDrop, th: func(t *Thresholds) any { return &t.MaxAPDrop }, Kind: KindDrop, Metric: mustMetric(MetricAP), Default: "off", Segments: true,
		About: "largest drop of mean average precision at N (MAP@N) that passes", frac: func(l *Limits) **float64 { return &l.MaxAPDrop }},
	{Key: RuleBelowIncrease, th: func(t *Thresholds) any { return &t.MaxBelowIncrease }, Kind: KindCount, Metric: mustMetric(MetricBelow), Default: "off", Segments: true, words: "tail growth",
		About: "how many more queries than on the base may fall under report.below recall@N", count: func(l *Limits) **int { return &l.MaxBelowIncrease },
		counted: func(c *Comparison, s ruleScope, limit int) (RuleResult, bool) { return c.belowRule(s, limit), true }},
	{Key: RuleMinRecall, th: func(t *Thresholds) any { return &t.MinRecall }, Kind: KindFloor, Metric: mustMetric(MetricRecall), Default: "off", Segments: true,
		About: "floor on the head's mean recall@N", frac: func(l *Limits) **float64 { return &l.MinRecall }},
	{Key: RuleMinNDCG, th: func(t *Thresholds) any { return &t.MinNDCG }, Kind: KindFloor, Metric: mustMetric(MetricNDCG), Default: "off", Segments: true,
		About: "floor on the head's mean nDCG@k", frac: func(l *Limits) **float64 { return &l.MinNDCG }},
	{Key: RuleFalseAnswers, th: func(t *Thresholds) any { return &t.MaxFalseAnswersIncrease }, Kind: KindCount, Metric: mustMetric(MetricFalseAnswers), Default: "0", Segments: true, words: "false answers",
		About: "how many more unanswerable queries the head would answer", count: func(l *Limits) **int { return &l.MaxFalseAnswersIncrease }},
	{Key: RuleFalseRefusals, th: func(t *Thresholds) any { return &t.MaxFalseRefusalsIncrease }, Kind: KindCount, Metric: mustMetric(MetricFalseRefusals), Default: "0", Segments: true, words: "false refusals",
		About: "how many more answerable queries the head would refuse", count: func(l *Limits) **int { return &l.MaxFalseRefusalsIncrease }},
	{Key: RuleLatencyRatio, th: func(t *Thresholds) any { return &t.MaxLatencyRatio }, Kind: KindRatio, Metric: mustMetric(MetricLatency), Default: "off", words: "p95 latency ratio",
		About: "largest head p95 / base p95 latency of the retriever calls"},
	{Key: RuleContextRecallDrop, th: func(t *Thresholds) any { return &t.MaxContextRecallDrop }, Kind: KindDrop, Metric: mustMetric(MetricContextRecall), Default: "off", Segments: true,
		About: "largest drop of mean context document recall", frac: func(l *Limits) **float64 { return &l.MaxContextRecallDrop }},
	{Key: RuleEvidenceDrop, th: func(t *Thresholds) any { return &t.MaxEvidenceDrop }, Kind: KindDrop, Metric: mustMetric(MetricCoverage), Default: "off", Segments: true,
		About: "largest drop of mean evidence coverage", frac: func(l *Limits) **float64 { return &l.MaxEvidenceDrop }},
	{Key: RuleFactsLost, th: func(t *Thresholds) any { return &t.MaxFactsLost }, Kind: KindCount, Metric: mustMetric(MetricFactsLost), Default: "0 (sets with evidence)", Segments: true, words: "facts lost",
		About: "required facts in the base's final context and not in the head's", count: func(l *Limits) **int { return &l.MaxFactsLost },
		counted: func(c *Comparison, s ruleScope, limit int) (RuleResult, bool) {
			// On the whole set only with evidence; a segment's own limit always.
			if s.label == "" && !c.Set.hasEvidence() {
				return RuleResult{}, false
			}
			return c.factsRule(s, limit), true
		}},
	{Key: RuleBaselineDrop, th: func(t *Thresholds) any { return &t.MaxBaselineDrop }, Kind: KindDrop, Metric: mustMetric(MetricRecall), Default: "off", words: "{metric} below the baseline",
		About: "how far the head's mean recall@N may fall below the reviewed baseline run's"},
	{Key: RuleMissingGold, th: func(t *Thresholds) any { return &t.MaxMissingGold }, Kind: KindCount, Metric: mustMetric(MetricMissingGold), Default: "0 (drift runs)", words: "gold left the corpus",
		About: "relevant gold documents the corpus no longer holds (drift runs)"},
})

// registerRules checks the rule registry at start-up.
func registerRules(rs []*Rule) []*Rule {
	if err := checkRules(rs); err != nil {
		panic(err)
	}
	return rs
}

// checkRules reports a rule registry that cannot work: a rule without a
// key or metric, a key twice, a metric the metric registry does not know,
// a drop or floor rule on a metric with no per-query value, a segment
// rule its Limits cannot hold.
func checkRules(rs []*Rule) error {
	seen := map[string]bool{}
	for i, r := range rs {
		switch {
		case r.Key == "" || r.Metric == nil || r.th == nil:
			return fmt.Errorf("rule registry: entry %d has no key, metric or Thresholds field", i)
		case seen[r.Key]:
			return fmt.Errorf("rule registry: %s is registered twice", r.Key)
		case (r.Kind == KindDrop || r.Kind == KindFloor) && !r.Metric.PerQuery():
			return fmt.Errorf("rule registry: %s (%s) reads %s, which has no per-query value", r.Key, r.Kind, r.Metric.Key)
		case r.Segments && !r.InLimits():
			return fmt.Errorf("rule registry: %s is allowed in segments but no Limits field holds it", r.Key)
		}
		if m, err := LookupMetric(r.Metric.Key); err != nil || m != r.Metric {
			return fmt.Errorf("rule registry: %s reads metric %q, which is not registered", r.Key, r.Metric.Key)
		}
		seen[r.Key] = true
	}
	return nil
}

// Rules returns every registered rule, in report order.
func Rules() []*Rule { return rules }

// LookupRule returns the registered rule with the key, or nil.
func LookupRule(key string) *Rule {
	for _, r := range rules {
		if r.Key == key {
			return r
		}
	}
	return nil
}

// ruleKeys lists the keys of the rules keep accepts.
func ruleKeys(keep func(*Rule) bool) []string {
	var out []string
	for _, r := range rules {
		if keep(r) {
			out = append(out, r.Key)
		}
	}
	return out
}

// segmentRuleList is the segment rules for a message: "a, b or c".
func segmentRuleList() string {
	keys := ruleKeys(func(r *Rule) bool { return r.Segments })
	if len(keys) < 2 {
		return strings.Join(keys, "")
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}
