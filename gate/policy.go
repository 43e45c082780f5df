package gate

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Default gate thresholds.
const (
	// DefaultMaxRecallDrop is the largest absolute drop of mean recall@N that passes.
	DefaultMaxRecallDrop = 0.02
	// DefaultMaxNewMisses is how many queries may newly reach zero recall.
	DefaultMaxNewMisses = 0
)

// epsilon absorbs floating-point noise when a delta is compared with a threshold.
const epsilon = 1e-9

// Thresholds decide the verdict of a comparison.
type Thresholds struct {
	// MinJudgeAgreement, when set, lets a judge program's grades count
	// where no person graded the document, once its relevant-or-not
	// Cohen's kappa against people reaches it on at least MinJudgeOverlap
	// documents both graded (0: config.DefaultMinJudgeOverlap). Unset,
	// judge grades are shown, never used.
	MinJudgeAgreement *float64 `json:",omitempty"`
	MinJudgeOverlap   int      `json:",omitempty"`
	// MaxRecallDrop is the largest absolute drop of mean recall@N that passes.
	MaxRecallDrop float64
	// MaxNewMisses is how many queries may go from some recall to none.
	MaxNewMisses int
	// RequireSignificance makes a mean drop beyond its limit fail only
	// when the paired sign-flip test on that metric's per-query deltas
	// finds it significant (p < 0.05); otherwise it is inconclusive.
	RequireSignificance bool
	// MaxNDCGDrop and MaxPrecisionDrop bound the drop of mean nDCG@k and
	// precision@k at the context depth; nil is off.
	MaxNDCGDrop, MaxPrecisionDrop *float64
	// MaxBelowIncrease bounds how many more queries than on the base have
	// recall@N under Depth.Below; nil is off.
	MaxBelowIncrease *int
	// MinRecall and MinNDCG are absolute floors on the head's means; nil is off.
	MinRecall, MinNDCG *float64
	// MinFlipped is how many queries must move the wrong way before a
	// mean-drop rule fails (0 means 1); never applied to new misses.
	MinFlipped int
	// MaxLatencyRatio bounds head p95 / base p95 latency; 0 is off.
	MaxLatencyRatio float64
	// MaxFalseAnswersIncrease and MaxFalseRefusalsIncrease bound how many
	// more unanswerable queries the head would answer, and how many more
	// answerable ones it would refuse, than the base (default 0). They
	// are evaluated only when both sides carry a refusal signal.
	MaxFalseAnswersIncrease, MaxFalseRefusalsIncrease int
	// MaxContextRecallDrop and MaxEvidenceDrop bound the drop of mean
	// context document recall and mean evidence coverage of the final
	// context; nil is off.
	MaxContextRecallDrop, MaxEvidenceDrop *float64
	// MaxFactsLost bounds the required facts found in the base's final
	// context and not in the head's; applied when the set has evidence
	// (default 0), nil is off.
	MaxFactsLost *int
	// MaxBaselineDrop bounds how far the head's mean recall@N may fall
	// below the reviewed baseline run's (Policy.Baseline), whatever its
	// own base; nil is off. (omitempty: the policy fingerprint of a
	// config without it is what it was before the rule.)
	MaxBaselineDrop *float64 `json:",omitempty"`
	// Segments gate segments with their own limits.
	Segments []SegmentRule
	// MinSegmentQueries is the smallest segment a segment rule gates
	// (0 means DefaultMinSegmentQueries); smaller ones are reported as
	// too small.
	MinSegmentQueries int
	// MaxMissingGold bounds, on a drift run (Policy.StaleGoldApart with a
	// known corpus), the relevant gold documents the corpus no longer
	// holds (default 0): a query that lost only such documents is kept out of the recall rules,
	// and this rule fails on them instead. Omitted from the policy
	// fingerprint at 0, so older fingerprints stay as they were.
	MaxMissingGold int `json:",omitempty"`
	// MaxAPDrop bounds the drop of mean AP@N; nil is off (omitted from
	// the policy fingerprint, so older fingerprints stay as they were).
	MaxAPDrop *float64 `json:",omitempty"`
	// Margin, when set, passes a change only when the one-sided 95% bound
	// on each gated mean's drop is within it (gate/bound); otherwise it is
	// inconclusive, or a fail with RequireProof. nil is off (omitted from
	// the fingerprint, as RequireProof when false).
	Margin       *float64 `json:",omitempty"`
	RequireProof bool     `json:",omitempty"`
	// Unjudged is how the context metrics read documents nobody judged:
	// "" or UnjudgedNonRelevant, UnjudgedCondensed, UnjudgedRangeMode (see
	// UnjudgedMode). "" is omitted from the fingerprint.
	Unjudged string `json:",omitempty"`
}

