package report

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// MetricInfo documents one reported metric: what it counts, over what, at
// which depth and pipeline stage. Every JSON report carries the list.
type MetricInfo struct {
	Name        string `json:"name"`
	Key         string `json:"key"`
	Depth       int    `json:"depth,omitempty"`
	Unit        string `json:"unit"`
	Denominator string `json:"denominator"`
	Stage       string `json:"stage"`
}

// Metrics returns the metric descriptions for the depths: the metric
// registry's document metrics.
func Metrics(d gate.Depth) []MetricInfo {
	var out []MetricInfo
	for _, m := range gate.Metrics() {
		out = append(out, MetricInfo{m.Label(d), m.Key, m.Depth.Of(d), m.Unit, m.Denominator, m.Stage})
	}
	return out
}

// StageFinalContext is the stage of the context metrics: the passages the
// model read.
const StageFinalContext = "final context"

// ContextMetrics describe the final-context metrics (each query's
// "context" entry), kept apart from the document metrics.
func ContextMetrics() []MetricInfo {
	return []MetricInfo{
		{"context document recall", "context_recall", 0, "documents", "relevant gold documents of the query", StageFinalContext},
		{"evidence coverage", "evidence_coverage", 0, "facts", "required facts of the query (queries with evidence only; \"n/a\" without)", StageFinalContext},
		{"context passages", "passages", 0, "passages", "none: a count", StageFinalContext},
		{"context tokens", "tokens", 0, "tokens", "none: a count (the pipeline's own counts where given, else whitespace-separated words)", StageFinalContext},
	}
}

// metricsFor is Metrics, with ContextMetrics when a side had a final context.
func metricsFor(d gate.Depth, sums ...gate.Summary) []MetricInfo {
	m := Metrics(d)
	for _, s := range sums {
		if s.Context != nil {
			return append(m, ContextMetrics()...)
		}
	}
	return m
}

// NA is how every report writes a score that does not apply (evidence
// coverage of a query without evidence).
const NA = "n/a"

// Coverage is an evidence coverage in JSON: a number, or "n/a" for a
// query without evidence (never 1.0).
type Coverage struct {
	Value float64
	// Applies is false for "n/a".
	Applies bool
}

// MarshalJSON implements json.Marshaler.
func (c Coverage) MarshalJSON() ([]byte, error) {
	if !c.Applies {
		return []byte(`"` + NA + `"`), nil
	}
	return json.Marshal(c.Value)
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Coverage) UnmarshalJSON(b []byte) error {
	if string(b) == `"`+NA+`"` {
		*c = Coverage{}
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("evidence coverage must be a number or %q", NA)
	}
	*c = Coverage{Value: v, Applies: true}
	return nil
}

// String is the coverage as text and Markdown show it.
func (c Coverage) String() string {
	if !c.Applies {
		return NA
	}
	return fmt.Sprintf("%.3f", c.Value)
}

// SetInfo describes the eval set a report was made on.
type SetInfo struct {
	Path         string `json:"path"`
	Format       string `json:"format"`
	Queries      int    `json:"queries"`
	Answerable   int    `json:"answerable"`
	Unanswerable int    `json:"unanswerable"`
	// Unit is what the gold labels name: "sections" or "documents and
	// sections" (each query scored in its own); absent for documents, as
	// every report before section labels.
	Unit string `json:"unit,omitempty"`
}

// Scores are one query's document metrics on one side.
type Scores struct {
	RecallAtN    float64 `json:"recall_at_n"`
	PrecisionAtK float64 `json:"precision_at_k"`
	NDCGAtK      float64 `json:"ndcg_at_k"`
	RR           float64 `json:"rr"`
	// More are the metrics the registry adds (see Values).
	More         Values `json:"-"`
	FirstHitRank *int   `json:"first_hit_rank"`
	Relevant     int    `json:"relevant"`
	Found        int    `json:"found"`
	Returned     int    `json:"returned"`
	Missing      bool   `json:"missing,omitempty"`
	// Evidence is the context-level fact check (queries with evidence only).
	Evidence *EvidenceInfo `json:"evidence,omitempty"`
	// Context is the final-context stage, when the side had a final
	// context (the pipeline's own, or packed from the hits' text).
	Context *ContextInfo `json:"context,omitempty"`
	// Docs are the first max(N, k) distinct documents, in rank order.
	Docs []string `json:"docs"`
	// Passages are the first passages of the context documents, when the
	// run has text.
	Passages map[string]string `json:"passages,omitempty"`
	// UnjudgedAtK and UnjudgedAtN count the documents nobody judged in the
	// top k and top N (compare reports on sets that record judgements).
	UnjudgedAtK *int `json:"unjudged_at_k,omitempty"`
	UnjudgedAtN *int `json:"unjudged_at_n,omitempty"`
}

