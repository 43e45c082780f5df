package gate

import (
	"fmt"
	"math"
	"strings"
)

// Default depths: the candidate depth for recall and the context depth the
// LLM reads, for precision and nDCG.
const (
	DefaultCandidates = 50
	DefaultContext    = 5
	// BelowThreshold is the recall@N under which a query counts as "below half".
	BelowThreshold = 0.5
)

// Depth is the pair of depths every query is scored at.
type Depth struct {
	// Candidates is N in recall@N: how many distinct documents the pipeline
	// pulls before reranking.
	Candidates int
	// Context is k in precision@k and nDCG@k: how many reach the LLM.
	Context int
	// Below is the recall@N under which a query counts in the "below"
	// list; 0 means BelowThreshold (0.5).
	Below float64
	// ContextTokens is the budget, in whitespace-separated words, of the
	// final context packed for evidence coverage; 0 means 2,000.
	ContextTokens int
}

func (d Depth) below() float64 {
	if d.Below <= 0 {
		return BelowThreshold
	}
	return d.Below
}

// DefaultDepth returns the default depths (50 candidates, 5 in context).
func DefaultDepth() Depth { return Depth{Candidates: DefaultCandidates, Context: DefaultContext} }

// Validate reports a depth that cannot be scored.
func (d Depth) Validate() error {
	if d.Candidates < 1 {
		return fmt.Errorf("candidate depth must be at least 1, got %d", d.Candidates)
	}
	if d.Context < 1 {
		return fmt.Errorf("context depth must be at least 1, got %d", d.Context)
	}
	if d.Below < 0 || d.Below > 1 {
		return fmt.Errorf("below must be within 0 and 1, got %v", d.Below)
	}
	return nil
}

// keep is how many distinct documents a score remembers, for reports.
func (d Depth) keep() int { return max(d.Candidates, d.Context) }

// QueryScore is the document-level score of one answerable query.
type QueryScore struct {
	ID string
	// Recall is recall@N: relevant docs in the top N / relevant docs.
	Recall float64
	// Precision is precision@k: relevant docs in the top k / k.
	Precision float64
	// NDCG is nDCG@k with gain = grade and the ideal from all gold grades.
	NDCG float64
	// RR is 1 / rank of the first relevant doc in the whole list, or 0.
	RR float64
	// More holds the metrics the registry adds beyond these four (see
	// Metric), in registry order; nil when it adds none.
	More []float64
	// FirstHitRank is the 1-based rank of the first relevant doc, 0 if none.
	FirstHitRank int
	// Relevant is the recall denominator: the number of relevant gold docs.
	Relevant int
	// Found is the number of relevant docs in the top N.
	Found int
	// InContext is the number of relevant docs in the top k.
	InContext int
	// Returned is the number of distinct documents in the result.
	Returned int
	// Hits is the number of chunks returned, before collapsing to documents.
	Hits int
	// Docs are the first max(N, k) distinct documents, in rank order.
	Docs []string
	// GoldRanks gives the 1-based rank of each relevant gold doc that was
	// returned at any depth.
	GoldRanks map[string]int
	// Missing is true when the run had no result for this query.
	Missing bool
	// Evidence is the context-level fact check, for queries with evidence.
	Evidence *Evidence
	// Context is the final-context stage: the pipeline's own context when
	// the answer carried one, else packed from the hits' text; nil when
	// neither (no passage text to score).
	Context *ContextStage
	// Passages holds, for documents in the context window, the text of
	// their first passage (clipped), when the run carries text.
	Passages map[string]string
	// Signal is what the answer said about refusing (see RefusalCheck).
	Signal AnswerSignal
	// Unplaced counts, for a query scored in sections, the hits that
	// could not be placed in their document's sections (they count for
	// their document only); UnplacedFirst describes the first few.
	Unplaced      int
	UnplacedFirst []string
}

// PassageRunes is how much of a passage a score keeps for drill-downs; a
// longer one is clipped and ends with "…".
const PassageRunes = 280

// foundDocs returns the set of relevant docs ranked within the top n.
func (s *QueryScore) foundDocs(n int) map[string]bool {
	found := make(map[string]bool, len(s.GoldRanks))
	for d, r := range s.GoldRanks {
		if r <= n {
			found[d] = true
		}
	}
	return found
}

