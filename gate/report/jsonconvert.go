package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/recallgate/recallgate/gate"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(true)
	return enc.Encode(v)
}

// list returns a non-nil copy, so JSON shows [] rather than null.
func list(ids []string) []string {
	return append([]string{}, ids...)
}

func setInfo(s *gate.Set) SetInfo {
	a := s.Answerable()
	info := SetInfo{Path: s.Path, Format: s.Format, Queries: len(s.Queries), Answerable: a, Unanswerable: len(s.Queries) - a}
	if u := s.Unit(); u != gate.UnitDocuments {
		info.Unit = u
	}
	return info
}

func scores(s gate.QueryScore) Scores {
	out := Scores{
		Relevant: s.Relevant, Found: s.Found, Returned: s.Returned, Missing: s.Missing,
		Docs: list(s.Docs), Passages: s.Passages,
	}
	setValues(&out, func(m *gate.Metric) float64 { return m.Of(&s) })
	if e := s.Evidence; e != nil {
		ei := &EvidenceInfo{Covered: e.Covered(), Passages: e.Passages, Tokens: e.Tokens, NoText: e.NoText, GoldInContext: list(e.GoldInContext), Facts: []FactInfo{}}
		for _, f := range e.Facts {
			ei.Facts = append(ei.Facts, FactInfo{Fact: f.Text, Found: f.Found, In: f.In, Passage: f.Passage})
		}
		out.Evidence = ei
	}
	out.Context = contextInfo(s.Context)
	if s.FirstHitRank > 0 {
		r := s.FirstHitRank
		out.FirstHitRank = &r
	}
	return out
}

func sideSummary(s gate.Summary) SideSummary {
	out := SideSummary{
		Queries:    s.Queries,
		ZeroRecall: list(s.ZeroRecall), BelowHalf: len(s.BelowHalf), BelowHalfIDs: list(s.BelowHalf),
	}
	setValues(&out, func(m *gate.Metric) float64 { return m.Mean(&s) })
	if t := s.TrecEval; t != nil {
		out.TrecEval = &TrecEvalMeans{Queries: t.Queries}
		setValues(out.TrecEval, func(m *gate.Metric) float64 { return m.TrecMean(t) })
	}
	out.Context = contextSummaryInfo(s.Context)
	return out
}

func unanswerable(u gate.UnanswerableResult) Unanswerable {
	return Unanswerable{ID: u.ID, Returned: u.Returned, Missing: u.Missing}
}

func scoreJSON(c *gate.Scorecard) ScoreReport {
	r := scoreJSONHead(c)
	for _, q := range c.Queries {
		r.Queries = append(r.Queries, ScoreQuery{ID: q.ID, Query: c.Set.Query(q.ID).Text, Scores: scores(q)})
	}
	return r
}

// scoreJSONHead is the score report without its queries' entries.
func scoreJSONHead(c *gate.Scorecard) ScoreReport {
	r := ScoreReport{
		Tool: "recallgate", Command: "score", Set: setInfo(c.Set),
		Depth:   DepthInfo{c.Depth.Candidates, c.Depth.Context, c.DepthDefaults},
		Metrics: metricsFor(c.Depth, c.Summary), Summary: sideSummary(c.Summary),
		Queries: []ScoreQuery{}, Unanswerable: []Unanswerable{}, Warnings: list(c.Warnings()),
	}
	for _, u := range c.Unanswerable {
		r.Unanswerable = append(r.Unanswerable, unanswerable(u))
	}
	return r
}