// EvidenceInfo is the context-level coverage of a query's required facts.
type EvidenceInfo struct {
	Covered       int        `json:"covered"`
	Facts         []FactInfo `json:"facts"`
	Passages      int        `json:"passages"`
	Tokens        int        `json:"tokens"`
	NoText        bool       `json:"no_text,omitempty"`
	GoldInContext []string   `json:"gold_in_context"`
}

// FactInfo is one required fact and the document it was found in.
type FactInfo struct {
	Fact  string `json:"fact"`
	Found bool   `json:"found"`
	In    string `json:"in,omitempty"`
	// Passage names the passage that held it.
	Passage string `json:"passage,omitempty"`
}

// MoveInfo attributes one lost gold document.
type MoveInfo struct {
	Doc          string `json:"doc"`
	Grade        int    `json:"grade"`
	BaseRank     *int   `json:"base_rank"`
	HeadRank     *int   `json:"head_rank"`
	Cause        string `json:"cause"`
	TookItsPlace string `json:"took_its_place,omitempty"`
	// Fact and Passage, for a context miss: the fact lost and the base's
	// passage that held it.
	Fact    string `json:"fact,omitempty"`
	Passage string `json:"passage,omitempty"`
}

// StatsInfo holds the paired statistics of the per-query recall@N deltas.
type StatsInfo struct {
	N           int     `json:"n"`
	MeanDelta   float64 `json:"mean_delta"`
	PValue      float64 `json:"p_value"`
	Exact       bool    `json:"exact"`
	Significant bool    `json:"significant"`
	CILow       float64 `json:"ci_low"`
	CIHigh      float64 `json:"ci_high"`
	Wins        int     `json:"wins"`
	Losses      int     `json:"losses"`
	Ties        int     `json:"ties"`
}

// SegmentInfo aggregates one group of queries.
type SegmentInfo struct {
	Kind       string  `json:"kind"`
	Name       string  `json:"name"`
	Queries    int     `json:"queries"`
	BaseRecall float64 `json:"base_recall"`
	HeadRecall float64 `json:"head_recall"`
	Regressed  int     `json:"regressed"`
	Improved   int     `json:"improved"`
	// Also names the groups with exactly the same queries, merged here.
	Also []string `json:"also,omitempty"`
}

// Label is the group's name as reports show it, with the groups merged
// into it: "known-failure (= auto: keyword, auto: short)".
func (s SegmentInfo) Label() string {
	name := s.Name
	if s.Kind != "segment" {
		name = s.Kind + ": " + name
	}
	if len(s.Also) > 0 {
		name += " (= " + strings.Join(s.Also, ", ") + ")"
	}
	return name
}

// SyntheticInfo summarises the synthetic queries, kept out of the headline.
type SyntheticInfo struct {
	Queries []string    `json:"queries"`
	Base    SideSummary `json:"base"`
	Head    SideSummary `json:"head"`
}

// WaiverInfo is one accepted regression.
type WaiverInfo struct {
	ID      string `json:"id"`
	Reason  string `json:"reason"`
	Expires string `json:"expires"`
}

// SideSummary holds the means and distribution counts of one side.
type SideSummary struct {
	Queries      int      `json:"queries"`
	RecallAtN    float64  `json:"recall_at_n"`
	PrecisionAtK float64  `json:"precision_at_k"`
	NDCGAtK      float64  `json:"ndcg_at_k"`
	RR           float64  `json:"rr"`
	More         Values   `json:"-"`
	ZeroRecall   []string `json:"zero_recall"`
	BelowHalf    int      `json:"below_half"`
	BelowHalfIDs []string `json:"below_half_ids"`
	// TrecEval, for a qrels set with queries judged only grade 0, are the
	// means as trec_eval averages them (those queries scored 0).
	TrecEval *TrecEvalMeans `json:"trec_eval,omitempty"`
	// Context is the final-context stage, when any query had one.
	Context *ContextSummaryInfo `json:"context,omitempty"`
}