// UnanswerableResult is what came back for a query marked unanswerable: it is
// reported apart and never enters the document metrics.
type UnanswerableResult struct {
	ID       string
	Returned int
	Missing  bool
	// Signal is what the answer said about refusing (see RefusalCheck).
	Signal AnswerSignal
	// Unplaced counts, for a query scored in sections, the hits that
	// could not be placed in their document's sections (they count for
	// their document only); UnplacedFirst describes the first few.
	Unplaced      int
	UnplacedFirst []string
}

// Summary aggregates the answerable queries of one run.
type Summary struct {
	// Queries is the number of answerable queries scored.
	Queries int
	// Means of the per-query metrics.
	Recall, Precision, NDCG, RR float64
	// More are the means of the registry's added metrics (QueryScore.More).
	More []float64
	// ZeroRecall lists, in set order, the queries with recall@N = 0.
	ZeroRecall []string
	// BelowHalf lists, in set order, the queries with recall@N < 0.5.
	BelowHalf []string
	// Context summarises the final-context stage: nil when no query had a
	// final context (the run carried no passage text and no context).
	Context *ContextSummary
	// TrecEval, for a qrels set with queries judged only grade 0, is the
	// means as trec_eval averages them: over those queries too, each
	// scored 0. Nil otherwise.
	TrecEval *TrecMeans
}

// TrecMeans are the four means over trec_eval's queries.
type TrecMeans struct {
	Queries                     int
	Recall, Precision, NDCG, RR float64
	// More are the registry's added metrics (Summary.More), so averaged.
	More []float64
}

// Scorecard is the scored form of one run against a set.
type Scorecard struct {
	Set   *Set
	Depth Depth
	// DepthDefaults names the depths ("candidates", "context") neither a
	// flag nor a config set: the defaults (reports say so).
	DepthDefaults []string
	// Queries holds the answerable queries, in set order.
	Queries []QueryScore
	// Unanswerable holds the queries marked unanswerable, in set order.
	Unanswerable []UnanswerableResult
	// Summary covers the answerable queries that are not synthetic; the
	// synthetic ones are summarised apart and never in the headline.
	Summary          Summary
	SyntheticSummary Summary
	// Missing lists set queries absent from the run (scored as empty results).
	Missing []string
	// Unknown lists run query ids that are not in the set (ignored).
	Unknown []string
}

// Warnings describes, in a stable order, what reading the set and scoring
// the run had to assume.
func (c *Scorecard) Warnings() []string {
	return append(append([]string{}, c.Set.Warnings...), c.RunWarnings()...)
}

// RunWarnings are the run's part of Warnings.
func (c *Scorecard) RunWarnings() []string {
	var w []string
	if len(c.Missing) <= 3 {
		for _, id := range c.Missing {
			w = append(w, fmt.Sprintf("query %s is not in the run; scored as an empty result", ClipID(id)))
		}
	} else {
		w = append(w, fmt.Sprintf("%d set queries are not in the run; scored as empty results: %s", len(c.Missing), JoinFirst(c.Missing, 10)))
	}
	if len(c.Unknown) > 0 {
		// The run's ids as VisibleID shows them: "q01 " must not read as
		// the set's q01 in the warning.
		shown := make([]string, len(c.Unknown))
		for i, id := range c.Unknown {
			shown[i] = VisibleID(id)
		}
		w = append(w, fmt.Sprintf("%d run queries are not in the set and were ignored: %s", len(c.Unknown), JoinFirst(shown, 10)))
	}
	if u := unplacedWarning(c.Queries); u != "" {
		w = append(w, u)
	}
	return w
}

// ScoreQuery scores one query's ranked hits at the given depths. Hits are
// collapsed to their parent documents first, keeping the first occurrence in
// rank order. seen is scratch space and may be nil.
func ScoreQuery(q *Query, hits []Hit, d Depth, seen *Seen) QueryScore {
	units, unplaced, first := placed(q, hits)
	s := scoreDocuments(q, units, d, seen)
	s.Unplaced, s.UnplacedFirst = unplaced, first
	// The context is packed from the hits as the pipeline returned them
	// (a chunk is one passage, whatever sections it counts for).
	s.Context = packContext(q, hits, d.ContextTokens)
	s.Evidence = evidenceOf(q, s.Context)
	return s
}