// DefaultThresholds returns the default thresholds: recall@N may drop by
// 0.02, no query may newly reach zero recall, nDCG@k and precision@k
// may drop by 0.05, and (on a set with evidence) no fact may leave the
// final context. The tail, the floors, latency and the context means are
// off until set.
func DefaultThresholds() Thresholds {
	ndcg, prec, facts := DefaultMaxNDCGDrop, DefaultMaxPrecisionDrop, DefaultMaxFactsLost
	return Thresholds{MaxRecallDrop: DefaultMaxRecallDrop, MaxNewMisses: DefaultMaxNewMisses,
		MaxNDCGDrop: &ndcg, MaxPrecisionDrop: &prec, MinFlipped: DefaultMinFlipped, MaxFactsLost: &facts}
}

// Validate reports thresholds that make no sense.
func (t Thresholds) Validate() error {
	for _, r := range rules {
		if v, on := r.Setting(&t); on {
			if err := r.check(r.Key, v); err != nil {
				return err
			}
		}
	}
	if err := CheckUnjudgedMode(t.Unjudged); err != nil {
		return &RuleError{Key: "unjudged", Err: err}
	}
	if t.MinFlipped < 0 {
		return &RuleError{Key: "min_flipped", Err: fmt.Errorf("must be at least 1, got %d", t.MinFlipped)}
	}
	if t.MinSegmentQueries < 0 {
		return &RuleError{Key: "min_segment_queries", Err: fmt.Errorf("must not be negative, got %d", t.MinSegmentQueries)}
	}
	for i, s := range t.Segments {
		if strings.TrimSpace(s.Name) == "" {
			return &RuleError{Key: fmt.Sprintf("segment[%d].name", i), Err: fmt.Errorf("required: the segment to gate")}
		}
		if s.Limits.empty() {
			return &RuleError{Key: fmt.Sprintf("segment[%d]", i), Err: fmt.Errorf("segment %q sets no rule (%s)", s.Name, segmentRuleList())}
		}
		if err := s.Limits.Validate(""); err != nil {
			var re *RuleError
			if errors.As(err, &re) {
				re.Key = fmt.Sprintf("segment[%d].%s", i, re.Key)
			}
			return err
		}
	}
	return nil
}

// Waiver accepts a known regression of one query until it expires.
type Waiver struct {
	Query, Reason string
	// Expires is the last day the waiver holds (UTC date).
	Expires time.Time
	// Rules limits the waiver to these rules (RuleRecallDrop, …); empty
	// means every rule.
	Rules []string
}

// The sources of a comparison's policy (PolicyReport.Source).
const (
	// PolicyBaseCommit: the base commit's config judged both sides.
	PolicyBaseCommit = "base-commit"
	// PolicyGivenConfig: the config given judged (no base commit, or one
	// without a config).
	PolicyGivenConfig = "given-config"
)

// The sources of the set a comparison scored on (SetChanges.Source).
const (
	// SetBaseCommit: the base commit's set scored both sides.
	SetBaseCommit = "base-commit"
	// SetGiven: the set given scored both sides (no base commit, or one
	// without a set: the change adopts recallgate or adds the set).
	SetGiven = "given"
)

// SetChanges says which eval set scored a comparison and what the head's
// set would change in it once merged (a proposal: the lists, in the base
// set's order then the head's, judge nothing before merge).
type SetChanges struct {
	// Source is SetBaseCommit or SetGiven; Queries is how many queries the
	// scored set holds.
	Source  string
	Queries int
	// Added are the head's queries the base set lacks; Removed the base's
	// the head drops (still gated); Relabelled those whose gold labels,
	// people's grades or evidence differ; Reworded those whose text
	// differs; Remarked those whose unanswerable mark, segments or source
	// differ; JudgeGrades those whose judge grades the head adds or
	// changes.
	Added, Removed, Relabelled, Reworded, Remarked, JudgeGrades []string
}

// PolicyReport says which config's gate policy (thresholds, depths,
// repeats, segment rules, the retriever topology) judged a comparison, and
// what the head's config would change in it once merged.
type PolicyReport struct {
	// Source is PolicyBaseCommit or PolicyGivenConfig.
	Source string
	// Commit is the base commit, when there is one.
	Commit string
	// Changes are the policy keys the head's config sets otherwise, in
	// PolicyKeys order (segments by name).
	Changes []PolicyChange
	// WaiversAdded are the head's waivers the base commit's config lacks.
	WaiversAdded []Waiver
	// MovedFrom, with PolicyBaseCommit, is the base commit's path of the
	// config that judged (relative to the repository's top, slashes) when
	// the change moved, renamed or linked the gate's config: the policy
	// is that file's, not what the job's path names in the change.
	MovedFrom string
}