// TrecEvalMeans are the means over trec_eval's queries.
type TrecEvalMeans struct {
	Queries      int     `json:"queries"`
	RecallAtN    float64 `json:"recall_at_n"`
	PrecisionAtK float64 `json:"precision_at_k"`
	NDCGAtK      float64 `json:"ndcg_at_k"`
	RR           float64 `json:"rr"`
	More         Values  `json:"-"`
}

// DeltaSummary is head minus base of the means and counts.
type DeltaSummary struct {
	RecallAtN    float64 `json:"recall_at_n"`
	PrecisionAtK float64 `json:"precision_at_k"`
	NDCGAtK      float64 `json:"ndcg_at_k"`
	RR           float64 `json:"rr"`
	More         Values  `json:"-"`
	ZeroRecall   int     `json:"zero_recall"`
	BelowHalf    int     `json:"below_half"`
}

// Unanswerable reports what came back for a query marked unanswerable.
type Unanswerable struct {
	ID       string `json:"id"`
	Returned int    `json:"returned"`
	Missing  bool   `json:"missing,omitempty"`
}

// ScoreQuery is one query of a score report.
type ScoreQuery struct {
	ID    string `json:"id"`
	Query string `json:"query,omitempty"`
	Scores
}

// ScoreReport is the JSON document of `recallgate score`.
type ScoreReport struct {
	Tool         string         `json:"tool"`
	Command      string         `json:"command"`
	Set          SetInfo        `json:"set"`
	Depth        DepthInfo      `json:"depth"`
	Metrics      []MetricInfo   `json:"metrics"`
	Summary      SideSummary    `json:"summary"`
	Queries      []ScoreQuery   `json:"queries"`
	Unanswerable []Unanswerable `json:"unanswerable"`
	Warnings     []string       `json:"warnings"`
}

// ThresholdInfo echoes the effective limit of every rule the verdict
// used, defaults included; a rule that is off is null.
type ThresholdInfo struct {
	MaxRecallDrop       float64  `json:"max_recall_drop"`
	MaxNewMisses        int      `json:"max_new_misses"`
	MaxNDCGDrop         *float64 `json:"max_ndcg_drop"`
	MaxPrecisionDrop    *float64 `json:"max_precision_drop"`
	MaxBelowIncrease    *int     `json:"max_below_increase"`
	MinRecall           *float64 `json:"min_recall"`
	MinNDCG             *float64 `json:"min_ndcg"`
	MaxLatencyRatio     *float64 `json:"max_latency_ratio"`
	MinFlipped          int      `json:"min_flipped"`
	MinSegmentQueries   int      `json:"min_segment_queries"`
	RequireSignificance bool     `json:"require_significance"`
	// MaxFalseAnswersIncrease and MaxFalseRefusalsIncrease are the
	// refusal check's rules.
	MaxFalseAnswersIncrease  int `json:"max_false_answers_increase"`
	MaxFalseRefusalsIncrease int `json:"max_false_refusals_increase"`
	// The final-context rules; max_facts_lost applies on a set with evidence.
	MaxContextRecallDrop *float64 `json:"max_context_recall_drop"`
	MaxEvidenceDrop      *float64 `json:"max_evidence_drop"`
	MaxFactsLost         *int     `json:"max_facts_lost"`
	// MaxBaselineDrop is the erosion rule's limit, absent when it is off.
	MaxBaselineDrop *float64 `json:"max_baseline_drop,omitempty"`
	// MaxMissingGold is the drift run's rule on gold that left the
	// corpus; absent from other runs' reports.
	MaxMissingGold *int `json:"max_missing_gold,omitempty"`
	// Margin is the margin rule's largest allowed bound on a gated mean's
	// drop and RequireProof whether an unproven one fails; absent when off.
	Margin       *float64 `json:"margin,omitempty"`
	RequireProof bool     `json:"require_proof,omitempty"`
	// More are the limits of the registered rules no field above holds
	// (max_ap_drop), by rule key, written after the fields when on and
	// absent when off.
	More Values `json:"-"`
}