// scoreDocuments is ScoreQuery's document scores, without the context stage.
func scoreDocuments(q *Query, hits []Hit, d Depth, seen *Seen) QueryScore {
	if seen == nil {
		seen = &Seen{}
	}
	seen.reset(len(hits))
	gold := seen.filter(q.Gold)
	s := QueryScore{ID: q.ID, Relevant: q.relevant, Hits: len(hits), GoldRanks: map[string]int{}}
	keep := d.keep()
	dcg := 0.0
	rank := 0
	for _, h := range hits {
		sum := seen.sum(h.Doc)
		if !seen.addSum(h.Doc, sum) {
			continue
		}
		rank++
		if rank <= d.Context && h.Text != "" {
			if s.Passages == nil {
				s.Passages = map[string]string{}
			}
			t := []rune(strings.TrimSpace(h.Text))
			if len(t) > PassageRunes {
				t = append(t[:PassageRunes-1], '…')
			}
			s.Passages[strings.Clone(h.Doc)] = string(t)
		}
		if rank <= keep {
			// Clone: the hit's string may share memory with the whole run
			// of the query (TREC arena), which must not outlive scoring.
			s.Docs = append(s.Docs, strings.Clone(h.Doc))
		}
		g := 0
		if gold.may(sum) {
			g = q.Gold[h.Doc]
		}
		if rank <= d.Context && g > 0 {
			dcg += float64(g) / math.Log2(float64(rank+1))
			s.InContext++
		}
		if g > 0 {
			s.GoldRanks[strings.Clone(h.Doc)] = rank
			if rank <= d.Candidates {
				s.Found++
			}
			if s.FirstHitRank == 0 {
				s.FirstHitRank = rank
			}
		}
	}
	s.Returned = rank
	if s.Relevant > 0 {
		s.Recall = float64(s.Found) / float64(s.Relevant)
	}
	s.Precision = float64(s.InContext) / float64(d.Context)
	if ideal := q.idealDCG(d.Context); ideal > 0 {
		s.NDCG = dcg / ideal
	}
	if s.FirstHitRank > 0 {
		s.RR = 1 / float64(s.FirstHitRank)
	}
	s.More = scoreMore(&s, d)
	return s
}

// ScoreResult is ScoreQuery with the final context the result carried:
// where the pipeline gave its own, the context stage is scored on it
// rather than on a context packed from the hits.
func ScoreResult(q *Query, r Result, d Depth, seen *Seen) QueryScore {
	if r.Context == nil {
		return ScoreQuery(q, r.Hits, d, seen)
	}
	hits, unplaced, first := placed(q, r.Hits)
	s := scoreDocuments(q, hits, d, seen)
	s.Unplaced, s.UnplacedFirst = unplaced, first
	s.Context = ownContext(q, r.Context)
	s.Evidence = evidenceOf(q, s.Context)
	return s
}

// Scorer scores the results of one run as they stream in.
type Scorer struct {
	set     *Set
	depth   Depth
	scores  map[string]QueryScore
	unans   map[string]UnanswerableResult
	unknown []string
	seen    Seen
	spill   Spill
}

// Spill takes every query's full score as it is made, so that a Scorer
// keeps only each query's numbers and its memory does not grow with the
// documents the run returned. Put may be called from several goroutines at
// once; its error stops the scoring. A run that holds a query twice (in two
// segments) may Put it twice before the scoring fails with the run's error:
// a Spill must not fail on that.
type Spill interface {
	Put(QueryScore) error
}

// Numbers is the score without what a Spill took: documents, ranks,
// passages and evidence.
func (s QueryScore) Numbers() QueryScore {
	s.Docs, s.GoldRanks, s.Passages, s.Evidence = nil, nil, nil, nil
	s.Context = s.Context.numbers()
	return s
}

// SpillError is a Spill that failed: the machine's trouble (a full disk, a
// temporary folder that cannot be written), never the input's; IsInfra
// reports it, so the CLI exits 3.
type SpillError struct {
	// ID is the query whose score was being parked ("" when none).
	ID  string
	Err error
}

// Error implements error.
func (e *SpillError) Error() string {
	if e.ID == "" {
		return fmt.Sprintf("score spill: %v", e.Err)
	}
	return fmt.Sprintf("spill the score of %s: %v", e.ID, e.Err)
}

// Unwrap returns the underlying error.
func (e *SpillError) Unwrap() error { return e.Err }

// keep stores a query's score, through the spill when there is one.
func (s *Scorer) keep(qs QueryScore) (QueryScore, error) {
	if s.spill == nil {
		return qs, nil
	}
	if err := s.spill.Put(qs); err != nil {
		return QueryScore{}, &SpillError{ID: qs.ID, Err: err}
	}
	return qs.Numbers(), nil
}

