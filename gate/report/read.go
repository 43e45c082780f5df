package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/bound"
	"github.com/recallgate/recallgate/internal/gitexec"
)

// MaxReportBytes is the largest JSON report ReadCompareReport reads: a
// report of thousands of queries with their passages is well under it,
// and a larger one is refused before it is parsed.
const MaxReportBytes = 8 << 20

// ReadCompareReport reads a JSON report written by compare or gate, so it
// can be rendered again (for a PR comment posted by a later workflow).
// The report may come from a pull request's job, so it is parsed, not
// trusted: unknown fields and duplicate keys are refused, every closed
// field (verdict, reason kinds, changes, causes, rule outcomes, segment
// kinds, fingerprint names) must hold one of its values, dates must be
// dates, commits hex, and no id may carry a control character. Every
// renderer escapes the free text that remains.
func ReadCompareReport(rd io.Reader, name string) (*CompareReport, error) {
	data, err := gate.ReadAllLimited(rd, name, "report", MaxReportBytes)
	if err != nil {
		return nil, err
	}
	if err := gate.CheckDuplicateKeys(data); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("read report: %w", err)}
	}
	var peek struct {
		Tool    string `json:"tool"`
		Command string `json:"command"`
		Verdict string `json:"verdict"`
	}
	if json.Unmarshal(data, &peek) == nil {
		if peek.Verdict == VerdictError {
			return readErrorReport(data, name)
		}
		if err := OtherReport(peek.Tool, peek.Command); err != nil {
			return nil, &gate.InputError{File: name, Err: err}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r CompareReport
	if err := dec.Decode(&r); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("read report: %w", err)}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &gate.InputError{File: name, Err: errors.New("read report: unexpected data after the JSON object")}
	}
	if r.Tool != "recallgate" || !slices.Contains([]string{string(gate.Pass), string(gate.Fail), string(gate.Inconclusive)}, r.Verdict) {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("not a recallgate compare report (tool %q, verdict %q)", r.Tool, r.Verdict)}
	}
	if err := r.validate(); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("report refused: %w", err)}
	}
	return &r, nil
}

// ErrNotAComparison is in the chain of OtherReport's error: the JSON is
// another recallgate report than a comparison's.
var ErrNotAComparison = errors.New("not a comparison's report")

// OtherReport says, for a JSON report whose tool and command name another
// of recallgate's documents than a comparison's (compare, gate, drift),
// what it is and how to render it (nil for a comparison's, or one it does
// not know: the strict reader then says what is wrong).
func OtherReport(tool, command string) error {
	if tool != "recallgate" {
		return nil
	}
	switch command {
	case "experiment":
		return fmt.Errorf("%w: this is an experiment report (recallgate experiment --format json), a leaderboard of variants: report --in, comment, judge and label --from-report read a comparison's (compare, gate, drift); render it by running recallgate experiment --config FILE --format markdown or html (with --json-out FILE to keep the JSON too)", ErrNotAComparison)
	case "score":
		return fmt.Errorf("%w: this is a scorecard (recallgate score --format json), one run's scores: report --in, comment, judge and label --from-report read a comparison's (compare, gate, drift); render it by running recallgate score again with another --format", ErrNotAComparison)
	}
	return nil
}

var (
	fingerprintForm = regexp.MustCompile(`^(sha256:)?[0-9a-f]{1,64}$`)
	// fingerprintNames are the inputs a report fingerprints.
	// base_config and head_config are the retriever tables' names in
	// reports of earlier releases, still read.
	fingerprintNames = []string{"set", "config", "base_retriever", "head_retriever", "base_corpus", "head_corpus", "corpus", "policy", "base_run", "head_run",
		"base_config", "head_config"}
	changes     = []string{string(gate.Regressed), string(gate.Improved), string(gate.Unchanged)}
	causes      = []string{gate.CauseRetrieval, gate.CauseRanking, gate.CauseCorpus, gate.CauseContext}
	reasonKinds = []string{gate.ReasonFail, gate.ReasonInconclusive, gate.ReasonNote}
	outcomes    = []string{gate.RulePass, gate.RuleFail, gate.RuleInconclusive, gate.RuleSkipped}
	// ruleMetrics are the metrics a rule may read: the rule registry's
	// ("" for a segment too small to gate).
	ruleMetrics  = readableRuleMetrics()
	signals      = []string{gate.SignalAbstain, gate.SignalMinScore, gate.SignalBoth, gate.SignalPartial, gate.SignalNone}
	refusalBy    = []string{"", gate.ByAbstain, gate.ByMinScore, gate.ByNoHits}
	segmentKinds = []string{"segment", "source", "auto"}
)

