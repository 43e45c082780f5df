package gate

import (
	"fmt"
	"slices"
	"strings"
)

// Rule names, spelled as the [gate] keys that set them.
const (
	RuleRecallDrop    = "max_recall_drop"
	RuleNewMisses     = "max_new_misses"
	RuleNDCGDrop      = "max_ndcg_drop"
	RulePrecisionDrop = "max_precision_drop"
	RuleBelowIncrease = "max_below_increase"
	RuleMinRecall     = "min_recall"
	RuleMinNDCG       = "min_ndcg"
	RuleLatencyRatio  = "max_latency_ratio"
	// RuleBaselineDrop holds the head's mean recall@N against the reviewed
	// baseline run's (the erosion rule): a string of small drops, each
	// within max_recall_drop of its own base, does not pass unseen.
	RuleBaselineDrop = "max_baseline_drop"
	// The final-context rules.
	RuleContextRecallDrop = "max_context_recall_drop"
	RuleEvidenceDrop      = "max_evidence_drop"
	RuleFactsLost         = "max_facts_lost"
	// RuleMissingGold is the drift run's rule on gold documents that left
	// the corpus (Thresholds.MaxMissingGold).
	RuleMissingGold = "max_missing_gold"
)

// RuleNames lists every rule a waiver may name, in the order reports show
// them: the rule registry's keys.
var RuleNames = ruleKeys(func(*Rule) bool { return true })

// Metric keys a rule reads: the JSON report's metric keys, plus the count of
// queries under the `below` recall and the head/base latency ratio.
const (
	MetricRecall    = "recall_at_n"
	MetricPrecision = "precision_at_k"
	MetricNDCG      = "ndcg_at_k"
	MetricZero      = "zero_recall"
	MetricBelow     = "below"
	MetricLatency   = "latency_p95"
	// The final context's: context document recall, evidence coverage
	// and the count of facts lost.
	MetricContextRecall = "context_recall"
	MetricCoverage      = "evidence_coverage"
	MetricFactsLost     = "facts_lost"
	// MetricMissingGold counts the relevant gold documents the corpus no
	// longer holds (RuleMissingGold).
	MetricMissingGold = "missing_gold"
)

// Outcomes of one rule.
const (
	RulePass         = "pass"
	RuleFail         = "fail"
	RuleInconclusive = "inconclusive"
	// RuleSkipped: the rule could not be applied (a segment too small to
	// gate, latency not measured); the reason says why.
	RuleSkipped = "skipped"
)

// Defaults of the rules beyond recall.
const (
	// DefaultMaxNDCGDrop is the largest drop of mean nDCG@k that passes.
	DefaultMaxNDCGDrop = 0.05
	// DefaultMaxPrecisionDrop is the largest drop of mean precision@k that passes.
	DefaultMaxPrecisionDrop = 0.05
	// DefaultMinFlipped is how many queries must move the wrong way before
	// a mean-drop rule may fail (1: any drop beyond the limit counts).
	DefaultMinFlipped = 1
	// DefaultMinSegmentQueries is the smallest segment a segment rule gates.
	DefaultMinSegmentQueries = 5
	// DefaultMaxFactsLost is how many required facts may leave the final
	// context, on a set with evidence: a fact the model read on the base
	// and does not on the head is a regression whatever the means say.
	DefaultMaxFactsLost = 0
)

