package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// compareJUnit writes one test case per answerable query: a regression is a
// failure (unless waived), synthetic, base-unstable and data-quality
// (kept out) queries are skipped,
// a head-unstable query is judged at its worst repeat (skipped as head
// unstable when it did not regress), and
// a failing verdict adds a "verdict" case so the suite fails even when only
// the mean moved.
func compareJUnit(w io.Writer, r *CompareReport) error {
	s := junitSuite{Name: "recallgate " + r.Set.Path, Properties: []junitProperty{
		{"verdict", r.Verdict},
		{"recall_base", fmt.Sprintf("%.4f", r.Summary.Base.RecallAtN)},
		{"recall_head", fmt.Sprintf("%.4f", r.Summary.Head.RecallAtN)},
		{"candidates", fmt.Sprint(r.Depth.Candidates)},
		{"context", fmt.Sprint(r.Depth.Context)},
	}}
	s.Properties = append(s.Properties, suiteProperties(r)...)
	stale := map[string]bool{}
	for _, d := range r.DataQuality {
		stale[d.ID] = d.KeptOut
	}
	emptyHead := map[string]bool{}
	for _, id := range r.EmptyAnswers.Head {
		emptyHead[id] = true
	}
	if len(r.EmptyAnswers.Head) > 0 {
		s.Properties = append(s.Properties, junitProperty{"empty_answers_head", strings.Join(r.EmptyAnswers.Head, " ")})
	}
	if r.hasContext() {
		b, h := r.Summary.Base.Context, r.Summary.Head.Context
		s.Properties = append(s.Properties, junitProperty{"context_base", contextSource(b)}, junitProperty{"context_head", contextSource(h)},
			junitProperty{"evidence_coverage_base", coverageOf(b)}, junitProperty{"evidence_coverage_head", coverageOf(h)})
	}
	for _, q := range r.Queries {
		c := queryCase(r, q, stale[q.ID], emptyHead[q.ID])
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	if c, ok := refusalCase(r); ok {
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	if r.Verdict == "fail" {
		reasons := ""
		for _, x := range r.Reasons {
			reasons += x + "\n"
		}
		s.Cases = append(s.Cases, junitCase{Name: "verdict", Classname: "recallgate.gate", Failure: &junitFailure{Message: "the gate failed", Type: "gate", Text: reasons}})
		s.Failures++
	}
	s.Tests = len(s.Cases)
	safeSuite(&s)
	doc := junitSuites{Name: "recallgate", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// suiteProperties are the suite's properties past the verdict, recalls
// and depths: statistics, the baseline, label debt, the judge, the set's
// proposal, empty answers and the final context.
func suiteProperties(r *CompareReport) []junitProperty {
	var props []junitProperty
	if st := r.Statistics; st != nil {
		flips, drop := "none", "none"
		if k := st.MinSameDirectionFlips; k != nil {
			flips = fmt.Sprint(*k)
		}
		if d := st.MinDetectableRecallDrop; d != nil {
			drop = f3(*d)
		}
		props = append(props, junitProperty{"min_same_direction_flips", flips}, junitProperty{"min_detectable_recall_drop", drop})
		for _, b := range st.Bound {
			props = append(props, junitProperty{"bound_" + b.Metric, f3(b.Drop)})
		}
	}
	if d := r.BaselineDistance; d != nil {
		props = append(props, junitProperty{"recall_baseline", fmt.Sprintf("%.4f", d.Baseline)},
			junitProperty{"baseline_distance", distanceLine(r, func(s string) string { return s })})
	}
	if n := r.NotInCorpus; n != nil {
		props = append(props, junitProperty{"not_in_corpus", fmt.Sprintf("base %d, head %d", n.Base, n.Head)})
	}
	if d := r.Unjudged.LabelDebt; d != nil {
		props = append(props, junitProperty{"label_debt", fmt.Sprintf("%d documents in %d queries", d.Documents, d.Queries)})
	}
	if j := r.Judge; j != nil {
		props = append(props, junitProperty{"judge", j.summary()})
		if h := judgeHeadline(r, flatten); h != "" {
			props = append(props, junitProperty{"judge_verdict", h})
		}
		for _, d := range j.Disagreements {
			props = append(props, junitProperty{"judge_disagreement", d.line()})
		}
	}
	if h := setHeadline(r); h != "" {
		props = append(props, junitProperty{"set", h})
		for _, l := range setLines(r, func(id string) string { return flatten(gate.VisibleID(id)) }) {
			props = append(props, junitProperty{"set_proposal", l})
		}
	}
	if h := baselineHeadline(r, flatten); h != "" {
		props = append(props, junitProperty{"baseline", h})
	}
	if l := baselineLines(r, flatten, func(id string) string { return flatten(gate.VisibleID(id)) }); len(l) > 0 {
		props = append(props, junitProperty{"baseline_drift", strings.Join(l, "\n")})
	}
	return props
}

// queryCase is one query's test case: a regression fails it, a query
// kept out of the verdict is skipped (stale: its loss is gold the corpus
// no longer holds; emptyHead: the head returned no hits for it).
func queryCase(r *CompareReport, q CompareQuery, stale, emptyHead bool) junitCase {
	c := junitCase{Name: gate.VisibleID(q.ID), Classname: "recallgate.query",
		SystemOut: fmt.Sprintf("%s\nrecall@%d %.3f -> %.3f, nDCG@%d %.3f -> %.3f", q.Query, r.Depth.Candidates, q.Base.RecallAtN, q.Head.RecallAtN, r.Depth.Context, q.Base.NDCGAtK, q.Head.NDCGAtK)}
	if q.Base.Context != nil || q.Head.Context != nil {
		c.SystemOut += fmt.Sprintf("\nfinal context: context recall %s -> %s, evidence %s -> %s", queryRecall(q.Base.Context), queryRecall(q.Head.Context), queryCoverage(q.Base.Context), queryCoverage(q.Head.Context))
		for _, f := range q.FactsLost {
			c.SystemOut += fmt.Sprintf("\nfact lost: %q (base: %s; head: %s)", f.Fact, f.Passage, f.Instead)
		}
	}
	switch {
	case q.Synthetic:
		c.Skipped = &junitSkipped{Message: "synthetic query: kept out of the verdict"}
	case q.Unstable:
		c.Skipped = &junitSkipped{Message: "unstable between repeats: kept out of the verdict"}
	case stale:
		c.Skipped = &junitSkipped{Message: "data quality: what it lost is gold the corpus no longer holds (not a retrieval miss): kept out of the verdict until relabelled"}
	case q.Change == "regressed" && !q.Waived:
		msg := fmt.Sprintf("recall@%d %.3f -> %.3f", r.Depth.Candidates, q.Base.RecallAtN, q.Head.RecallAtN)
		if emptyHead {
			msg += " (empty answer: the head returned no hits at all, an outage or a stricter match)"
		}
		if q.HeadUnstable {
			msg += " (head unstable: its worst repeat)"
		}
		text := "lost gold documents:"
		for _, d := range q.Lost {
			text += " " + gate.VisibleID(d)
		}
		for _, m := range q.Moves {
			tail := ""
			if m.Fact != "" {
				tail = moveTail(m, flatten, flatten, func(l, _ string) string { return flatten(l) })
			}
			text += fmt.Sprintf("\n%s: %s rank %s -> %s%s", causeText(m.Cause), gate.VisibleID(m.Doc), rankText(m.BaseRank), rankText(m.HeadRank), tail)
		}
		c.Failure = &junitFailure{Message: msg, Type: "regression", Text: text}
	case q.HeadUnstable:
		c.Skipped = &junitSkipped{Message: "head unstable between repeats: judged at its worst repeat, the verdict cannot pass"}
	}
	return c
}

// BenchmarkEntry is one point of github-action-benchmark's
// customBiggerIsBetter format.
type BenchmarkEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Extra string  `json:"extra,omitempty"`
}

// benchmarkEntries gives the document metrics' means of one side as
// trend points, one per registered metric.
func benchmarkEntries(s SideSummary, n, k int, extra string) []BenchmarkEntry {
	var out []BenchmarkEntry
	for _, m := range gate.Metrics() {
		out = append(out, BenchmarkEntry{Name: m.Label(gate.Depth{Candidates: n, Context: k}), Unit: m.Name, Value: metricValue(&s, m), Extra: extra})
	}
	return out
}

// withContextEntries adds the final context's means to a side's trend
// points, when it had one; a coverage that does not apply has no point.
func withContextEntries(e []BenchmarkEntry, s SideSummary) []BenchmarkEntry {
	c := s.Context
	if c == nil {
		return e
	}
	e = append(e, BenchmarkEntry{Name: "context recall", Unit: "context recall", Value: c.ContextRecall, Extra: contextSource(c)})
	if c.EvidenceCoverage.Applies {
		e = append(e, BenchmarkEntry{Name: "evidence coverage", Unit: "evidence coverage", Value: c.EvidenceCoverage.Value, Extra: contextSource(c)})
	}
	return e
}

// refusalCase is the refusal check as one test case: failed when a
// refusal rule failed, skipped when a side has no refusal signal.
func refusalCase(r *CompareReport) (junitCase, bool) {
	if r.Refusal == nil {
		return junitCase{}, false
	}
	c := junitCase{Name: "refusal", Classname: "recallgate.refusal", SystemOut: strings.Join(refusalLines(r, func(s string) string { return s }, gate.VisibleID), "\n")}
	var failed, other []string
	for _, ru := range r.Rules {
		if ru.Metric != "false_answers" && ru.Metric != "false_refusals" {
			continue
		}
		switch ru.Outcome {
		case "fail":
			failed = append(failed, ru.Reason)
		case "skipped", "inconclusive":
			if ru.Reason != "" {
				other = append(other, ru.Reason)
			}
		}
	}
	switch {
	case len(failed) > 0:
		c.Failure = &junitFailure{Message: "the refusal check failed", Type: "refusal", Text: strings.Join(failed, "\n")}
	case !r.Refusal.Base.has() || !r.Refusal.Head.has() || len(other) > 0:
		msg := "no refusal signal: the refusal rules were not evaluated"
		if len(other) > 0 {
			msg = other[0]
		}
		c.Skipped = &junitSkipped{Message: msg}
	}
	return c, true
}

// safeSuite passes every text of a suite through xmlSafe, as the error
// report's JUnit does: ids, chunk ids, passages and reasons from an eval
// set or a retriever's answers lose the control characters XML cannot
// hold and show their invisible ones (a bidi override would reorder what
// a test-report viewer shows).
func safeSuite(s *junitSuite) {
	s.Name = xmlSafe(s.Name)
	for i := range s.Properties {
		p := &s.Properties[i]
		p.Name, p.Value = xmlSafe(p.Name), xmlSafe(p.Value)
	}
	for i := range s.Cases {
		c := &s.Cases[i]
		c.Name, c.Classname, c.SystemOut = xmlSafe(c.Name), xmlSafe(c.Classname), xmlSafe(c.SystemOut)
		if c.Failure != nil {
			c.Failure.Message, c.Failure.Type, c.Failure.Text = xmlSafe(c.Failure.Message), xmlSafe(c.Failure.Type), xmlSafe(c.Failure.Text)
		}
		if c.Skipped != nil {
			c.Skipped.Message = xmlSafe(c.Skipped.Message)
		}
	}
}