// readableRuleMetrics are the metrics of the registered rules, and "".
func readableRuleMetrics() []string {
	out := []string{""}
	for _, r := range gate.Rules() {
		if !slices.Contains(out, r.Metric.Key) {
			out = append(out, r.Metric.Key)
		}
	}
	return out
}

// validate checks every closed field and every id of a report read back.
func (r *CompareReport) validate() error {
	if r.Command != "compare" {
		return fmt.Errorf("command %q: want compare", r.Command)
	}
	if r.Depth.Candidates < 1 || r.Depth.Context < 1 {
		return fmt.Errorf("depth %+v: both depths must be at least 1", r.Depth)
	}
	for _, d := range r.Depth.Defaults {
		if d != "candidates" && d != "context" {
			return fmt.Errorf("depth.defaults: %.40q is not a depth (want candidates or context)", d)
		}
	}
	if err := validateGate(r.Gate); err != nil {
		return err
	}
	if len(r.ReasonKinds) != 0 && len(r.ReasonKinds) != len(r.Reasons) {
		return fmt.Errorf("%d reason kinds for %d reasons", len(r.ReasonKinds), len(r.Reasons))
	}
	for i, k := range r.ReasonKinds {
		if !slices.Contains(reasonKinds, k) {
			return fmt.Errorf("reason_kinds[%d] %q: want one of %v", i, k, reasonKinds)
		}
	}
	for i, ru := range r.Rules {
		switch {
		case !slices.Contains(gate.RuleNames, ru.Name) && ru.Name != "segment" && ru.Name != bound.Rule:
			return fmt.Errorf("rules[%d].name %q is no rule", i, ru.Name)
		case !slices.Contains(ruleMetrics, ru.Metric):
			return fmt.Errorf("rules[%d].metric %q is no metric", i, ru.Metric)
		case !slices.Contains(outcomes, ru.Outcome):
			return fmt.Errorf("rules[%d].outcome %q: want one of %v", i, ru.Outcome, outcomes)
		}
		if err := plain(fmt.Sprintf("rules[%d].segment", i), ru.Segment); err != nil {
			return err
		}
	}
	if err := r.checkVerdict(); err != nil {
		return err
	}
	if err := validateSHAs(r.BaseSHA, r.HeadSHA); err != nil {
		return err
	}
	if err := r.Statistics.validate(); err != nil {
		return err
	}
	if r.Statistics != nil {
		if err := ValidateBounds(r.Statistics.Bound, r.Depth); err != nil {
			return fmt.Errorf("statistics.%w", err)
		}
	}
	if err := r.Unjudged.validate(); err != nil {
		return err
	}
	if err := r.Judge.validate(); err != nil {
		return err
	}
	if err := r.Policy.validate(); err != nil {
		return err
	}
	if err := r.SetChanges.validate(); err != nil {
		return err
	}
	for i, w := range r.Waived {
		if _, err := time.Parse("2006-01-02", w.Expires); err != nil {
			return fmt.Errorf("waived[%d].expires %q is not a date like 2027-01-31", i, w.Expires)
		}
		if err := plain(fmt.Sprintf("waived[%d].id", i), w.ID); err != nil {
			return err
		}
	}
	for i, s := range r.Segments {
		if !slices.Contains(segmentKinds, s.Kind) {
			return fmt.Errorf("segments[%d].kind %q: want one of %v", i, s.Kind, segmentKinds)
		}
		if err := plain(fmt.Sprintf("segments[%d].name", i), s.Name); err != nil {
			return err
		}
	}
	if err := validateQueries(r.Queries); err != nil {
		return err
	}
	if err := plainAll("never_retrieved", r.NeverRetrieved...); err != nil {
		return err
	}
	if err := r.NotInCorpus.validate(r.CorpusKnown); err != nil {
		return err
	}
	if len(r.NeverRetrieved) > 0 && r.CorpusKnown {
		return errors.New("never_retrieved is listed only when the corpus is not known, but corpus_known is true")
	}
	if err := r.validateIDLists(); err != nil {
		return err
	}
	for i, u := range r.Unanswerable {
		if err := plain(fmt.Sprintf("unanswerable[%d].id", i), u.ID); err != nil {
			return err
		}
	}
	if rf := r.Refusal; rf != nil {
		return rf.validate()
	}
	return nil
}