// FromComparison builds the report model every compare format renders.
func FromComparison(c *gate.Comparison) *CompareReport {
	r := &CompareReport{
		Tool: "recallgate", Command: "compare", Verdict: string(c.Verdict), Reasons: list(c.Reasons), ReasonKinds: c.ReasonKinds,
		Set: setInfo(c.Set), Depth: DepthInfo{c.Depth.Candidates, c.Depth.Context, c.DepthDefaults},
		Thresholds: thresholdInfo(c.Thresholds),
		Metrics:    metricsFor(c.Depth, c.Base, c.Head),
		Summary: CompareSummary{
			Base: sideSummary(c.Base), Head: sideSummary(c.Head),
			Delta: DeltaSummary{
				ZeroRecall: len(c.Head.ZeroRecall) - len(c.Base.ZeroRecall), BelowHalf: len(c.Head.BelowHalf) - len(c.Base.BelowHalf),
			},
		},
		Regressed: list(c.Regressed), Improved: list(c.Improved), RankingOnly: list(c.RankingOnly), NewMisses: list(c.NewMisses),
		Queries: []CompareQuery{}, Unanswerable: []UnanswerablePair{}, Warnings: list(c.Warnings), Notes: c.Notes,
		EmptyAnswers: EmptyAnswersInfo{Base: list(c.EmptyAnswers[0]), Head: list(c.EmptyAnswers[1])},
		Stats: StatsInfo{
			N: c.Stats.N, MeanDelta: c.Stats.MeanDelta, PValue: c.Stats.PValue, Exact: c.Stats.Exact, Significant: c.Stats.Significant(),
			CILow: c.Stats.CILow, CIHigh: c.Stats.CIHigh, Wins: c.Stats.Wins, Losses: c.Stats.Losses, Ties: c.Stats.Ties,
		},
		Statistics: statisticsInfo(c), GateDelta: c.GateDelta, Segments: []SegmentInfo{},
		Synthetic: SyntheticInfo{Queries: list(c.Synthetic), Base: sideSummary(c.SyntheticBase), Head: sideSummary(c.SyntheticHead)},
		Waived:    []WaiverInfo{}, Unstable: list(c.Unstable), HeadUnstable: list(c.HeadUnstable), NoiseFloor: c.NoiseFloor, CorpusKnown: c.CorpusKnown,
		NeverRetrieved: c.NeverRetrieved, NotInCorpus: notInCorpusInfo(c.NotInCorpus),
		Health: list(c.Health), Fingerprints: map[string]string{}, Chart: !c.NoChart,
		Rules: rulesInfo(c), Unjudged: unjudgedInfo(c), BaseSHA: c.BaseSHA, HeadSHA: c.HeadSHA, Policy: policyInfo(c.Policy), SetChanges: setChangesInfo(c.SetChanges),
		Refusal: refusalInfo(c.Refusal), DataQuality: dataQualityInfo(c), Baseline: baselineInfo(c.Baseline),
		BaselineDistance: baselineDistanceInfo(c.BaselineDistance), Judge: judgeInfo(c.Judge),
	}
	setValues(&r.Summary.Delta, func(m *gate.Metric) float64 { return m.Delta(&c.MeanDelta) })
	if c.Baseline != nil {
		v := c.Thresholds.MaxMissingGold
		r.Thresholds.MaxMissingGold = &v
	}
	if c.Name != "" {
		r.Gate = &GateInfo{Name: c.Name}
	}
	if c.Latency[0] != nil || c.Latency[1] != nil {
		r.Latency = &LatencyPair{Base: latencyInfo(c.Latency[0]), Head: latencyInfo(c.Latency[1])}
	}
	for _, s := range c.Segments {
		r.Segments = append(r.Segments, SegmentInfo{s.Kind, s.Name, s.Queries, s.Base, s.Head, s.Regressed, s.Improved, s.Also})
	}
	for _, fp := range c.Fingerprints {
		if fp[1] != "" {
			r.Fingerprints[fp[0]] = fp[1]
		}
	}
	for _, p := range c.Queries {
		bs, hs := scores(p.Base), scores(p.Head)
		if c.JudgementsKnown {
			bs.UnjudgedAtK, bs.UnjudgedAtN = &p.BaseUnjudged.AtK, &p.BaseUnjudged.AtN
			hs.UnjudgedAtK, hs.UnjudgedAtN = &p.HeadUnjudged.AtK, &p.HeadUnjudged.AtN
		}
		r.Queries = append(r.Queries, CompareQuery{
			ID: p.Query.ID, Query: p.Query.Text, Base: bs, Head: hs, NewUnjudged: p.NewUnjudged,
			Change: string(p.Change), RankingOnly: p.RankingOnly, NewMiss: p.NewMiss,
			Delta: queryDelta(&p.Delta),
			Lost:  list(p.Lost), Gained: list(p.Gained), Gold: list(p.Query.RelevantDocs()), Line: p.Query.Line,
			Synthetic: p.Synthetic, Unstable: p.Unstable, HeadUnstable: p.HeadUnstable, Waived: p.Waiver != nil, Moves: moves(p.Moves),
			FactsLost: factMoves(p.FactsLost), FactsGained: factMoves(p.FactsGained),
			Grades: p.Query.Gold, Segments: p.Query.Segments, Source: p.Query.Source,
		})
		if w := p.Waiver; w != nil {
			r.Waived = append(r.Waived, WaiverInfo{ID: p.Query.ID, Reason: w.Reason, Expires: w.Expires.Format("2006-01-02")})
		}
	}
	for _, u := range c.Unanswerable {
		r.Unanswerable = append(r.Unanswerable, UnanswerablePair{ID: u[0].ID, Query: c.Set.Query(u[0].ID).Text, Base: unanswerable(u[0]), Head: unanswerable(u[1])})
	}
	return r
}

