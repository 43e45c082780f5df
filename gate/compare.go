package gate

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Change classifies a query by its recall@N from base to head.
type Change string

// The three ways a query's recall@N can move.
const (
	Regressed Change = "regressed"
	Improved  Change = "improved"
	Unchanged Change = "unchanged"
)

// Verdict is the outcome of the gate.
type Verdict string

// Verdicts.
const (
	Pass Verdict = "pass"
	Fail Verdict = "fail"
	// ReasonFail, ReasonInconclusive and ReasonNote label a verdict's reasons:
	// a threshold that failed the gate, a threshold broken without failing
	// it (the drop is not significant), and a line that explains.
	ReasonFail, ReasonInconclusive, ReasonNote = "fail", "inconclusive", "note"
	// Inconclusive means recall dropped beyond the threshold but, with
	// significance required, the set is too small to tell it from noise.
	Inconclusive Verdict = "inconclusive"
	// VerdictError is an error report's verdict: the run could not finish
	// (exit 2 or 3), so nothing was judged. Compare never returns it.
	VerdictError Verdict = "error"
)

// Causes of a lost gold document, for failure attribution.
const (
	// CauseRetrieval: out of the candidates entirely; fix the retriever,
	// chunking, ingestion or filters.
	CauseRetrieval = "retrieval-miss"
	// CauseRanking: still a candidate but pushed below the context window;
	// fix the reranker or fusion weights.
	CauseRanking = "ranking-miss"
	// CauseCorpus: the document is not in the corpus at all; a data-quality
	// bug, not a retrieval failure.
	CauseCorpus = "missing-from-corpus"
)

// GoldMove is what happened to one relevant gold document of a query.
type GoldMove struct {
	Doc   string
	Grade int
	// BaseRank and HeadRank are 1-based ranks in the whole list, 0 when
	// the document was not returned.
	BaseRank, HeadRank int
	Cause              string
	// TookItsPlace is the head's document at the gold doc's base rank;
	// for a context miss, the passages that reached the model instead.
	TookItsPlace string
	// Fact and Passage, for a context miss, are the fact the head's
	// context lost and the base's passage that held it.
	Fact, Passage string
}

// Delta is head minus base for the four document metrics.
type Delta struct {
	Recall, Precision, NDCG, RR float64
	// More are the registry's added metrics (QueryScore.More).
	More []float64
}

func delta(base, head *QueryScore) Delta {
	return Delta{
		Recall:    head.Recall - base.Recall,
		Precision: head.Precision - base.Precision,
		NDCG:      head.NDCG - base.NDCG,
		RR:        head.RR - base.RR,
		More:      subMore(base.More, head.More),
	}
}

// PairedQuery is one query seen on both sides.
type PairedQuery struct {
	Query *Query
	Base  QueryScore
	Head  QueryScore
	// Change is decided by the relevant documents found at N: their count,
	// then, for the same count with other documents, their grades, then
	// nDCG@k (see classify).
	Change Change
	// RankingOnly is true when exactly the same relevant documents were
	// found at N and precision@k or nDCG@k moved: ordered differently.
	RankingOnly bool
	Delta       Delta
	// Lost are relevant docs in the base's top N but not the head's;
	// Gained the reverse. Highest grade first.
	Lost, Gained []string
	// NewMiss is true when base found something and head found nothing.
	NewMiss bool
	// Synthetic queries (source "synthetic") are reported apart and never
	// enter the headline numbers or the verdict.
	Synthetic bool
	// Unstable queries changed between repeats of the base: kept out.
	Unstable bool
	// MissingGold are the query's relevant gold documents the corpus does
	// not hold (deleted or renamed since they were labelled), when the
	// corpus is known: a data-quality problem, not a retrieval miss.
	MissingGold []string
	// DataQuality queries lost only gold documents the corpus no longer
	// holds and are kept out of the flips and the rules as stale labels
	// (Policy.StaleGoldApart).
	DataQuality bool
	// HeadUnstable queries changed between repeats of the head: Head is
	// their worst repeat, and they count.
	HeadUnstable bool
	// Waiver, when set, accepts this query's regression.
	Waiver *Waiver
	// Moves attributes the lost gold documents of a regressed, ranking-hit
	// or zero-recall query, and the context misses of its lost facts.
	Moves []GoldMove
	// FactsLost are required facts found in the base's final context and
	// not in the head's; FactsGained the reverse.
	FactsLost, FactsGained []FactMove
	// BaseUnjudged and HeadUnjudged count the documents nobody judged for
	// this query in each side's top k and top N (when the set records
	// judgements).
	BaseUnjudged, HeadUnjudged Unjudged
	// NewUnjudged are the head's context documents nobody judged that were
	// not in the base's context window, in rank order.
	NewUnjudged []string
}