// validateQueries checks each query of a report read back: its change and
// causes closed, its ids plain.
func validateQueries(qs []CompareQuery) error {
	for i, q := range qs {
		at := fmt.Sprintf("queries[%d]", i)
		if !slices.Contains(changes, q.Change) {
			return fmt.Errorf("%s.change %q: want one of %v", at, q.Change, changes)
		}
		for j, m := range q.Moves {
			if !slices.Contains(causes, m.Cause) {
				return fmt.Errorf("%s.moves[%d].cause %q: want one of %v", at, j, m.Cause, causes)
			}
			if err := plainAll(at+".moves", m.Doc, m.TookItsPlace, m.Passage); err != nil {
				return err
			}
		}
		for _, f := range append(append([]FactMoveInfo{}, q.FactsLost...), q.FactsGained...) {
			if err := plainAll(at+".facts", f.Doc, f.Passage, f.Instead); err != nil {
				return err
			}
		}
		if err := plainAll(at, append(append(append(append([]string{q.ID, q.Source}, q.Segments...), q.Lost...), q.Gained...), q.Gold...)...); err != nil {
			return err
		}
		if err := plainAll(at+".docs", append(append([]string{}, q.Base.Docs...), q.Head.Docs...)...); err != nil {
			return err
		}
	}
	return nil
}

// validateIDLists checks that every list of query ids names queries of the
// report (the renderers look each one up), once each.
func (r *CompareReport) validateIDLists() error {
	known := make(map[string]bool, len(r.Queries))
	for _, q := range r.Queries {
		if known[q.ID] {
			return fmt.Errorf("query %q appears twice", q.ID)
		}
		known[q.ID] = true
	}
	if err := r.validateInputs(known); err != nil {
		return err
	}
	lists := map[string][]string{"regressed": r.Regressed, "improved": r.Improved, "ranking_only": r.RankingOnly, "new_misses": r.NewMisses,
		"unstable": r.Unstable, "head_unstable": r.HeadUnstable, "synthetic.queries": r.Synthetic.Queries, "summary.base.zero_recall": r.Summary.Base.ZeroRecall,
		"summary.head.zero_recall": r.Summary.Head.ZeroRecall, "summary.base.below_half_ids": r.Summary.Base.BelowHalfIDs, "summary.head.below_half_ids": r.Summary.Head.BelowHalfIDs,
		"empty_answers.base": r.EmptyAnswers.Base, "empty_answers.head": r.EmptyAnswers.Head}
	for _, w := range r.Waived {
		lists["waived"] = append(lists["waived"], w.ID)
	}
	seenNew := map[string]bool{}
	for _, u := range r.Unjudged.New {
		lists["unjudged.new"] = append(lists["unjudged.new"], u.ID)
		if err := plainAll("unjudged.new", u.Docs...); err != nil {
			return err
		}
		// label --from-report offers each pair once: a repeat is no report
		// recallgate wrote.
		if seenNew[u.ID] {
			return fmt.Errorf("unjudged.new lists query %q twice", u.ID)
		}
		seenNew[u.ID] = true
		docs := map[string]bool{}
		for _, d := range u.Docs {
			if docs[d] {
				return fmt.Errorf("unjudged.new lists document %q twice for query %q", d, u.ID)
			}
			docs[d] = true
		}
	}
	names := make([]string, 0, len(lists))
	for name := range lists {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, id := range lists[name] {
			if !known[id] {
				return fmt.Errorf("%s names query %q, which the report does not hold", name, id)
			}
		}
	}
	return nil
}