// NewSpilledScorer is NewScorer handing every query's full score to sp as
// it is made (nil: kept in the Scorecard); the Scorecard's queries then hold
// only their numbers (no Docs, GoldRanks, Passages, Evidence).
func NewSpilledScorer(set *Set, d Depth, sp Spill) *Scorer {
	sc := NewScorer(set, d)
	sc.spill = sp
	return sc
}

// Part returns a new Scorer for one segment of the same run: the same set,
// depths and spill; Merge joins it back.
func (s *Scorer) Part() *Scorer { return NewSpilledScorer(s.set, s.depth, s.spill) }

// NewScorer returns a Scorer for the set at the given depths.
func NewScorer(set *Set, d Depth) *Scorer {
	return &Scorer{set: set, depth: d, scores: map[string]QueryScore{}, unans: map[string]UnanswerableResult{}}
}

// Add scores one result. A second result for the same query is an error.
func (s *Scorer) Add(r Result) error {
	q := s.set.Query(r.ID)
	if q == nil {
		s.unknown = append(s.unknown, strings.Clone(r.ID))
		return nil
	}
	_, a := s.scores[r.ID]
	_, b := s.unans[r.ID]
	if a || b {
		return fmt.Errorf("query %s has two results", ClipID(r.ID))
	}
	if q.Unanswerable {
		s.seen.reset(len(r.Hits))
		for _, h := range r.Hits {
			s.seen.add(h.Doc)
		}
		s.unans[q.ID] = UnanswerableResult{ID: q.ID, Returned: s.seen.Len(), Signal: signalOf(r)}
		return nil
	}
	scored := ScoreResult(q, r, s.depth, &s.seen)
	scored.Signal = signalOf(r)
	qs, err := s.keep(scored)
	if err != nil {
		return err
	}
	s.scores[q.ID] = qs
	return nil
}

// Card finishes scoring: set queries without a result are scored as empty
// results and listed in Missing. It fails when the run matched no query of
// the set at all, since that can only be the wrong file.
func (s *Scorer) Card() (*Scorecard, error) {
	c := &Scorecard{Set: s.set, Depth: s.depth}
	if len(s.scores)+len(s.unans) == 0 {
		return nil, fmt.Errorf("no query of the set %s is in the run (%d other ids, e.g. %s): wrong file?", s.set.Path, len(s.unknown), JoinFirst(s.unknown, 3))
	}
	for _, q := range s.set.Queries {
		if q.Unanswerable {
			u, ok := s.unans[q.ID]
			if !ok {
				u = UnanswerableResult{ID: q.ID, Missing: true}
				c.Missing = append(c.Missing, q.ID)
			}
			c.Unanswerable = append(c.Unanswerable, u)
			continue
		}
		sc, ok := s.scores[q.ID]
		if !ok {
			sc = ScoreQuery(q, nil, s.depth, &s.seen)
			sc.Missing = true
			c.Missing = append(c.Missing, q.ID)
			var err error
			if sc, err = s.keep(sc); err != nil {
				return nil, err
			}
		}
		c.Queries = append(c.Queries, sc)
	}
	c.Unknown = append([]string(nil), s.unknown...)
	c.summarize()
	return c, nil
}

// summarize sets the summaries from the queries: the headline over the
// real ones, the synthetic ones apart, and trec_eval's means when the set
// has queries judged only grade 0.
func (c *Scorecard) summarize() {
	var real, synthetic []QueryScore
	for _, q := range c.Queries {
		if c.Set.Query(q.ID).Source == "synthetic" {
			synthetic = append(synthetic, q)
		} else {
			real = append(real, q)
		}
	}
	c.Summary = summarize(real, c.Depth.below())
	c.SyntheticSummary = summarize(synthetic, c.Depth.below())
	zeros := 0
	for _, q := range c.Set.Queries {
		if q.OnlyZero {
			zeros++
		}
	}
	if zeros > 0 {
		n := float64(c.Summary.Queries + zeros)
		c.Summary.TrecEval = &TrecMeans{Queries: c.Summary.Queries + zeros,
			Recall: c.Summary.Recall * float64(c.Summary.Queries) / n, Precision: c.Summary.Precision * float64(c.Summary.Queries) / n,
			NDCG: c.Summary.NDCG * float64(c.Summary.Queries) / n, RR: c.Summary.RR * float64(c.Summary.Queries) / n,
			More: scaleMore(c.Summary.More, float64(c.Summary.Queries)/n)}
	}
}