// queryDelta is one query's head − base of every document metric.
func queryDelta(d *gate.Delta) QueryDelta {
	var out QueryDelta
	setValues(&out, func(m *gate.Metric) float64 { return m.Delta(d) })
	return out
}

func moves(ms []gate.GoldMove) []MoveInfo {
	var out []MoveInfo
	rank := func(r int) *int {
		if r == 0 {
			return nil
		}
		return &r
	}
	for _, m := range ms {
		out = append(out, MoveInfo{Doc: m.Doc, Grade: m.Grade, BaseRank: rank(m.BaseRank), HeadRank: rank(m.HeadRank), Cause: m.Cause, TookItsPlace: m.TookItsPlace, Fact: m.Fact, Passage: m.Passage})
	}
	return out
}

// depth returns the report's depths in the gate's type.
func (r *CompareReport) depth() gate.Depth {
	return gate.Depth{Candidates: r.Depth.Candidates, Context: r.Depth.Context}
}

// byID indexes the report's queries.
func (r *CompareReport) byID() map[string]*CompareQuery {
	m := make(map[string]*CompareQuery, len(r.Queries))
	for i := range r.Queries {
		m[r.Queries[i].ID] = &r.Queries[i]
	}
	return m
}

// count says "30 queries (29 answerable, 1 unanswerable)".
// unit is what the set's labels name ("documents" when Unit is absent).
func (s SetInfo) unit() string {
	if s.Unit == "" {
		return gate.UnitDocuments
	}
	return s.Unit
}

func (s SetInfo) count() string {
	out := fmt.Sprintf("%d %s", s.Queries, plural(s.Queries, "query", "queries"))
	if s.Unanswerable > 0 {
		out += fmt.Sprintf(" (%d answerable, %d unanswerable)", s.Answerable, s.Unanswerable)
	}
	return out
}

// writeScoreJSON writes a score report as writeJSON would, byte for byte
// (but for an entry past CompactDocs documents, on one line), query by
// query: the whole document is never held in memory, so a
// run of many queries costs the writer a buffer, not a copy of the report.
func writeScoreJSON(w io.Writer, r ScoreReport) error {
	queries := r.Queries
	var b bytes.Buffer
	return writeScoreJSONWith(w, r, len(queries), func(j int) ([]byte, error) {
		b.Reset()
		err := encodeScoreQuery(&b, queries[j])
		return b.Bytes(), err
	})
}

// writeScoreJSONWith writes r with its n queries' entries from entry, each
// as encodeScoreQuery makes it; r.Queries is not read.
func writeScoreJSONWith(w io.Writer, r ScoreReport, n int, entry func(j int) ([]byte, error)) error {
	r.Queries = []ScoreQuery{}
	var skel bytes.Buffer
	if err := writeJSON(&skel, r); err != nil {
		return err
	}
	const hole = `"queries": [],`
	i := bytes.Index(skel.Bytes(), []byte(hole))
	if i < 0 {
		return fmt.Errorf("score report: no queries field in %d bytes", skel.Len())
	}
	if n == 0 {
		_, err := w.Write(skel.Bytes())
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(skel.Bytes()[:i])
	bw.WriteString("\"queries\": [\n")
	for j := 0; j < n; j++ {
		e, err := entry(j)
		if err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(e)
		if j < n-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ],")
	bw.Write(skel.Bytes()[i+len(hole):])
	return bw.Flush()
}