// validate checks the statistics read back: counts that can be, known
// rules, p-values within 0–1.
func (st *StatisticsInfo) validate() error {
	if st == nil {
		return nil
	}
	if k := st.MinSameDirectionFlips; k != nil && (*k < 1 || *k > st.Queries) {
		return fmt.Errorf("statistics.min_same_direction_flips %d: want 1–%d (the queries) or null", *k, st.Queries)
	}
	if d := st.MinDetectableRecallDrop; d != nil && (st.MinSameDirectionFlips == nil || !(*d > 0 && *d <= 1)) {
		return fmt.Errorf("statistics.min_detectable_recall_drop %v: want a drop within 0–1, with min_same_direction_flips", *d)
	}
	if st.HolmFamily != 0 && st.HolmFamily < len(st.SignificanceTests) {
		return fmt.Errorf("statistics.holm_family %d: want at least the %d significance tests, or absent", st.HolmFamily, len(st.SignificanceTests))
	}
	for i, t := range st.SignificanceTests {
		at := fmt.Sprintf("statistics.significance_tests[%d]", i)
		if !slices.Contains(gate.RuleNames, t.Rule) {
			return fmt.Errorf("%s.rule %q is no rule", at, t.Rule)
		}
		if !(t.PValue >= 0 && t.PValue <= 1 && t.AdjustedP >= t.PValue && t.AdjustedP <= 1) || t.Significant != (t.AdjustedP < gate.Alpha) {
			return fmt.Errorf("%s: p %v, adjusted %v, significant %v: want 0 ≤ p ≤ adjusted ≤ 1, significant when adjusted < %.2f", at, t.PValue, t.AdjustedP, t.Significant, gate.Alpha)
		}
		if err := plain(at+".segment", t.Segment); err != nil {
			return err
		}
	}
	return nil
}

// validate checks the unjudged block read back: the label debt counts
// the new unjudged documents, the head's range is ordered within 0–1.
func (u *UnjudgedInfo) validate() error {
	if u.Mode != "" && gate.CheckUnjudgedMode(u.Mode) != nil {
		return fmt.Errorf("unjudged.mode %q: want %s", u.Mode, strings.Join(gate.UnjudgedModes, ", "))
	}
	if d := u.LabelDebt; d != nil {
		n := 0
		for _, q := range u.New {
			n += len(q.Docs)
		}
		if !u.Known || d.Documents != n || d.Queries != len(u.New) {
			return fmt.Errorf("unjudged.label_debt %d documents in %d queries: unjudged.new lists %d in %d", d.Documents, d.Queries, n, len(u.New))
		}
	}
	if rg := u.HeadRange; rg != nil {
		for _, v := range [][2]float64{rg.PrecisionAtK, rg.NDCGAtK} {
			if !(0 <= v[0] && v[0] <= v[1] && v[1] <= 1) {
				return fmt.Errorf("unjudged.head_range %v: want low ≤ high within 0–1", v)
			}
		}
		if !u.Known || rg.Documents < 1 || rg.Queries < 1 || rg.Queries > rg.Documents {
			return fmt.Errorf("unjudged.head_range: %d documents in %d queries", rg.Documents, rg.Queries)
		}
	}
	return nil
}

