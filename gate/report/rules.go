package report

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// RuleInfo is one gate rule as applied: what it read, the two sides, the
// value held against the limit and the outcome.
type RuleInfo struct {
	Name    string `json:"name"`
	Metric  string `json:"metric"`
	Depth   int    `json:"depth"`
	Segment string `json:"segment"`
	Queries int    `json:"queries"`
	// Base and Head are means, counts, or p95 milliseconds for latency.
	Base  float64 `json:"base"`
	Head  float64 `json:"head"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	// Flipped counts the queries that moved the wrong way on the metric.
	Flipped int `json:"flipped"`
	// Outcome is pass, fail, inconclusive or skipped.
	Outcome string `json:"outcome"`
	// Reason is the rule's line in the verdict, when it did not pass.
	Reason string `json:"reason,omitempty"`
}

// UnjudgedInfo says how many retrieved documents nobody judged (pool bias).
type UnjudgedInfo struct {
	// Known is false when the set records no judgements (gold only): then
	// judged non-relevant and never judged cannot be told apart, and the
	// counts below are zero.
	Known bool `json:"known"`
	// Mode is the reading the scores and rules used ([gate] unjudged):
	// "nonrelevant", "condensed" or "range"; "" when not Known (gold
	// only: nothing to read otherwise) and in reports made before it.
	Mode string `json:"mode,omitempty"`
	// BaseJudgedAtK and HeadJudgedAtK are the mean share of judged
	// documents in the top k (ir_measures' Judged@k).
	BaseJudgedAtK float64 `json:"base_judged_at_k"`
	HeadJudgedAtK float64 `json:"head_judged_at_k"`
	// BaseAtK … HeadAtN count unjudged documents over all queries.
	BaseAtK int `json:"base_at_k"`
	HeadAtK int `json:"head_at_k"`
	BaseAtN int `json:"base_at_n"`
	HeadAtN int `json:"head_at_n"`
	// New lists, per query, the head's context documents nobody judged
	// that were not in the base's context window: the pairs to label.
	New []UnjudgedQuery `json:"new"`
	// LabelDebt counts New: documents and queries; null when not Known.
	LabelDebt *LabelDebtInfo `json:"label_debt"`
	// HeadRange bounds the head's precision@k and nDCG@k by the documents
	// nobody judged in its top k; null when none reaches it (or not Known).
	HeadRange *RangeInfo `json:"head_range"`
}

// UnjudgedQuery is one query's new unjudged context documents.
type UnjudgedQuery struct {
	ID   string   `json:"id"`
	Docs []string `json:"docs"`
}

// LatencyInfo is one side's retriever timing, in milliseconds.
type LatencyInfo struct {
	Calls   int     `json:"calls"`
	P50     float64 `json:"p50_ms"`
	P95     float64 `json:"p95_ms"`
	Max     float64 `json:"max_ms"`
	Total   float64 `json:"total_ms"`
	Startup float64 `json:"startup_ms"`
	// QueueP50 and QueueP95 are the time calls waited before their request
	// was sent (the retriever's single pipe, the rate limit), kept out of
	// the latencies.
	QueueP50 float64 `json:"queue_wait_p50_ms"`
	QueueP95 float64 `json:"queue_wait_p95_ms"`
}

// LatencyPair is both sides' timing; a side is nil when it was not timed.
type LatencyPair struct {
	Base *LatencyInfo `json:"base"`
	Head *LatencyInfo `json:"head"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// msText shows milliseconds with the precision their size deserves:
// "0.042 ms", "3.4 ms", "1250 ms".
func msText(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3f ms", v)
	case v < 100:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func latencyInfo(s *gate.LatencyStats) *LatencyInfo {
	if s == nil {
		return nil
	}
	return &LatencyInfo{Calls: s.Calls, P50: ms(s.P50), P95: ms(s.P95), Max: ms(s.Max), Total: ms(s.Total), Startup: ms(s.Build),
		QueueP50: ms(s.QueueP50), QueueP95: ms(s.QueueP95)}
}

func rulesInfo(c *gate.Comparison) []RuleInfo {
	out := []RuleInfo{}
	for _, r := range c.Rules {
		reason := r.Why
		if r.Outcome != gate.RuleFail && r.Note != "" {
			reason = r.Note
		}
		if r.Outcome == gate.RulePass {
			reason = ""
		}
		out = append(out, RuleInfo{Name: r.Name, Metric: r.Metric, Depth: r.Depth, Segment: r.Segment, Queries: r.Queries,
			Base: r.Base, Head: r.Head, Value: r.Value, Limit: r.Limit, Flipped: r.Flipped, Outcome: r.Outcome, Reason: reason})
	}
	return out
}

func unjudgedInfo(c *gate.Comparison) UnjudgedInfo {
	u := UnjudgedInfo{Known: c.JudgementsKnown, New: []UnjudgedQuery{}}
	if !u.Known {
		return u
	}
	u.Mode = c.UnjudgedReading()
	var nb, nh int
	for _, p := range c.Queries {
		u.BaseAtK += p.BaseUnjudged.AtK
		u.HeadAtK += p.HeadUnjudged.AtK
		u.BaseAtN += p.BaseUnjudged.AtN
		u.HeadAtN += p.HeadUnjudged.AtN
		if k := p.BaseUnjudged.ReturnedK; k > 0 {
			u.BaseJudgedAtK += float64(k-p.BaseUnjudged.AtK) / float64(k)
			nb++
		}
		if k := p.HeadUnjudged.ReturnedK; k > 0 {
			u.HeadJudgedAtK += float64(k-p.HeadUnjudged.AtK) / float64(k)
			nh++
		}
		if len(p.NewUnjudged) > 0 {
			u.New = append(u.New, UnjudgedQuery{ID: p.Query.ID, Docs: list(p.NewUnjudged)})
		}
	}
	u.LabelDebt = &LabelDebtInfo{Queries: len(u.New)}
	for _, q := range u.New {
		u.LabelDebt.Documents += len(q.Docs)
	}
	u.HeadRange = rangeInfo(c.HeadRange)
	if nb > 0 {
		u.BaseJudgedAtK /= float64(nb)
	}
	if nh > 0 {
		u.HeadJudgedAtK /= float64(nh)
	}
	return u
}

// ruleLabel names a rule for a table: "max_ndcg_drop (nDCG@3)".
func (r RuleInfo) label(n metricNames) string {
	m := ""
	if mt, err := gate.LookupMetric(r.Metric); err == nil {
		m = mt.Label(n.depth)
	}
	if m == "" {
		return r.Name
	}
	return r.Name + " (" + m + ")"
}

// cells are the rule's base, head, value and limit as a table shows them.
func (r RuleInfo) cells() [4]string {
	switch r.Metric {
	case "":
		return [4]string{"", "", fmt.Sprintf("%d queries", r.Queries), fmt.Sprintf("≥ %d", int(r.Limit))}
	case gate.MetricFalseAnswers, gate.MetricFalseRefusals:
		if r.Outcome == gate.RuleSkipped || (r.Outcome == gate.RuleInconclusive && r.Base == 0 && r.Head == 0 && r.Value == 0) {
			return [4]string{"—", "—", "not evaluated", fmt.Sprintf("≤ +%d", int(r.Limit))}
		}
		return [4]string{fmt.Sprint(int(r.Base)), fmt.Sprint(int(r.Head)), fmt.Sprintf("%+d", int(r.Value)), fmt.Sprintf("≤ +%d", int(r.Limit))}
	case gate.MetricZero, gate.MetricBelow:
		v := fmt.Sprintf("+%d", int(r.Value))
		if r.Metric == gate.MetricZero {
			v = fmt.Sprintf("%d new", int(r.Value))
		}
		return [4]string{fmt.Sprint(int(r.Base)), fmt.Sprint(int(r.Head)), v, fmt.Sprintf("≤ %d", int(r.Limit))}
	case gate.MetricMissingGold:
		return [4]string{"", fmt.Sprint(int(r.Head)), fmt.Sprintf("%d missing", int(r.Value)), fmt.Sprintf("≤ %d", int(r.Limit))}
	case gate.MetricFactsLost:
		if r.Outcome == gate.RuleSkipped {
			return [4]string{"", "", "", fmt.Sprintf("≤ %d", int(r.Limit))}
		}
		return [4]string{fmt.Sprint(int(r.Base)), fmt.Sprint(int(r.Head)), fmt.Sprintf("%d lost", int(r.Value)), fmt.Sprintf("≤ %d", int(r.Limit))}
	}
	if r.Outcome == gate.RuleSkipped && (r.Metric == gate.MetricContextRecall || r.Metric == gate.MetricCoverage) {
		return [4]string{"", "", "", "≤ " + f3(r.Limit)}
	}
	switch rule := gate.LookupRule(r.Name); {
	case rule != nil && rule.Kind == gate.KindRatio:
		return [4]string{fmt.Sprintf("%.1f", r.Base), fmt.Sprintf("%.1f", r.Head), gate.FixedApart(r.Value, r.Limit, 2) + "×", fmt.Sprintf("≤ %.2f×", r.Limit)}
	case rule != nil && rule.Kind == gate.KindFloor:
		return [4]string{f3(r.Base), f3(r.Head), gate.FixedApart(r.Value, r.Limit, 3), "≥ " + f3(r.Limit)}
	}
	return [4]string{f3(r.Base), f3(r.Head), "drop " + gate.FixedApart(r.Value, r.Limit, 3), "≤ " + f3(r.Limit)}
}

// latencyLine is the one-line latency summary, or "" when neither side was timed.
func latencyLine(l *LatencyPair) string {
	if l == nil || (l.Base == nil && l.Head == nil) {
		return ""
	}
	side := func(name string, s *LatencyInfo) string {
		if s == nil {
			return name + " not timed (cached or stored run)"
		}
		out := fmt.Sprintf("%s p50 %s, p95 %s, max %s over %d calls (%s in all", name, msText(s.P50), msText(s.P95), msText(s.Max), s.Calls, msText(s.Total))
		if s.Startup > 0 {
			out += ", start-up " + msText(s.Startup)
		}
		out += ")"
		if s.QueueP95 > 0 {
			out += fmt.Sprintf(", after a queue wait of p50 %s, p95 %s (not in the latency)", msText(s.QueueP50), msText(s.QueueP95))
		}
		return out
	}
	out := "Latency per query: " + side("base", l.Base) + "; " + side("head", l.Head)
	if l.Base != nil && l.Head != nil && l.Base.P95 > 0 {
		out += fmt.Sprintf("; head p95 is %.2f× the base's", l.Head.P95/l.Base.P95)
	}
	return out
}

// unjudgedLine says what is known of unjudged documents, or "" when the
// head brings none into the context; file is the JSON report the run
// wrote (CompareReport.ReportFile), named in the command that labels them.
func unjudgedLine(u UnjudgedInfo, k int, file string) string {
	if !u.Known {
		return "The set records no judgements (gold only), so documents nobody judged cannot be told from judged non-relevant ones: unjudged counts are unknown."
	}
	n, nq := 0, len(u.New)
	for _, q := range u.New {
		n += len(q.Docs)
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("Label debt: %d unjudged %s in %d %s are new in the head's top %d (the base's top %d did not hold them) (judged@%d: base %.3f, head %.3f); %s until judged: %s.",
		n, plural(n, "document", "documents"), nq, plural(nq, "query", "queries"), k, k, k, u.BaseJudgedAtK, u.HeadJudgedAtK, untilJudged(u.Mode), labelCommand(file))
}

// NotInCorpusInfo counts the returned ids the corpus does not hold, per side.
type NotInCorpusInfo struct {
	// Base and Head count the (query, id) pairs of each side's kept top
	// max(N, k) that name no document of the corpus.
	Base int `json:"base"`
	Head int `json:"head"`
	// BaseQueries and HeadQueries count the queries that returned one.
	BaseQueries int `json:"base_queries"`
	HeadQueries int `json:"head_queries"`
	// BaseIDs and HeadIDs are the first of them (up to
	// gate.MaxNotInCorpusShown each, distinct, in set and rank order).
	BaseIDs []string `json:"base_ids"`
	HeadIDs []string `json:"head_ids"`
}

func notInCorpusInfo(n *gate.NotInCorpus) *NotInCorpusInfo {
	if n == nil {
		return nil
	}
	return &NotInCorpusInfo{Base: n.Count[0], Head: n.Count[1], BaseQueries: n.Queries[0], HeadQueries: n.Queries[1], BaseIDs: list(n.First[0]), HeadIDs: list(n.First[1])}
}

// validate checks the block read back: counts that agree with the ids
// listed, ids without control characters.
func (n *NotInCorpusInfo) validate(corpusKnown bool) error {
	if n == nil {
		return nil
	}
	if !corpusKnown {
		return errors.New("not_in_corpus is given only when the corpus is known, but corpus_known is false")
	}
	for _, s := range []struct {
		side         string
		count, nq, n int
	}{{"base", n.Base, n.BaseQueries, len(n.BaseIDs)}, {"head", n.Head, n.HeadQueries, len(n.HeadIDs)}} {
		if s.count < 0 || s.nq < 0 || s.nq > s.count || s.n > s.count || s.n > gate.MaxNotInCorpusShown || (s.count > 0) != (s.n > 0) {
			return fmt.Errorf("not_in_corpus.%s: %d ids in %d queries with %d listed: want 0 ≤ queries ≤ ids, 1–%d listed when there are any", s.side, s.count, s.nq, s.n, gate.MaxNotInCorpusShown)
		}
	}
	if err := plainAll("not_in_corpus.base_ids", n.BaseIDs...); err != nil {
		return err
	}
	return plainAll("not_in_corpus.head_ids", n.HeadIDs...)
}

// notInCorpusLine says how many returned ids the corpus does not hold, per
// side, when any side returned one; id writes each id for the format.
func notInCorpusLine(n *NotInCorpusInfo, id func(string) string) string {
	if n == nil || n.Base+n.Head == 0 {
		return ""
	}
	side := func(name string, count, nq int, ids []string) string {
		if count == 0 {
			return "the " + name + " none"
		}
		more := ""
		if count > len(ids) {
			more = ", …"
		}
		return fmt.Sprintf("the %s %d in %d %s (%s%s)", name, count, nq, plural(nq, "query", "queries"), strings.Join(mapIDs(ids, id), ", "), more)
	}
	return fmt.Sprintf("Not in the corpus: returned ids that name no document of it, %s; %s. They are judged non-relevant (not unjudged, no label debt).",
		side("head", n.Head, n.HeadQueries, n.HeadIDs), side("base", n.Base, n.BaseQueries, n.BaseIDs))
}

// plainPath is a path a report may show in a code span as it is.
var plainPath = regexp.MustCompile(`^[A-Za-z0-9._/+-]{1,200}$`)

// labelCommand is the command that labels a report's unjudged documents,
// naming the JSON report file the run wrote; without one (or one a code
// span cannot show as it is), how to write it.
func labelCommand(file string) string {
	if plainPath.MatchString(file) && !strings.HasPrefix(file, "-") {
		return "`recallgate label --from-report " + file + "`"
	}
	return "`recallgate label --from-report REPORT.json` (the run's JSON report: --json-out REPORT.json)"
}