// thresholdInfo is t as reports echo it: the zero values that mean a
// default are replaced by the default.
func thresholdInfo(t gate.Thresholds) ThresholdInfo {
	ti := ThresholdInfo{MaxRecallDrop: t.MaxRecallDrop, MaxNewMisses: t.MaxNewMisses, MaxNDCGDrop: t.MaxNDCGDrop, MaxPrecisionDrop: t.MaxPrecisionDrop,
		MaxBelowIncrease: t.MaxBelowIncrease, MinRecall: t.MinRecall, MinNDCG: t.MinNDCG,
		MinFlipped: t.MinFlipped, MinSegmentQueries: t.MinSegmentQueries, RequireSignificance: t.RequireSignificance,
		MaxFalseAnswersIncrease: t.MaxFalseAnswersIncrease, MaxFalseRefusalsIncrease: t.MaxFalseRefusalsIncrease,
		MaxContextRecallDrop: t.MaxContextRecallDrop, MaxEvidenceDrop: t.MaxEvidenceDrop, MaxFactsLost: t.MaxFactsLost, MaxBaselineDrop: t.MaxBaselineDrop,
		Margin: t.Margin, RequireProof: t.RequireProof}
	if t.MaxLatencyRatio > 0 {
		v := t.MaxLatencyRatio
		ti.MaxLatencyRatio = &v
	}
	for _, r := range gate.Rules() {
		if _, own := fieldIndex(reflect.TypeOf(ti), r.Key); own {
			continue
		}
		if v, on := r.Setting(&t); on {
			if ti.More == nil {
				ti.More = Values{}
			}
			ti.More[r.Key] = v
		}
	}
	if ti.MinFlipped == 0 {
		ti.MinFlipped = gate.DefaultMinFlipped
	}
	if ti.MinSegmentQueries == 0 {
		ti.MinSegmentQueries = gate.DefaultMinSegmentQueries
	}
	return ti
}

// EmptyAnswersInfo lists, per side, the queries answered with no hits at
// all where the other side had hits (an outage or a stricter match).
type EmptyAnswersInfo struct {
	Base []string `json:"base"`
	Head []string `json:"head"`
}

// CompareSummary holds both sides and their difference.
type CompareSummary struct {
	Base  SideSummary  `json:"base"`
	Head  SideSummary  `json:"head"`
	Delta DeltaSummary `json:"delta"`
}

// QueryDelta is head minus base of one query's metrics.
type QueryDelta struct {
	RecallAtN    float64 `json:"recall_at_n"`
	PrecisionAtK float64 `json:"precision_at_k"`
	NDCGAtK      float64 `json:"ndcg_at_k"`
	RR           float64 `json:"rr"`
	More         Values  `json:"-"`
}

// CompareQuery is one query of a compare report.
type CompareQuery struct {
	ID          string     `json:"id"`
	Query       string     `json:"query,omitempty"`
	Base        Scores     `json:"base"`
	Head        Scores     `json:"head"`
	Change      string     `json:"change"`
	RankingOnly bool       `json:"ranking_only"`
	NewMiss     bool       `json:"new_miss"`
	Delta       QueryDelta `json:"delta"`
	Lost        []string   `json:"lost"`
	Gained      []string   `json:"gained"`
	// Gold lists the relevant gold documents, highest grade first.
	Gold []string `json:"gold"`
	// Grades maps every gold document (grade 0 included) to its grade.
	Grades   map[string]int `json:"grades"`
	Segments []string       `json:"segments,omitempty"`
	Source   string         `json:"source,omitempty"`
	// Line is the query's line in the eval set file.
	Line      int  `json:"line"`
	Synthetic bool `json:"synthetic,omitempty"`
	Unstable  bool `json:"unstable,omitempty"`
	// HeadUnstable: the head's repeats disagreed; Head is the worst repeat.
	HeadUnstable bool       `json:"head_unstable,omitempty"`
	Waived       bool       `json:"waived,omitempty"`
	Moves        []MoveInfo `json:"moves,omitempty"`
	// FactsLost are required facts the base's final context held and the
	// head's did not; FactsGained the reverse.
	FactsLost   []FactMoveInfo `json:"facts_lost,omitempty"`
	FactsGained []FactMoveInfo `json:"facts_gained,omitempty"`
	// NewUnjudged are the head's context documents nobody judged that the
	// base's context did not hold.
	NewUnjudged []string `json:"new_unjudged,omitempty"`
}

// UnanswerablePair is an unanswerable query on both sides.
type UnanswerablePair struct {
	ID    string       `json:"id"`
	Query string       `json:"query,omitempty"`
	Base  Unanswerable `json:"base"`
	Head  Unanswerable `json:"head"`
}