// checkVerdict refuses a verdict its own rules do not give, as
// gate.Comparison decides it: fail when a rule failed, else inconclusive
// when a rule is or a query is head-unstable, else pass. The rules' own
// outcomes must be what their numbers give (a passing rule within its
// limit, a skipped one with no value), and the reasons' kinds what the
// verdict is: a report whose "verdict" and outcomes alone were edited
// would otherwise render a pass above its failing numbers and reasons.
func (r *CompareReport) checkVerdict() error {
	if err := r.checkWholeSetRules(); err != nil {
		return err
	}
	if err := r.checkBaselineRule(); err != nil {
		return err
	}
	for i, ru := range r.Rules {
		if err := ru.checkOutcome(); err != nil {
			return fmt.Errorf("rules[%d] (%s): %w", i, ru.Name, err)
		}
		if err := ru.checkInconclusive(&r.Thresholds); err != nil {
			return fmt.Errorf("rules[%d] (%s): %w", i, ru.Name, err)
		}
	}
	want, why := string(gate.Pass), "no rule failed or was inconclusive and no query is head-unstable"
	if i := slices.IndexFunc(r.Rules, func(ru RuleInfo) bool { return ru.Outcome == gate.RuleFail }); i >= 0 {
		want, why = string(gate.Fail), fmt.Sprintf("rules[%d] (%s).outcome is fail", i, r.Rules[i].Name)
	} else if i := slices.IndexFunc(r.Rules, func(ru RuleInfo) bool { return ru.Outcome == gate.RuleInconclusive }); i >= 0 {
		want, why = string(gate.Inconclusive), fmt.Sprintf("rules[%d] (%s).outcome is inconclusive", i, r.Rules[i].Name)
	} else if len(r.HeadUnstable) > 0 {
		want, why = string(gate.Inconclusive), fmt.Sprintf("head_unstable names %d queries", len(r.HeadUnstable))
	}
	if r.Verdict != want {
		return fmt.Errorf("verdict %q disagrees with the report's rules: %s, so the verdict is %q", r.Verdict, why, want)
	}
	// A reason is a failed rule's or an inconclusive one's: its kind is
	// the verdict's.
	for i, k := range r.ReasonKinds {
		if (k == gate.ReasonFail && want != string(gate.Fail)) || (k == gate.ReasonInconclusive && want == string(gate.Pass)) {
			return fmt.Errorf("verdict %q disagrees with the report's reasons: reason_kinds[%d] is %s", r.Verdict, i, k)
		}
	}
	return nil
}

// checkWholeSetRules refuses a report without the rules every comparison
// applies to the whole set (gate.Rule.Always: a forged pass would drop
// its failing rules), a whole-set rule whose limit is not its key's under
// thresholds, or whose new-miss count is not its new_misses list.
func (r *CompareReport) checkWholeSetRules() error {
	for _, rule := range gate.Rules() {
		limit, on := thresholdOf(&r.Thresholds, rule.Key)
		i := slices.IndexFunc(r.Rules, func(ru RuleInfo) bool { return ru.Name == rule.Key && ru.Segment == "" })
		switch {
		case i < 0 && rule.Always:
			return fmt.Errorf("rules: no %s rule for the whole set, which every comparison applies", rule.Key)
		case i < 0 && on && rule.InLimits() && rule.Key != gate.RuleFactsLost:
			// The comparison applies every such rule its thresholds set
			// (facts lost only with evidence): one left out was removed.
			return fmt.Errorf("rules: no %s rule for the whole set, but thresholds.%s sets it", rule.Key, rule.Key)
		case i < 0 || !on:
			continue
		case r.Rules[i].Limit != limit:
			return fmt.Errorf("rules[%d] (%s): limit %g, but thresholds.%s is %g", i, rule.Key, r.Rules[i].Limit, rule.Key, limit)
		case rule.Key == gate.RuleNewMisses && r.Rules[i].Value != float64(len(r.NewMisses)):
			return fmt.Errorf("rules[%d] (%s): value %g, but new_misses names %d queries", i, rule.Key, r.Rules[i].Value, len(r.NewMisses))
		}
	}
	return nil
}

