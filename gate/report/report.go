// Package report renders scorecards and comparisons for people and machines,
// in every format of Formats: plain text for the terminal, JSON with stable
// keys for tools, Markdown for pull-request comments and job summaries, one
// self-contained HTML page, JUnit XML for CI test views, and
// github-action-benchmark's JSON for trend charts. It also reads a JSON
// report back, as untrusted input (ReadCompareReport). Every renderer is
// deterministic: same input, same bytes.
package report

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/publish"
)

// Scorecards are the formats of one scored run.
var Scorecards = NewRenderers("a scorecard",
	Renderer[*gate.Scorecard]{Text, scoreText},
	Renderer[*gate.Scorecard]{JSON, func(w io.Writer, c *gate.Scorecard) error { return writeScoreJSON(w, scoreJSON(c)) }},
	Renderer[*gate.Scorecard]{Markdown, scoreMarkdown},
	Renderer[*gate.Scorecard]{Benchmark, func(w io.Writer, c *gate.Scorecard) error {
		side := sideSummary(c.Summary)
		return writeJSON(w, withContextEntries(benchmarkEntries(side, c.Depth.Candidates, c.Depth.Context, ""), side))
	}},
)

// Comparisons are the formats of a comparison's report.
var Comparisons = NewRenderers("a comparison",
	Renderer[*CompareReport]{Text, compareText},
	Renderer[*CompareReport]{JSON, func(w io.Writer, r *CompareReport) error { return writeJSON(w, r) }},
	Renderer[*CompareReport]{Markdown, compareMarkdown},
	Renderer[*CompareReport]{JUnit, compareJUnit},
	Renderer[*CompareReport]{Benchmark, func(w io.Writer, r *CompareReport) error {
		return writeJSON(w, withContextEntries(benchmarkEntries(r.Summary.Head, r.Depth.Candidates, r.Depth.Context, ""), r.Summary.Head))
	}},
	Renderer[*CompareReport]{HTML, compareHTML},
)

// Score writes one scored run in the given format; a format only a
// comparison has is refused.
func Score(w io.Writer, c *gate.Scorecard, f Format) error {
	if !Scorecards.Has(f) && Comparisons.Has(f) {
		return fmt.Errorf("format %s is for comparisons: use compare or gate", f)
	}
	return Scorecards.Write(w, c, f)
}

// Compare writes a comparison in the given format.
func Compare(w io.Writer, c *gate.Comparison, f Format) error {
	return WriteCompareReport(w, FromComparison(c), f)
}

// metricNames gives the display names of the historic four metrics at
// the depths, as the metric registry labels them; depth is for the rest.
type metricNames struct {
	recall, precision, ndcg, rr string
	depth                       gate.Depth
}

func names(d gate.Depth) metricNames {
	label := func(key string) string {
		m, err := gate.LookupMetric(key)
		if err != nil {
			panic(err)
		}
		return m.Label(d)
	}
	return metricNames{recall: label(gate.MetricRecall), precision: label(gate.MetricPrecision), ndcg: label(gate.MetricNDCG), rr: label(gate.MetricRR), depth: d}
}

// f3 formats a score with three decimals.
// f3 formats a value with three decimals; a value that rounds to zero is
// 0.000, never -0.000.
func f3(v float64) string {
	if s := fmt.Sprintf("%.3f", v); s != "-0.000" {
		return s
	}
	return "0.000"
}

// signed formats a delta with an explicit sign; an exact zero is ±0.000.
func signed(v float64) string {
	if v > -0.0005 && v < 0.0005 {
		if v == 0 {
			return "±0.000"
		}
		if v < 0 {
			return "-0.000"
		}
		return "+0.000"
	}
	return fmt.Sprintf("%+.3f", v)
}

// signedInt formats a count delta with an explicit sign.
func signedInt(v int) string {
	if v == 0 {
		return "±0"
	}
	return fmt.Sprintf("%+d", v)
}

var plural = gate.Plural

// queryCount says "30 queries (29 answerable, 1 unanswerable)".
func queryCount(s *gate.Set) string {
	n, a := len(s.Queries), s.Answerable()
	out := fmt.Sprintf("%d %s", n, plural(n, "query", "queries"))
	if a != n {
		out += fmt.Sprintf(" (%d answerable, %d unanswerable)", a, n-a)
	}
	return out
}

// reasonKind is what the i-th reason is. Reports written before reasons
// carried kinds get the verdict's word.
func (r *CompareReport) reasonKind(i int) string {
	if i < len(r.ReasonKinds) && r.ReasonKinds[i] != "" {
		return r.ReasonKinds[i]
	}
	if r.Verdict == string(gate.Inconclusive) {
		return gate.ReasonInconclusive
	}
	return gate.ReasonFail
}

// verdictTitle is the verdict as a headline says it; an inconclusive run
// says that it did not fail.
func verdictTitle(v string) string {
	if v == string(gate.Inconclusive) {
		return "inconclusive, not failed"
	}
	return v
}