// CompareReport is the JSON document of `recallgate compare` and `gate`.
type CompareReport struct {
	// ReportFile is the JSON report file the run wrote this report to,
	// named in the hints that read it back (label --from-report); not
	// part of the JSON. "" when none is known.
	ReportFile string `json:"-"`

	Tool    string   `json:"tool"`
	Command string   `json:"command"`
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons"`
	// Rules are every gate rule applied, with its outcome.
	Rules []RuleInfo `json:"rules"`
	// ReasonKinds labels each reason: fail, inconclusive or note.
	ReasonKinds  []string           `json:"reason_kinds,omitempty"`
	Set          SetInfo            `json:"set"`
	Depth        DepthInfo          `json:"depth"`
	Thresholds   ThresholdInfo      `json:"thresholds"`
	Metrics      []MetricInfo       `json:"metrics"`
	Summary      CompareSummary     `json:"summary"`
	Regressed    []string           `json:"regressed"`
	Improved     []string           `json:"improved"`
	RankingOnly  []string           `json:"ranking_only"`
	NewMisses    []string           `json:"new_misses"`
	Queries      []CompareQuery     `json:"queries"`
	Unanswerable []UnanswerablePair `json:"unanswerable"`
	// Refusal is the refusal check: false answers and false refusals.
	Refusal  *RefusalInfo `json:"refusal,omitempty"`
	Warnings []string     `json:"warnings"`
	// Notes say what was compared: the base commit's tree, a changed set.
	Notes []string `json:"notes,omitempty"`
	// EmptyAnswers are the queries each side answered with no hits where
	// the other side had hits.
	EmptyAnswers EmptyAnswersInfo `json:"empty_answers"`
	Stats        StatsInfo        `json:"stats"`
	// Statistics says what the set can detect and how several
	// significance tests were corrected (Holm); nil only in a report
	// written before it was added, read back.
	Statistics *StatisticsInfo `json:"statistics,omitempty"`
	// GateDelta is the mean recall@N delta the verdict used.
	GateDelta float64       `json:"gate_delta"`
	Segments  []SegmentInfo `json:"segments"`
	Synthetic SyntheticInfo `json:"synthetic"`
	Waived    []WaiverInfo  `json:"waived"`
	Unstable  []string      `json:"unstable"`
	// HeadUnstable lists the queries whose head repeats disagreed, judged
	// at their worst repeat.
	HeadUnstable []string `json:"head_unstable"`
	// NoiseFloor is the largest difference of mean recall@N seen between
	// repeats of the base (0 without repeats).
	NoiseFloor float64 `json:"noise_floor"`
	// CorpusKnown says whether attribution could check the corpus (a
	// document missing from it is a data-quality problem, not a miss).
	CorpusKnown bool `json:"corpus_known"`
	// NeverRetrieved lists, when the corpus is not known, the relevant
	// gold documents neither side returned for any query: is each indexed?
	NeverRetrieved []string `json:"never_retrieved,omitempty"`
	// NotInCorpus counts, when the corpus is known, the ids each side
	// returned that the corpus does not hold (judged non-relevant: no
	// document, no label debt); absent when the corpus is not known.
	NotInCorpus *NotInCorpusInfo `json:"not_in_corpus,omitempty"`
	// Health lists what weakens the eval set as an instrument, most
	// serious first (sethealth.Check).
	Health []string `json:"health"`
	// Fingerprints are the sha256 fingerprints of the run's inputs by
	// name (set, policy, base_run, …), so a reader can tell whether two
	// reports measured the same thing.
	Fingerprints map[string]string `json:"fingerprints"`
	// DataQuality lists the queries whose relevant gold the corpus no
	// longer holds (when recallgate could read the corpus).
	DataQuality []DataQualityInfo `json:"data_quality,omitempty"`
	// Baseline is, for a drift run, what checking its baseline's inputs
	// found; absent for other runs.
	Baseline *BaselineInfo `json:"baseline,omitempty"`
	// BaselineDistance is the head's distance to the reviewed baseline run
	// (max_baseline_drop); absent when the rule is off or was skipped.
	BaselineDistance *BaselineDistanceInfo `json:"baseline_distance,omitempty"`
	// Chart adds the per-query recall delta chart to the Markdown.
	Chart bool `json:"chart"`
	// Unjudged counts the retrieved documents nobody judged.
	Unjudged UnjudgedInfo `json:"unjudged"`
	// Judge is the judge program's calibration and whether its grades
	// counted; absent when the config names no judge.
	Judge *JudgeInfo `json:"judge,omitempty"`
	// Latency is each side's retriever timing, when it was measured.
	Latency *LatencyPair `json:"latency,omitempty"`
	// BaseSHA and HeadSHA are the commits compared, when known.
	BaseSHA string `json:"base_sha,omitempty"`
	HeadSHA string `json:"head_sha,omitempty"`
	// Policy says which config's policy judged and what the change would
	// change in it; absent when not told (run files, drift).
	Policy *PolicyInfo `json:"policy,omitempty"`
	// SetChanges says which set scored both sides and what the change's
	// own set proposes; absent when not told (no base commit, drift).
	SetChanges *SetChangesInfo `json:"set_changes,omitempty"`
	// Gate says which gate of the repository this is, when known: the
	// sticky comment is keyed by it and the title names it.
	Gate *GateInfo `json:"gate,omitempty"`
	// Error, with the verdict "error", is why the run could not finish:
	// such a report holds only it, the gate and the commits, and its JSON
	// is the error report's (FromError).
	Error *ErrorInfo `json:"-"`
}