// checkOutcome refuses a rule outcome its numbers do not give: a rule
// that passed is within its limit (a floor at or above it, any other at
// or under it), and a skipped one measured nothing.
func (ru RuleInfo) checkOutcome() error {
	const epsilon = 1e-9 // gate's tolerance
	rule := gate.LookupRule(ru.Name)
	switch floor := rule != nil && rule.Kind == gate.KindFloor; {
	case ru.Outcome == gate.RulePass && floor && ru.Value < ru.Limit-epsilon:
		return fmt.Errorf("outcome pass, but its value %g is under its floor %g", ru.Value, ru.Limit)
	case ru.Outcome == gate.RulePass && !floor && ru.Value > ru.Limit+epsilon:
		return fmt.Errorf("outcome pass, but its value %g is over its limit %g", ru.Value, ru.Limit)
	case ru.Outcome == gate.RuleSkipped && (ru.Value != 0 || ru.Base != 0 || ru.Head != 0 || ru.Flipped != 0):
		return fmt.Errorf("outcome skipped, but it measured base %g, head %g, value %g", ru.Base, ru.Head, ru.Value)
	}
	return nil
}

// checkInconclusive refuses an inconclusive outcome nothing in the
// report can explain, where the gate gives one only for a reason the
// report records: a new miss over its limit always fails (the gate never
// makes it inconclusive), and a recall drop over its limit is
// inconclusive only with fewer queries flipped than min_flipped or with
// significance required (the context rules have more reasons: the
// unjudged range, a dropped final context).
func (ru RuleInfo) checkInconclusive(t *ThresholdInfo) error {
	const epsilon = 1e-9 // gate's tolerance
	if ru.Outcome != gate.RuleInconclusive || ru.Value <= ru.Limit+epsilon {
		return nil
	}
	switch {
	case ru.Name == gate.RuleNewMisses && ru.Segment == "":
		return fmt.Errorf("outcome inconclusive, but a new miss is never inconclusive: its value %g over its limit %g fails", ru.Value, ru.Limit)
	case ru.Name == gate.RuleRecallDrop && ru.Flipped >= max(t.MinFlipped, 1) && !t.RequireSignificance:
		return fmt.Errorf("outcome inconclusive, but its value %g is over its limit %g with %d queries flipped (min_flipped %d) and no significance required", ru.Value, ru.Limit, ru.Flipped, max(t.MinFlipped, 1))
	}
	return nil
}

// validate checks a refusal block read back: known signals and decisions,
// and no control character in a query id it names.
func (rf *RefusalInfo) validate() error {
	for _, s := range []struct {
		name string
		info RefusalSideInfo
	}{{"base", rf.Base}, {"head", rf.Head}} {
		if !slices.Contains(signals, s.info.Signal) {
			return fmt.Errorf("refusal.%s.signal %q: want one of %v", s.name, s.info.Signal, signals)
		}
		if err := plainAll("refusal."+s.name, append(append(append([]string{}, s.info.Undecided...), s.info.FalseAnswers.Queries...), s.info.FalseRefusals.Queries...)...); err != nil {
			return err
		}
	}
	if err := plainAll("refusal", append(append([]string{}, rf.NewFalseAnswers...), rf.NewFalseRefusals...)...); err != nil {
		return err
	}
	for i, q := range rf.Queries {
		if err := plain(fmt.Sprintf("refusal.queries[%d].id", i), q.ID); err != nil {
			return err
		}
		if !slices.Contains(refusalBy, q.Base.By) || !slices.Contains(refusalBy, q.Head.By) {
			return fmt.Errorf("refusal.queries[%d]: decided by %q, %q: want one of %v", i, q.Base.By, q.Head.By, refusalBy)
		}
	}
	return nil
}