// counted reports whether the query takes part in flips and the verdict.
func (p *PairedQuery) counted() bool { return !p.Synthetic && !p.Unstable && !p.DataQuality }

// Comparison is the paired comparison of a base and a head run over one set.
type Comparison struct {
	// Judge is what the comparison says of a judge program's grades, nil
	// when the config names no judge.
	Judge *JudgeReport
	Set   *Set
	Depth Depth
	// DepthDefaults names the depths no flag or config set (see
	// Scorecard.DepthDefaults).
	DepthDefaults []string
	Thresholds    Thresholds
	Base, Head    Summary
	// MeanDelta is head minus base of the summary means.
	MeanDelta Delta
	// Queries are the answerable queries in set order.
	Queries []PairedQuery
	// Regressed and Improved list query ids, the largest recall move first.
	Regressed, Improved []string
	// RankingOnly lists queries whose recall did not move but whose
	// precision@k or nDCG@k did, in set order.
	RankingOnly []string
	// NewMisses lists queries that newly reach zero recall, in set order.
	NewMisses []string
	// EmptyAnswers lists, per side (base, head), the answerable queries
	// that side answered with no hits at all where the other side had hits:
	// more often a partial outage (a swallowed error answered as []) than a
	// retrieval miss. In set order.
	EmptyAnswers [2][]string
	// Unanswerable pairs what both sides returned for unanswerable queries.
	Unanswerable [][2]UnanswerableResult
	// Refusal is the refusal check: each side's decision to answer or
	// refuse, on every query of the set.
	Refusal *RefusalCheck
	Verdict Verdict
	// Rules are every rule applied, in report order, with their outcomes.
	Rules []RuleResult
	// HolmFamily is how many rules Holm's correction runs over: every
	// rule of a significance-tested kind applied under
	// require_significance, breached or not (0 when significance is not
	// required). See holm.
	HolmFamily int
	// JudgementsKnown says the set records judgements (grade-0 labels or
	// per-labeller judgments), so unjudged documents can be told apart
	// from judged non-relevant ones.
	JudgementsKnown bool
	// HeadRange bounds the head's mean precision@k and nDCG@k by the
	// documents nobody judged in its top k; nil when the set records no
	// judgements or none reaches the head's top k.
	HeadRange *UnjudgedRange
	// Latency is each side's retriever timing (base, head), nil when not timed.
	Latency [2]*LatencyStats
	// Reasons explains a verdict other than pass, one line each, and
	// ReasonKinds says what each line is (ReasonFail, ReasonInconclusive,
	// ReasonNote), in the same order.
	Reasons     []string
	ReasonKinds []string
	// Warnings are the scorecards' warnings, prefixed by side.
	Warnings []string
	// Stats are the paired statistics of the per-query recall@N deltas the
	// verdict counts (waived regressions count as 0).
	Stats PairedStats
	// Detect says what the set can call significant: the fewest
	// same-direction flips and the smallest mean recall@N drop.
	Detect Detectability
	// GateDelta is the mean recall@N delta the verdict uses: counted
	// queries only, waived regressions as 0.
	GateDelta float64
	// Segments are declared segments, sources and automatic groups.
	Segments []Segment
	// Synthetic lists synthetic queries; SyntheticBase and SyntheticHead
	// are their means, kept out of the headline.
	Synthetic                    []string
	SyntheticBase, SyntheticHead Summary
	// Waived lists regressed queries accepted by a waiver.
	Waived []string
	// Unstable lists queries whose results changed between repeats of the
	// base, kept out of the flips and the mean rules.
	Unstable []string
	// HeadUnstable lists the counted queries whose results changed between
	// repeats of the head, judged at their worst repeat; any makes the
	// verdict at best inconclusive.
	HeadUnstable []string
	// NoiseFloor is the base-vs-base spread of mean recall@N over repeats.
	NoiseFloor float64
	// CorpusKnown says whether attribution could check the corpus.
	CorpusKnown bool
	// NotInCorpus counts the returned ids the corpus does not hold, per
	// side, when the corpus is known (nil otherwise). They are judged
	// non-relevant: no document nobody judged, no label debt.
	NotInCorpus *NotInCorpus
	// DataQuality lists, in set order, the queries with relevant gold the
	// corpus does not hold (PairedQuery.MissingGold); with
	// Policy.StaleGoldApart, those whose losses are all such documents are
	// kept out of the flips and the rules.
	DataQuality []string
	// Baseline is what a drift run found checking its baseline's inputs;
	// nil for other runs. Set by the caller.
	Baseline *BaselineCheck
	// BaselineDistance is the head's distance to the reviewed baseline run
	// (max_baseline_drop); nil when the rule is off or was skipped.
	BaselineDistance *BaselineDistance
	// NeverRetrieved lists, when the corpus is not known, the relevant gold
	// documents that neither side returned for any query (see
	// neverRetrieved): labels that may name documents the index never
	// held. A warning, never a verdict change.
	NeverRetrieved []string
	// Notes say what was compared when it is not plain (the base side ran
	// on another commit's tree, the set changed in the change); set by the
	// caller, shown near the top of every report.
	Notes []string
	// Health lists the eval set's weaknesses (see Health); set by the caller.
	Health []string
	// Fingerprints identify the set, each side's config and corpus, as
	// name/value pairs in a stable order; set by the caller.
	Fingerprints [][2]string
	// NoChart leaves the per-query chart out of the Markdown report.
	NoChart bool
	// Name is the gate's name ([report] name), "" when the config gives
	// none; set by the caller.
	Name string
	// BaseSHA and HeadSHA are the commits compared, when known; set by the
	// caller. A later `recallgate comment` checks the report against them.
	BaseSHA, HeadSHA string
	// Policy says which config's gate policy judged and what the head's
	// config changes in it; nil when not told (run files, drift). Set by
	// the caller.
	Policy *PolicyReport
	// SetChanges says which set scored both sides and what the head's set
	// proposes; nil when not told. Set by the caller.
	SetChanges *SetChanges

	index    map[string]int     // query id → position in Queries
	waivers  map[string]*Waiver // query id → its waiver
	reviewed *ReviewedBaseline  // Policy.Baseline, for max_baseline_drop
	// staleGoldApart is Policy.StaleGoldApart: a drift run, whose missing
	// gold the max_missing_gold rule judges.
	staleGoldApart bool
}