// Validate reports a limit outside 0–1 or a negative count; where names
// the table for the message ("gate", "gate.segment[0]").
func (l Limits) Validate(where string) error {
	for _, r := range rules {
		if v, on := r.LimitIn(&l); on {
			if err := r.check(r.Key, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// empty reports whether no rule is set.
func (l Limits) empty() bool {
	return l.documentLimits().none() && !l.refusal()
}

// none reports whether no document or context rule is set.
func (l Limits) none() bool {
	for _, r := range rules {
		if r.Metric.Key == MetricFalseAnswers || r.Metric.Key == MetricFalseRefusals {
			continue
		}
		if _, on := r.LimitIn(&l); on {
			return false
		}
	}
	return true
}

// refusal reports whether a refusal rule is set.
func (l Limits) refusal() bool {
	return l.MaxFalseAnswersIncrease != nil || l.MaxFalseRefusalsIncrease != nil
}

// documentLimits are l without the refusal rules.
func (l Limits) documentLimits() Limits {
	l.MaxFalseAnswersIncrease, l.MaxFalseRefusalsIncrease = nil, nil
	return l
}

// RuleError is a rule key with a bad value; the config reader turns it into
// an error naming the file and line.
type RuleError struct {
	Key string
	Err error
}

// Error implements error.
func (e *RuleError) Error() string { return fmt.Sprintf("%s: %v", e.Key, e.Err) }

// Unwrap returns the underlying error.
func (e *RuleError) Unwrap() error { return e.Err }

// SegmentRule gates one segment of the set with its own limits.
type SegmentRule struct {
	// Name is a declared segment ("keyword"), an automatic group ("auto:
	// short", or bare when no query declares that name) or a source
	// ("source: log").
	Name string
	Limits
	// File and Line say where the rule was written, for errors.
	File string
	Line int
}

// RuleResult is one rule applied to one group of queries.
type RuleResult struct {
	// Name is the rule's key (RuleRecallDrop, …); Metric what it reads.
	Name, Metric string
	// Depth is N or k, 0 for latency.
	Depth int
	// Segment is the segment's label, "" for the whole set.
	Segment string
	// Queries is how many queries the rule looked at.
	Queries int
	// Base and Head are the values on each side (means, counts or p95
	// milliseconds); Value is what is held against Limit (a drop, an
	// increase, the head's mean, a ratio).
	Base, Head, Value, Limit float64
	// Outcome is RulePass, RuleFail, RuleInconclusive or RuleSkipped.
	Outcome string
	// Flipped counts the queries that moved the wrong way on the metric.
	Flipped int
	// Why is the reason line when the outcome is not pass.
	Why string
	// Note explains an inconclusive or skipped outcome.
	Note string
	// PValue is the sign-flip p of the rule's per-query deltas when the
	// rule was tested for significance (require_significance, beyond its
	// limit, enough queries flipped); nil when it was not. AdjustedP is
	// that p after Holm's correction over every rule so tested in the
	// comparison (equal to PValue when it is the only one).
	PValue, AdjustedP *float64
	// sigWhat names what was tested in the note ("the recall@10 drop",
	// with the segment first); sigN is how many queries the test paired.
	sigWhat string
	sigN    int
	// unsureWhy, when set, replaces Why if the test is not significant;
	// sureWhy is added to Why if it is (the documents nobody judged).
	unsureWhy, sureWhy string
	// family says the rule is one of Holm's family: a rule of a
	// significance-tested kind that the comparison applied under
	// require_significance, breached or not (see holm).
	family bool
	// seats are the places in Holm's family of a segment's rules skipped
	// because the segment is smaller than min_segment_queries: the rules
	// of the family they would be once it is not, so a change that grows
	// the segment in its set does not grow the family.
	seats int
}

// familySeats is how many of rules are of Holm's family.
func familySeats(rules []RuleResult) int {
	n := 0
	for _, r := range rules {
		if r.family {
			n++
		}
	}
	return n
}

// segmentKind says which kind of group a segment rule's name means in the
// set: "segment" (declared by some query), "auto" or "source", and the bare
// name; ok is false when the set has no such group.
func segmentKind(set *Set, name string) (kind, bare string, ok bool) {
	bare = strings.TrimSpace(name)
	if k, v, found := strings.Cut(bare, ":"); found {
		kind, bare = strings.TrimSpace(k), strings.TrimSpace(v)
	}
	declared, sourced := false, false
	for _, q := range set.Queries {
		declared = declared || slices.Contains(q.Segments, bare)
		sourced = sourced || q.Source == bare
	}
	auto := slices.Contains([]string{"keyword", "question", "statement", "short", "long"}, bare)
	switch {
	case (kind == "" || kind == "segment") && declared:
		return "segment", bare, true
	case (kind == "" || kind == "auto") && auto:
		return "auto", bare, true
	case kind == "source" && sourced:
		return "source", bare, true
	}
	return "", bare, false
}

// CheckSegments reports the first segment rule whose name is no group of
// the set, as an *InputError naming the rule's file and line, so a typo
// stops the gate before anything is retrieved.
func (t Thresholds) CheckSegments(set *Set) error {
	for i, sr := range t.Segments {
		if _, _, ok := segmentKind(set, sr.Name); !ok {
			return &InputError{File: sr.File, Line: sr.Line, Field: fmt.Sprintf("gate.segment[%d].name", i),
				Err: fmt.Errorf("no segment %q in %s (declared segments: %s; automatic: keyword, question, short, long; or source: NAME)", sr.Name, set.Path, orNone(set.declaredSegments()))}
		}
	}
	return nil
}

// resolveSegment finds the non-synthetic queries of a segment rule's name.
func resolveSegment(c *Comparison, name string) (label string, members []*PairedQuery, ok bool) {
	kind, bare, ok := segmentKind(c.Set, name)
	if !ok {
		return "", nil, false
	}
	for i := range c.Queries {
		p := &c.Queries[i]
		if p.Synthetic {
			continue
		}
		var in bool
		switch kind {
		case "segment":
			in = slices.Contains(p.Query.Segments, bare)
		case "auto":
			in = p.Query.Text != "" && slices.Contains(autoSegments(p.Query.Text), bare)
		case "source":
			in = p.Query.Source == bare
		}
		if in {
			members = append(members, p)
		}
	}
	label = bare
	if kind != "segment" {
		label = kind + ": " + bare
	}
	return label, members, true
}

// waivedFor reports whether a waiver covers the query for the rule.
func (c *Comparison) waivedFor(p *PairedQuery, rule string) bool {
	w := c.waivers[p.Query.ID]
	return w != nil && (len(w.Rules) == 0 || slices.Contains(w.Rules, rule))
}

// ruleScope describes the group a set of rules runs over.
type ruleScope struct {
	label   string
	queries []*PairedQuery // counted queries only
}