// movement says which queries entered and left a group whose size is
// compared across sides: "+1 new: q26; -1 recovered: q21", or "" when
// none moved. ids go through esc for the output format.
func movement(base, head []string, esc func(string) string) string {
	in := map[string]bool{}
	for _, id := range base {
		in[id] = true
	}
	out := map[string]bool{}
	for _, id := range head {
		out[id] = true
	}
	var added, left []string
	for _, id := range head {
		if !in[id] {
			added = append(added, esc(id))
		}
	}
	for _, id := range base {
		if !out[id] {
			left = append(left, esc(id))
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, fmt.Sprintf("+%d new: %s", len(added), strings.Join(added, ", ")))
	}
	if len(left) > 0 {
		parts = append(parts, fmt.Sprintf("-%d recovered: %s", len(left), strings.Join(left, ", ")))
	}
	return strings.Join(parts, "; ")
}

// PublishResult is the report as a CI's outputs, summary, annotations,
// comment and issue need it: md is the Markdown report, reportOut the JSON
// report's path for later steps, setPath the set as annotations name it.
func (rep *CompareReport) PublishResult(md, reportOut, setPath string) publish.Result {
	if rep.Error != nil {
		return publish.Result{Verdict: VerdictError, Markdown: md, Report: reportOut, SetPath: setPath, Regressed: []string{}, Improved: []string{}}
	}
	res := publish.Result{
		Verdict:    rep.Verdict,
		RecallBase: rep.Summary.Base.RecallAtN, RecallHead: rep.Summary.Head.RecallAtN, RecallDelta: rep.Summary.Delta.RecallAtN,
		Regressed: rep.Regressed, Improved: rep.Improved, Candidates: rep.Depth.Candidates,
		Markdown: md, Report: reportOut, SetPath: setPath,
	}
	byID := map[string]CompareQuery{}
	for _, q := range rep.Queries {
		byID[q.ID] = q
	}
	for _, id := range rep.Regressed {
		q := byID[id]
		res.Flagged = append(res.Flagged, publish.Regression{ID: id, Line: q.Line, Base: q.Base.RecallAtN, Head: q.Head.RecallAtN, Lost: q.Lost})
	}
	return res
}

// WriteCompareReport renders an already built report model: an error
// report (ErrorReports) when the run could not finish, else the
// comparison (Comparisons).
func WriteCompareReport(w io.Writer, r *CompareReport, f Format) error {
	if r.Error != nil {
		return ErrorReports.Write(w, r, f)
	}
	return Comparisons.Write(w, r, f)
}

// WriteTo writes what render makes to path by atomicfile's rules (a
// regular file replaced atomically, so a reader never sees half a report;
// a device or FIFO written straight; "-", /dev/stdout and /dev/stderr the
// streams s gives), or to s.Stdout when path is "".
func WriteTo(s atomicfile.Streams, path string, render func(io.Writer) error) error {
	if path == "" {
		return render(s.Stdout)
	}
	return s.Write(path, 0o644, render)
}

// WriteComparison writes the report in format f to out (or s.Stdout), and
// its JSON to jsonOut when given, each by WriteTo's rules.
func WriteComparison(s atomicfile.Streams, r *CompareReport, f Format, out, jsonOut string) error {
	switch {
	case jsonOut != "" && jsonOut != "-":
		r.ReportFile = jsonOut
	case f == JSON && out != "" && out != "-":
		r.ReportFile = out
	}
	if jsonOut != "" {
		if err := WriteTo(s, jsonOut, func(w io.Writer) error { return WriteCompareReport(w, r, JSON) }); err != nil {
			return err
		}
	}
	return WriteTo(s, out, func(w io.Writer) error { return WriteCompareReport(w, r, f) })
}

// Render is the report in format f as a string.
func Render(r *CompareReport, f Format) (string, error) {
	var b strings.Builder
	err := WriteCompareReport(&b, r, f)
	return b.String(), err
}

// ReadCompareReportFile reads a JSON report from a file (see ReadCompareReport).
// A path that is not a regular file (a FIFO, a device, a file under /proc)
// is refused before it is read.
func ReadCompareReportFile(path string) (*CompareReport, error) {
	if _, err := gate.CheckInputFile(path); err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("open report: %w", err)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("open report: %w", err)}
	}
	defer f.Close()
	return ReadCompareReport(f, path)
}

// emptyAnswerLines say, per side, which queries came back with no hits at
// all where the other side had hits: an outage or a stricter match (what
// is known, and no more), told apart from retrieval misses. Ids pass through esc.
func emptyAnswerLines(r *CompareReport, esc func(string) string) []string {
	var out []string
	for _, s := range []struct {
		side, other string
		ids         []string
	}{{"base", "head", r.EmptyAnswers.Base}, {"head", "base", r.EmptyAnswers.Head}} {
		if len(s.ids) == 0 {
			continue
		}
		ids := mapIDs(s.ids, esc)
		out = append(out, fmt.Sprintf("the %s returned no hits at all for %d %s where the %s had hits (an outage or a stricter match: check the retriever's errors, and whether it now requires every term): %s",
			s.side, len(s.ids), plural(len(s.ids), "query", "queries"), s.other, gate.JoinFirst(ids, 10)))
	}
	return out
}

// neverRetrievedLine is the warning for gold documents neither side
// returned for any query, with the corpus unknown; id writes each
// document's id for the format. "" for none.
func neverRetrievedLine(docs []string, id func(string) string) string {
	if len(docs) == 0 {
		return ""
	}
	return fmt.Sprintf("never retrieved: %d gold %s that neither side returned for any query, at any depth: %s — is it indexed? set corpus to check (a warning: the verdict does not change)",
		len(docs), plural(len(docs), "document", "documents"), gate.JoinFirst(mapIDs(docs, id), 20))
}