// Query returns the paired query with the given id, or nil.
func (c *Comparison) Query(id string) *PairedQuery {
	i, ok := c.index[id]
	if !ok {
		return nil
	}
	return &c.Queries[i]
}

// Compare pairs two scorecards of the same set query by query and decides the
// verdict. Both must be scored at the same depths.
func Compare(base, head *Scorecard, t Thresholds) (*Comparison, error) {
	return CompareWith(base, head, Policy{Thresholds: t})
}

// CompareWith is Compare with waivers, a known corpus and repeat stability.
func CompareWith(base, head *Scorecard, pol Policy) (*Comparison, error) {
	t := pol.Thresholds
	if base.Set != head.Set {
		return nil, fmt.Errorf("base and head were scored against different sets (%s, %s)", base.Set.Path, head.Set.Path)
	}
	if base.Depth != head.Depth {
		return nil, fmt.Errorf("base and head were scored at different depths (%+v, %+v)", base.Depth, head.Depth)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	scored := head // the head as trec_eval scores it, for the range
	if t.UnjudgedMode() == UnjudgedCondensed && base.Set.RecordsJudgements() {
		base, head = condensed(base, pol.Corpus), condensed(head, pol.Corpus)
	}
	var outageWarnings []string
	for _, sc := range []struct {
		side        string
		card, other *Scorecard
	}{{"base", base, head}, {"head", head, base}} {
		w, err := checkOutage(sc.side, sc.card, pol.Corpus)
		if err != nil {
			return nil, AtStage(StageRetrieve, sc.side, err)
		}
		if w != "" {
			outageWarnings = append(outageWarnings, w)
		}
		if w := checkCapped(sc.side, sc.card, sc.other, pol.Corpus); w != "" {
			outageWarnings = append(outageWarnings, w)
		}
	}
	waivers := map[string]*Waiver{}
	for i, w := range pol.Waivers {
		if base.Set.Query(w.Query) == nil {
			return nil, fmt.Errorf("waiver for query %q: no such query in %s", ClipID(w.Query), base.Set.Path)
		}
		waivers[w.Query] = &pol.Waivers[i]
	}
	c := &Comparison{Set: base.Set, Depth: base.Depth, Thresholds: t, Base: base.Summary, Head: head.Summary, index: map[string]int{},
		SyntheticBase: base.SyntheticSummary, SyntheticHead: head.SyntheticSummary, NoiseFloor: pol.NoiseFloor, CorpusKnown: pol.Corpus != nil,
		waivers: waivers, staleGoldApart: pol.StaleGoldApart, Latency: pol.Latency, JudgementsKnown: base.Set.RecordsJudgements(), reviewed: pol.Baseline}
	c.MeanDelta = Delta{
		Recall:    head.Summary.Recall - base.Summary.Recall,
		Precision: head.Summary.Precision - base.Summary.Precision,
		NDCG:      head.Summary.NDCG - base.Summary.NDCG,
		RR:        head.Summary.RR - base.Summary.RR,
		More:      subMore(base.Summary.More, head.Summary.More),
	}
	n, top := base.Depth.Candidates, base.Set.topGrade()
	for i := range base.Queries {
		c.addPair(base.Queries[i], head.Queries[i], pol, n, top)
	}
	var deltas []float64
	for i := range c.Queries {
		p := &c.Queries[i]
		if !p.counted() {
			continue
		}
		d := p.Delta.Recall
		if p.Waiver != nil {
			d = 0
		}
		deltas = append(deltas, d)
	}
	c.Stats = Paired(deltas)
	c.GateDelta = c.Stats.MeanDelta
	c.Segments = segments(c)
	if c.JudgementsKnown {
		c.HeadRange = c.headRange(scored)
	}
	for i := range base.Unanswerable {
		c.Unanswerable = append(c.Unanswerable, [2]UnanswerableResult{base.Unanswerable[i], head.Unanswerable[i]})
	}
	c.Regressed = c.flipped(Regressed)
	c.Improved = c.flipped(Improved)
	c.Warnings = append(c.Warnings, base.Set.Warnings...)
	for _, w := range base.RunWarnings() {
		c.Warnings = append(c.Warnings, "base: "+w)
	}
	for _, w := range head.RunWarnings() {
		c.Warnings = append(c.Warnings, "head: "+w)
	}
	c.Warnings = append(c.Warnings, outageWarnings...)
	if pol.Corpus == nil {
		c.NeverRetrieved = neverRetrieved(base, head)
	}
	c.NotInCorpus = notInCorpus(base, head, pol.Corpus)
	if err := c.buildRefusal(base, head, pol.Refusal, pol); err != nil {
		return nil, err
	}
	if err := c.applyRules(); err != nil {
		return nil, err
	}
	if pol.Rules != nil {
		c.Rules = append(c.Rules, pol.Rules(c)...)
	} else if pol.Margin != nil {
		return nil, fmt.Errorf("[gate] margin is set but no margin rule was given (a bug in recallgate: please report it)")
	}
	c.holm()
	c.Detect = c.detectability()
	c.decide()
	return c, nil
}

// addPair pairs one query's base and head scores (n the candidate depth,
// top the set's top grade) and files it in c's lists of flips, misses and
// set-apart queries.
func (c *Comparison) addPair(b, h QueryScore, pol Policy, n, top int) {
	q := c.Set.Query(b.ID)
	p := PairedQuery{Query: q, Base: b, Head: h, Delta: delta(&b, &h), Change: Unchanged}
	bf, hf := b.foundDocs(n), h.foundDocs(n)
	for d := range bf {
		if !hf[d] {
			p.Lost = append(p.Lost, d)
		}
	}
	for d := range hf {
		if !bf[d] {
			p.Gained = append(p.Gained, d)
		}
	}
	q.sortByGrade(p.Lost)
	q.sortByGrade(p.Gained)
	p.Change, p.RankingOnly = classify(q, &b, &h, &p)
	p.NewMiss = b.Found > 0 && h.Found == 0
	switch {
	case b.Returned == 0 && h.Returned > 0:
		c.EmptyAnswers[0] = append(c.EmptyAnswers[0], q.ID)
	case h.Returned == 0 && b.Returned > 0:
		c.EmptyAnswers[1] = append(c.EmptyAnswers[1], q.ID)
	}
	p.Synthetic = q.Source == "synthetic"
	p.Unstable = pol.Unstable[q.ID]
	p.MissingGold, p.DataQuality = missingGold(q, p.Lost, pol.Corpus)
	p.DataQuality = p.DataQuality && pol.StaleGoldApart
	p.HeadUnstable = pol.HeadUnstable[q.ID]
	fewest, baseKnown := pol.BaseFewestFound[q.ID]
	if p.Unstable && baseKnown {
		p.NewMiss = fewest > 0 && h.Found == 0
	}
	if w := c.waivers[q.ID]; w != nil && (p.Change == Regressed || p.NewMiss) && (len(w.Rules) == 0 || slices.Contains(w.Rules, RuleRecallDrop) || slices.Contains(w.Rules, RuleNewMisses)) {
		p.Waiver = w
	}
	if c.JudgementsKnown {
		p.BaseUnjudged, _ = unjudged(q, b.Docs, c.Depth, nil, pol.Corpus)
		p.HeadUnjudged, p.NewUnjudged = unjudged(q, h.Docs, c.Depth, b.Docs, pol.Corpus)
		p.BaseUnjudged.Precision, p.BaseUnjudged.NDCG = b.Precision, b.NDCG
		p.HeadUnjudged.Precision, p.HeadUnjudged.NDCG = h.Precision, h.NDCG
		if p.HeadUnjudged.AtK > 0 {
			u := map[string]bool{}
			for i, d := range h.Docs {
				if i < c.Depth.Context && unjudgedDoc(q, d, pol.Corpus) {
					u[d] = true
				}
			}
			p.BaseUnjudged.Precision, p.BaseUnjudged.NDCG = ifRelevant(q, b.Docs, u, c.Depth.Context, top)
			p.HeadUnjudged.Precision, p.HeadUnjudged.NDCG = ifRelevant(q, h.Docs, u, c.Depth.Context, top)
		}
	}
	p.Moves = attribute(q, &b, &h, c.Depth, pol.Corpus)
	var misses []GoldMove
	p.FactsLost, p.FactsGained, misses = contextMoves(q, &b, &h, c.Depth)
	p.Moves = append(p.Moves, misses...)
	c.index[q.ID] = len(c.Queries)
	c.Queries = append(c.Queries, p)
	if len(p.MissingGold) > 0 {
		c.DataQuality = append(c.DataQuality, q.ID)
	}
	switch {
	case p.Synthetic:
		c.Synthetic = append(c.Synthetic, q.ID)
		return
	case p.DataQuality:
		return
	case p.Unstable:
		c.Unstable = append(c.Unstable, q.ID)
		// Base noise excuses a flip, not a query every base repeat
		// answered and the head does not.
		if p.NewMiss && baseKnown && p.Waiver == nil {
			c.NewMisses = append(c.NewMisses, q.ID)
		}
		return
	case p.HeadUnstable:
		c.HeadUnstable = append(c.HeadUnstable, q.ID)
	case p.Waiver != nil:
		c.Waived = append(c.Waived, q.ID)
		return
	}
	if p.RankingOnly {
		c.RankingOnly = append(c.RankingOnly, q.ID)
	}
	if p.NewMiss {
		c.NewMisses = append(c.NewMisses, q.ID)
	}
}

// missingGold lists q's relevant gold documents the corpus does not hold
// (nil when the corpus is unknown), and whether every document the query
// lost at N is one of them: then its move says the labels are stale, not
// that retrieval got worse.
func missingGold(q *Query, lost []string, corpus map[string]bool) ([]string, bool) {
	if corpus == nil {
		return nil, false
	}
	var missing []string
	for _, d := range q.RelevantDocs() {
		if q.GoldMissing(d, corpus) {
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 || len(lost) == 0 {
		return missing, false
	}
	for _, d := range lost {
		if !slices.Contains(missing, d) {
			return missing, false
		}
	}
	return missing, true
}

// classify decides how a query moved at the candidate depth. More relevant
// documents found is an improvement, fewer a regression. With the same
// count but other documents (a gold document swapped for another), the
// query moved the way the grades say: it regressed when what it lost is
// graded higher than what it gained, compared best first, and improved in
// the reverse; equal grades are decided by nDCG@k. RankingOnly is set only
// when exactly the same relevant documents were found and precision@k or
// nDCG@k moved.
func classify(q *Query, b, h *QueryScore, p *PairedQuery) (Change, bool) {
	switch {
	case h.Found < b.Found:
		return Regressed, false
	case h.Found > b.Found:
		return Improved, false
	case len(p.Lost)+len(p.Gained) > 0:
		switch c := compareGrades(q, p.Lost, p.Gained); {
		case c > 0:
			return Regressed, false
		case c < 0:
			return Improved, false
		case p.Delta.NDCG < -epsilon:
			return Regressed, false
		case p.Delta.NDCG > epsilon:
			return Improved, false
		}
		return Unchanged, false
	case h.InContext != b.InContext || math.Abs(p.Delta.NDCG) > epsilon:
		return Unchanged, true
	}
	return Unchanged, false
}

// compareGrades compares two lists of q's relevant documents, each sorted
// highest grade first, grade by grade: 1 when lost holds the higher grade
// at the first place they differ (or is longer), -1 in the reverse, 0 when
// their grades are the same.
func compareGrades(q *Query, lost, gained []string) int {
	for i := 0; i < len(lost) || i < len(gained); i++ {
		switch {
		case i >= len(gained):
			return 1
		case i >= len(lost):
			return -1
		}
		if l, g := q.Gold[lost[i]], q.Gold[gained[i]]; l != g {
			if l > g {
				return 1
			}
			return -1
		}
	}
	return 0
}

// flipped lists the queries with the given change, the largest recall move
// first, ties in set order.
func (c *Comparison) flipped(ch Change) []string {
	var ps []PairedQuery
	for _, p := range c.Queries {
		if p.Change == ch && p.counted() && (ch != Regressed || p.Waiver == nil) {
			ps = append(ps, p)
		}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		return math.Abs(ps[i].Delta.Recall) > math.Abs(ps[j].Delta.Recall)
	})
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.Query.ID
	}
	return ids
}

// decide turns the rules' outcomes into the verdict and its reasons: fail
// when any rule fails, else inconclusive when any is or when any counted
// query is head-unstable, else pass.
func (c *Comparison) decide() {
	c.Verdict = Pass
	add := func(kind, text string) {
		c.Reasons = append(c.Reasons, text)
		c.ReasonKinds = append(c.ReasonKinds, kind)
	}
	failed, unsure := false, false
	for _, r := range c.Rules {
		switch r.Outcome {
		case RuleFail:
			failed = true
			add(ReasonFail, r.Why)
		case RuleInconclusive:
			unsure = true
			add(ReasonInconclusive, r.Why)
		}
	}
	if n := len(c.HeadUnstable); n > 0 {
		text := fmt.Sprintf("%d %s changed between repeats of the head (%s): each was judged at its worst repeat, and a head whose answers change between repeats cannot pass", n, Plural(n, "query", "queries"), JoinFirst(c.HeadUnstable, 10))
		if failed {
			add(ReasonNote, text)
		} else {
			unsure = true
			add(ReasonInconclusive, text)
		}
	}
	for _, r := range c.Rules {
		if r.Note != "" {
			add(ReasonNote, r.Note)
		}
	}
	switch {
	case failed:
		c.Verdict = Fail
	case unsure:
		c.Verdict = Inconclusive
	}
}

// attribute explains every gold document a query lost from the candidates
// or the context window (also when another gold doc took its place and the
// counts did not move), every gold doc of a zero-recall head, and gold docs
// missing from the corpus.
func attribute(q *Query, b, h *QueryScore, d Depth, corpus map[string]bool) []GoldMove {
	var moves []GoldMove
	for _, doc := range q.RelevantDocs() {
		br, hr := b.GoldRanks[doc], h.GoldRanks[doc]
		in := func(r, depth int) bool { return r > 0 && r <= depth }
		m := GoldMove{Doc: doc, Grade: q.Gold[doc], BaseRank: br, HeadRank: hr}
		switch {
		case corpus != nil && q.GoldMissing(doc, corpus) && !in(hr, d.Candidates):
			m.Cause = CauseCorpus
		case !in(hr, d.Candidates) && in(br, d.Candidates):
			m.Cause = CauseRetrieval
		case in(hr, d.Candidates) && in(br, d.Context) && !in(hr, d.Context):
			m.Cause = CauseRanking
		default:
			continue
		}
		if br > 0 && br <= len(h.Docs) && h.Docs[br-1] != doc {
			m.TookItsPlace = h.Docs[br-1]
		}
		moves = append(moves, m)
	}
	return moves
}

// neverRetrieved lists, sorted, the relevant gold documents of the set
// that neither side returned for any query: not at any depth for a query
// that labels them, nor in the kept top max(N, k) of any other query. With
// a retriever recallgate cannot see into (command, http, a run file) and
// no corpus to check against, such a label may name a document the index
// never held, which would read as a plain retrieval miss. nil when a
// scorecard kept only its numbers (the ranks are gone, nothing can be
// said).
func neverRetrieved(base, head *Scorecard) []string {
	seen := map[string]bool{}
	for _, card := range []*Scorecard{base, head} {
		for i := range card.Queries {
			s := &card.Queries[i]
			if s.GoldRanks == nil {
				return nil
			}
			for d := range s.GoldRanks {
				seen[d] = true
			}
			for _, d := range s.Docs {
				seen[d] = true
			}
		}
	}
	var out []string
	for _, q := range base.Set.Queries {
		for d, g := range q.Gold {
			if g > 0 && !seen[d] {
				seen[d] = true // listed once
				out = append(out, d)
			}
		}
	}
	sort.Strings(out)
	return out
}