// PolicyChange is one policy key the head's config sets otherwise than the
// base's, both values as the report shows them.
type PolicyChange struct {
	// Key is one of PolicyKeys; Base and Head its two values.
	Key, Base, Head string
}

// PolicyKeys are the keys a PolicyChange names, in report order: every
// registered rule in registry order, then the policy's other keys
// (policyOtherKeys); a segment rule's key is PolicySegmentKey followed by
// its name.
var PolicyKeys = append(ruleKeys(func(*Rule) bool { return true }), policyOtherKeys...)

// policyOtherKeys are the policy keys that are no rule, in report order.
var policyOtherKeys = []string{"min_flipped", "min_segment_queries", "require_significance", "max_waiver_days", "repeats",
	"depth.candidates", "depth.context", "report.below", "retrievers", "report.context_tokens", "baseline", "margin", "require_proof",
	"min_judge_agreement", "min_judge_overlap", "unjudged"}

// PolicySegmentKey prefixes a segment rule's PolicyChange key.
const PolicySegmentKey = "segment."

// Segment aggregates the queries that share a label.
// Policy is everything besides the two scorecards that shapes a comparison.
type Policy struct {
	Thresholds
	// Waivers accept known regressions.
	Waivers []Waiver
	// Corpus holds the known document ids; nil when unknown.
	Corpus map[string]bool
	// StaleGoldApart keeps out of the flips and the rules a query all of
	// whose losses are gold the corpus no longer holds: for a drift run,
	// where the corpus changed under the set since the reviewed baseline
	// (label rot, not drift). Without it (a pull request, where deleting
	// a gold document is part of the change under review) such a query
	// counts; either way it is listed under DataQuality.
	StaleGoldApart bool
	// Unstable marks queries whose results differed between repeats of the
	// base (the noise floor): they are shown apart and never counted as
	// flips or in the mean rules. Such a query is still a new miss when
	// BaseFewestFound says every base repeat found a relevant document and
	// the head found none.
	Unstable map[string]bool
	// BaseFewestFound is, for each base-unstable query, the fewest relevant
	// documents any base repeat found in the top N (see Repeats).
	BaseFewestFound map[string]int
	// HeadUnstable marks queries whose results differed between repeats of
	// the head. The head scorecard given must hold each at its worst
	// repeat (Repeats.Worst): every rule judges it there, and the verdict
	// is at best inconclusive.
	HeadUnstable map[string]bool
	// NoiseFloor is the largest difference of mean recall@N seen between
	// repeats of the base (0 without repeats).
	NoiseFloor float64
	// Latency is what each side's retriever calls took (base, head); nil
	// for a side that was not timed (a cached or stored run).
	Latency [2]*LatencyStats
	// Refusal is each side's own refusal rule (base, head): the base's
	// from the base commit's config when that config judges.
	Refusal [2]Refusal
	// Baseline is the reviewed baseline run max_baseline_drop holds the
	// head against; nil when none was read (the rule is then skipped).
	Baseline *ReviewedBaseline
	// Rules are the rules a package beside the domain applies after the
	// others (gate/bound's margin); nil with a margin set is an error.
	Rules func(*Comparison) []RuleResult
}

// ReviewedBaseline is a reviewed run's recall, scored on the set the gate
// reads with today's labels, for max_baseline_drop.
type ReviewedBaseline struct {
	// Name is the run file as reports name it (path@commit when it was
	// read from the base commit's tree).
	Name string
	// Recall is each query's recall@N on the baseline run, by query id; a
	// query of the set the run lacks is absent. Nil with Skipped.
	Recall map[string]float64
	// Skipped, when set, says why no baseline could be read though the
	// rule is on (the base commit has no config of its own): the rule is
	// then skipped with this reason.
	Skipped string
}

// BaselineDistance is how far the head's mean recall@N is from the
// reviewed baseline's, as max_baseline_drop measured it.
type BaselineDistance struct {
	// Name is the baseline run as reports name it.
	Name string
	// Queries is how many queries both means are over; Missing are the
	// answerable queries of the set the baseline lacks, left out of both,
	// in set order.
	Queries int
	Missing []string
	// Baseline and Head are the two means; Drop is Baseline − Head (a
	// waived query's loss as 0), held against Limit.
	Baseline, Head, Drop, Limit float64
}