// PolicyInfo is the gate policy that judged: source is base-commit or
// given-config, commit the base commit when there is one.
type PolicyInfo struct {
	Source string `json:"source"`
	Commit string `json:"commit,omitempty"`
	// Changes are the policy keys the head's config sets otherwise.
	Changes []PolicyChangeInfo `json:"changes"`
	// WaiversAdded are the waivers the base commit's config lacks.
	WaiversAdded []WaiverInfo `json:"waivers_added"`
	// MovedFrom is the base commit's path of the config that judged, when
	// the change moved, renamed or linked the gate's config.
	MovedFrom string `json:"moved_from,omitempty"`
}

// PolicyChangeInfo is one policy key with the base's and the head's value.
type PolicyChangeInfo struct {
	// Key is one of gate.PolicyKeys, e.g. max_recall_drop.
	Key string `json:"key"`
	// Base and Head are its values in each side's config, as the report
	// shows them.
	Base string `json:"base"`
	Head string `json:"head"`
}

func policyInfo(p *gate.PolicyReport) *PolicyInfo {
	if p == nil {
		return nil
	}
	out := &PolicyInfo{Source: p.Source, Commit: p.Commit, Changes: []PolicyChangeInfo{}, WaiversAdded: []WaiverInfo{}, MovedFrom: p.MovedFrom}
	for _, c := range p.Changes {
		out.Changes = append(out.Changes, PolicyChangeInfo{c.Key, c.Base, c.Head})
	}
	for _, w := range p.WaiversAdded {
		out.WaiversAdded = append(out.WaiversAdded, WaiverInfo{ID: w.Query, Reason: w.Reason, Expires: w.Expires.Format("2006-01-02")})
	}
	return out
}

// GateInfo identifies one gate of a repository that has several.
type GateInfo struct {
	// Config is the config file's path relative to the workspace
	// (working directory included), "" when unknown.
	Config string `json:"config,omitempty"`
	// Name is the gate's name (the action's name input or [report] name).
	Name string `json:"name,omitempty"`
}

// SetGate names the report's gate: config and name go in where they are
// not "" (the name is the caller's to check, see gate.CheckGateName); the
// config is recallgate.toml when nothing gives one. It returns the gate.
func (r *CompareReport) SetGate(config, name string) GateInfo {
	var g GateInfo
	if r.Gate != nil {
		g = *r.Gate
	}
	if config != "" {
		g.Config = config
	}
	if g.Config == "" {
		g.Config = "recallgate.toml"
	}
	if name != "" {
		g.Name = name
	}
	r.Gate = &g
	return g
}

// Label is how titles name the gate: its name, else the folder of a
// config called recallgate.toml, else the config path; "" for the
// repository's one recallgate.toml at the root (or no gate info).
func (g *GateInfo) Label() string {
	switch {
	case g == nil:
		return ""
	case g.Name != "":
		return g.Name
	case g.Config == "recallgate.toml" || g.Config == "":
		return ""
	case path.Base(g.Config) == "recallgate.toml":
		return path.Dir(g.Config)
	}
	return g.Config
}