// validate checks a policy read back: a known source, a commit SHA, known
// keys, dates, and no control character in what is shown.
func (p *PolicyInfo) validate() error {
	if p == nil {
		return nil
	}
	if p.Source != gate.PolicyBaseCommit && p.Source != gate.PolicyGivenConfig {
		return fmt.Errorf("policy.source %q: want %s or %s", p.Source, gate.PolicyBaseCommit, gate.PolicyGivenConfig)
	}
	if p.Commit != "" && !IsCommitSHA(p.Commit) {
		return fmt.Errorf("policy.commit %q is not a commit SHA", p.Commit)
	}
	if p.Source == gate.PolicyGivenConfig && len(p.Changes)+len(p.WaiversAdded) > 0 {
		return errors.New("policy: a given config's policy has no changes or added waivers")
	}
	if p.MovedFrom != "" {
		if p.Source != gate.PolicyBaseCommit {
			return errors.New("policy.moved_from: only the base commit's policy comes from a moved config")
		}
		if len(p.MovedFrom) > 512 || strings.ContainsFunc(p.MovedFrom, unicode.IsControl) {
			return fmt.Errorf("policy.moved_from %.40q: not a config path", p.MovedFrom)
		}
	}
	for i, c := range p.Changes {
		at := fmt.Sprintf("policy.changes[%d]", i)
		seg, isSeg := strings.CutPrefix(c.Key, gate.PolicySegmentKey)
		if !slices.Contains(gate.PolicyKeys, c.Key) && (!isSeg || seg == "") {
			return fmt.Errorf("%s.key %q is no policy key", at, c.Key)
		}
		if err := plainAll(at, c.Key, c.Base, c.Head); err != nil {
			return err
		}
	}
	for i, w := range p.WaiversAdded {
		at := fmt.Sprintf("policy.waivers_added[%d]", i)
		if _, err := time.Parse("2006-01-02", w.Expires); err != nil {
			return fmt.Errorf("%s.expires %q is not a date like 2027-01-31", at, w.Expires)
		}
		if err := plainAll(at, w.ID, w.Reason); err != nil {
			return err
		}
	}
	return nil
}

// IsCommitSHA reports whether s looks like a commit SHA (7–64 lowercase hex
// digits: gitexec.IsSHA).
func IsCommitSHA(s string) bool { return gitexec.IsSHA(s) }

// plain refuses an id with a control character.
func plain(field, s string) error {
	if c, i, bad := gate.ControlChar(s); bad {
		return fmt.Errorf("%s %q has a control character (U+%04X at byte %d)", field, s, c, i)
	}
	return nil
}

func plainAll(field string, ss ...string) error {
	for _, s := range ss {
		if err := plain(field, s); err != nil {
			return err
		}
	}
	return nil
}

// readErrorReport reads an error report (verdict "error") as strictly as
// a comparison: unknown fields refused, closed fields checked.
func readErrorReport(data []byte, name string) (*CompareReport, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d errorDoc
	if err := dec.Decode(&d); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("read error report: %w", err)}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &gate.InputError{File: name, Err: errors.New("read error report: unexpected data after the JSON object")}
	}
	if d.Tool != "recallgate" {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("not a recallgate report (tool %q)", d.Tool)}
	}
	if err := d.validate(); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("error report refused: %w", err)}
	}
	info := d.ErrorInfo
	return &CompareReport{Tool: d.Tool, Command: d.Command, Verdict: VerdictError, Error: &info, Gate: d.Gate, BaseSHA: d.BaseSHA, HeadSHA: d.HeadSHA}, nil
}

// validateGate checks a report's gate: a gate name, a config path.
func validateGate(g *GateInfo) error {
	if g == nil {
		return nil
	}
	if g.Name != "" {
		if err := gate.CheckGateName(g.Name); err != nil {
			return fmt.Errorf("gate.name: %w", err)
		}
	}
	if len(g.Config) > 512 || strings.ContainsFunc(g.Config, unicode.IsControl) {
		return fmt.Errorf("gate.config %.40q: not a config path", g.Config)
	}
	return nil
}

// validateSHAs checks the commits a report names.
func validateSHAs(base, head string) error {
	for _, sha := range []struct{ key, v string }{{"base_sha", base}, {"head_sha", head}} {
		if sha.v != "" && !IsCommitSHA(sha.v) {
			return fmt.Errorf("%s %q is not a commit SHA", sha.key, sha.v)
		}
	}
	return nil
}