// ContextSummary aggregates the final-context stage of one side.
type ContextSummary struct {
	// Queries have a final context: Own of them the pipeline's, Packed
	// packed by recallgate under Budget words.
	Queries, Own, Packed, Budget int
	// Recall is the mean context document recall over Queries.
	Recall float64
	// EvidenceQueries are those of Queries with evidence; Coverage is
	// their mean evidence coverage; Facts and FactsFound sum their facts.
	EvidenceQueries   int
	Coverage          float64
	Facts, FactsFound int
	// Passages and Tokens are the mean context size over Queries.
	Passages, Tokens float64
}

// Source says where a side's final contexts came from, as every report
// says it.
func (c *ContextSummary) Source() string {
	if c == nil || c.Queries == 0 {
		return "none: the run carried no passage text and no context"
	}
	packed := fmt.Sprintf("packed by recallgate from the hits, context_tokens = %d", c.Budget)
	switch {
	case c.Packed == 0:
		return "the pipeline's own"
	case c.Own == 0:
		return packed
	}
	return fmt.Sprintf("the pipeline's own for %d %s; packed by recallgate from the hits for %d (context_tokens = %d)", c.Own, Plural(c.Own, "query", "queries"), c.Packed, c.Budget)
}

func summarizeContext(qs []QueryScore) *ContextSummary {
	var c ContextSummary
	for _, q := range qs {
		x := q.Context
		if x == nil {
			continue
		}
		c.Queries++
		if x.Source == ContextOwn {
			c.Own++
		} else {
			c.Packed++
			c.Budget = x.Budget
		}
		c.Recall += x.Recall()
		c.Passages += float64(x.Size)
		c.Tokens += float64(x.Tokens)
		if v, ok := x.Coverage(); ok {
			c.EvidenceQueries++
			c.Coverage += v
			c.Facts += x.FactCount
			c.FactsFound += x.FactsFound
		}
	}
	if c.Queries == 0 {
		return nil
	}
	n := float64(c.Queries)
	c.Recall /= n
	c.Passages /= n
	c.Tokens /= n
	if c.EvidenceQueries > 0 {
		c.Coverage /= float64(c.EvidenceQueries)
	}
	return &c
}

func summarize(qs []QueryScore, below float64) Summary {
	var s Summary
	s.Queries = len(qs)
	s.Context = summarizeContext(qs)
	for _, q := range qs {
		s.Recall += q.Recall
		s.Precision += q.Precision
		s.NDCG += q.NDCG
		s.RR += q.RR
		s.More = addMore(s.More, q.More)
		if q.Found == 0 {
			s.ZeroRecall = append(s.ZeroRecall, q.ID)
		}
		if q.Recall < below {
			s.BelowHalf = append(s.BelowHalf, q.ID)
		}
	}
	if n := float64(len(qs)); n > 0 {
		s.Recall /= n
		s.Precision /= n
		s.NDCG /= n
		s.RR /= n
		for i := range s.More {
			s.More[i] /= n
		}
	}
	return s
}

// ScoreResults scores results already in memory.
func ScoreResults(set *Set, results []Result, d Depth) (*Scorecard, error) {
	sc := NewScorer(set, d)
	for _, r := range results {
		if err := sc.Add(r); err != nil {
			return nil, err
		}
	}
	return sc.Card()
}

// Merge adds another Scorer's results (one segment of the same run, made
// with Part); a query in both is the run's second block of that query.
func (s *Scorer) Merge(o *Scorer, path string) error {
	for id, q := range o.scores {
		if _, dup := s.scores[id]; dup {
			return twoBlocks(path, id)
		}
		s.scores[id] = q
	}
	for id, u := range o.unans {
		if _, dup := s.unans[id]; dup {
			return twoBlocks(path, id)
		}
		s.unans[id] = u
	}
	s.unknown = append(s.unknown, o.unknown...)
	return nil
}

// twoBlocks is the error of a query whose lines are not together.
func twoBlocks(path, id string) error {
	return &InputError{File: path, Field: "qid", Err: fmt.Errorf("query %q starts a second block; keep each query's lines together, e.g. sort -s -k1,1", ClipID(id))}
}
