package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/recallgate/recallgate/gate"
)

// contextRowsMost is how many queries a report's context table lists.
const contextRowsMost = 50

// contextSource is the line every report gives a side's final contexts:
// "context: the pipeline's own".
func contextSource(c *ContextSummaryInfo) string {
	if c == nil {
		return "context: none (the run carries no passage text and no context)"
	}
	return "context: " + c.Source
}

// coverageOf is a side's mean coverage, or n/a.
func coverageOf(c *ContextSummaryInfo) string {
	if c == nil {
		return NA
	}
	return c.EvidenceCoverage.String()
}

// contextDelta is head − base of two coverages, n/a unless both apply.
func coverageDelta(b, h Coverage) string {
	if !b.Applies || !h.Applies {
		return NA
	}
	return signed(h.Value - b.Value)
}

func sideCoverage(c *ContextSummaryInfo) Coverage {
	if c == nil {
		return Coverage{}
	}
	return c.EvidenceCoverage
}

// contextSummaryRows are the final-context means, base and head, for the
// text and Markdown tables: nil when neither side had a final context.
func contextSummaryRows(b, h *ContextSummaryInfo) [][4]string {
	if b == nil && h == nil {
		return nil
	}
	val := func(c *ContextSummaryInfo, f func(*ContextSummaryInfo) float64, format string) string {
		if c == nil {
			return "—"
		}
		return fmt.Sprintf(format, f(c))
	}
	delta := func(f func(*ContextSummaryInfo) float64, format string) string {
		if b == nil || h == nil {
			return "—"
		}
		d := f(h) - f(b)
		if format == "%.3f" {
			return signed(d)
		}
		return fmt.Sprintf("%+.1f", d)
	}
	recall := func(c *ContextSummaryInfo) float64 { return c.ContextRecall }
	passages := func(c *ContextSummaryInfo) float64 { return c.Passages }
	tokens := func(c *ContextSummaryInfo) float64 { return c.Tokens }
	facts := func(c *ContextSummaryInfo) string {
		if c == nil || c.EvidenceQueries == 0 {
			return NA
		}
		return fmt.Sprintf("%d/%d", c.FactsFound, c.FactsTotal)
	}
	return [][4]string{
		{"context recall (documents)", val(b, recall, "%.3f"), val(h, recall, "%.3f"), delta(recall, "%.3f")},
		{"evidence coverage (facts)", coverageOf(b), coverageOf(h), coverageDelta(sideCoverage(b), sideCoverage(h))},
		{"facts found", facts(b), facts(h), ""},
		{"passages (mean)", val(b, passages, "%.1f"), val(h, passages, "%.1f"), delta(passages, "%.1f")},
		{"tokens (mean)", val(b, tokens, "%.1f"), val(h, tokens, "%.1f"), delta(tokens, "%.1f")},
	}
}

// queryCoverage is a query's coverage on one side: "1/2", or n/a.
func queryCoverage(c *ContextInfo) string {
	switch {
	case c == nil:
		return "—"
	case !c.EvidenceCoverage.Applies:
		return NA
	}
	return fmt.Sprintf("%d/%d", c.FactsFound, c.FactsTotal)
}

func queryRecall(c *ContextInfo) string {
	if c == nil {
		return "—"
	}
	return f3(c.ContextRecall)
}

func querySize(c *ContextInfo) string {
	if c == nil {
		return "—"
	}
	return fmt.Sprintf("%d/%d", c.Passages, c.Tokens)
}

// hasContext reports whether a compare report has a final context on a side.
func (r *CompareReport) hasContext() bool {
	return r.Summary.Base.Context != nil || r.Summary.Head.Context != nil
}

// withContext are the queries with a final context on either side.
func (r *CompareReport) withContext() []*CompareQuery {
	var out []*CompareQuery
	for i := range r.Queries {
		if q := &r.Queries[i]; q.Base.Context != nil || q.Head.Context != nil {
			out = append(out, q)
		}
	}
	return out
}

// writeContextText is the text report's final-context section.
func writeContextText(b io.Writer, r *CompareReport) {
	if !r.hasContext() {
		return
	}
	fmt.Fprintf(b, "\nfinal context (apart from the document scores)\n  base %s\n  head %s\n", terminal(contextSource(r.Summary.Base.Context)), terminal(contextSource(r.Summary.Head.Context)))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\tbase\thead\tdelta\t\n")
	for _, row := range contextSummaryRows(r.Summary.Base.Context, r.Summary.Head.Context) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", row[0], row[1], row[2], row[3])
	}
	tw.Flush()
	for _, q := range r.Queries {
		for _, f := range q.FactsLost {
			fmt.Fprintf(b, "  %s  fact lost: %q (base: %s; head: %s)\n", terminal(q.ID), terminal(clip(f.Fact, 100)), terminal(f.Passage), terminal(f.Instead))
		}
		for _, f := range q.FactsGained {
			fmt.Fprintf(b, "  %s  fact gained: %q (head: %s; base: %s)\n", terminal(q.ID), terminal(clip(f.Fact, 100)), terminal(f.Passage), terminal(f.Instead))
		}
	}
	// Only the queries whose context changed: the rest are counted.
	all := r.withContext()
	var changed []*CompareQuery
	for _, q := range all {
		if queryRecall(q.Base.Context) != queryRecall(q.Head.Context) || queryCoverage(q.Base.Context) != queryCoverage(q.Head.Context) ||
			querySize(q.Base.Context) != querySize(q.Head.Context) {
			changed = append(changed, q)
		}
	}
	same := len(all) - len(changed)
	if len(changed) == 0 {
		fmt.Fprintf(b, "  per query: no query's context changed (%d %s)\n", same, plural(same, "query", "queries"))
		return
	}
	fmt.Fprintf(b, "  per query whose context changed (context recall, evidence, passages/tokens; base → head); %d unchanged:\n", same)
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for i, q := range changed {
		if i == contextRowsMost {
			fmt.Fprintf(tw, "    …and %d more\n", len(changed)-contextRowsMost)
			break
		}
		fmt.Fprintf(tw, "    %s\t%s → %s\t%s → %s\t%s → %s\n", terminal(q.ID), queryRecall(q.Base.Context), queryRecall(q.Head.Context),
			queryCoverage(q.Base.Context), queryCoverage(q.Head.Context), querySize(q.Base.Context), querySize(q.Head.Context))
	}
	tw.Flush()
}

// writeContextMarkdown is the comment's one "Context" block: where each
// side's final context came from, the means, the facts lost and gained
// per query with their passage, and each query's context base → head.
func writeContextMarkdown(b io.Writer, r *CompareReport, ids map[string]bool) {
	if !r.hasContext() {
		return
	}
	lost, gained := 0, 0
	for _, q := range r.Queries {
		lost += len(q.FactsLost)
		gained += len(q.FactsGained)
	}
	fmt.Fprintf(b, "\n<details><summary>Context: what the model read — %d %s lost, %d gained; evidence coverage %s → %s</summary>\n\n",
		lost, plural(lost, "fact", "facts"), gained, coverageOf(r.Summary.Base.Context), coverageOf(r.Summary.Head.Context))
	fmt.Fprintf(b, "The final context, scored apart from the document scores. Base: %s. Head: %s.\n\n",
		EscapeMarkdown(contextSource(r.Summary.Base.Context)), EscapeMarkdown(contextSource(r.Summary.Head.Context)))
	io.WriteString(b, "| final context | base | head | Δ |\n|:--|--:|--:|--:|\n")
	for _, row := range contextSummaryRows(r.Summary.Base.Context, r.Summary.Head.Context) {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], row[3])
	}
	if lost+gained > 0 {
		io.WriteString(b, "\n| query | fact | | held by | in its place on the other side |\n|:--|:--|:--|:--|:--|\n")
		for _, q := range r.Queries {
			for _, f := range q.FactsLost {
				fmt.Fprintf(b, "| %s | %s | lost | %s (base) | %s |\n", mdCell(q.ID), EscapeMarkdown(clip(f.Fact, 100)), mdCellPassage(f.Passage, f.Doc), mdProse(f.Instead, ids))
			}
			for _, f := range q.FactsGained {
				fmt.Fprintf(b, "| %s | %s | gained | %s (head) | %s |\n", mdCell(q.ID), EscapeMarkdown(clip(f.Fact, 100)), mdCellPassage(f.Passage, f.Doc), mdProse(f.Instead, ids))
			}
		}
	}
	io.WriteString(b, "\n| query | context recall | evidence | passages / tokens |\n|:--|--:|--:|--:|\n")
	for i, q := range r.withContext() {
		if i == contextRowsMost {
			fmt.Fprintf(b, "\n…and %d more queries (all in the JSON report).\n", len(r.withContext())-contextRowsMost)
			break
		}
		fmt.Fprintf(b, "| %s | %s → %s | %s → %s | %s → %s |\n", mdCell(q.ID), queryRecall(q.Base.Context), queryRecall(q.Head.Context),
			queryCoverage(q.Base.Context), queryCoverage(q.Head.Context), querySize(q.Base.Context), querySize(q.Head.Context))
	}
	io.WriteString(b, "\n</details>\n")
}

// scoreContextRows are a score report's final-context lines: the source
// and the means; nil without a final context.
func scoreContextLines(c *gate.Scorecard) (source string, rows [][2]string) {
	s := contextSummaryInfo(c.Summary.Context)
	if s == nil {
		return "", nil
	}
	facts := NA
	if s.EvidenceQueries > 0 {
		facts = fmt.Sprintf("%d/%d", s.FactsFound, s.FactsTotal)
	}
	return contextSource(s), [][2]string{
		{"context recall (documents)", f3(s.ContextRecall)},
		{"evidence coverage (facts)", s.EvidenceCoverage.String()},
		{"facts found", facts},
		{"passages (mean)", fmt.Sprintf("%.1f", s.Passages)},
		{"tokens (mean)", fmt.Sprintf("%.1f", s.Tokens)},
	}
}

// scoreQueryContext is one query's final-context cells for a score table.
func scoreQueryContext(q gate.QueryScore) (recall, coverage, size string) {
	c := contextInfo(q.Context)
	return queryRecall(c), queryCoverage(c), querySize(c)
}

// contextLine is the final context on one line (the HTML page's): where
// each side's came from and the means; "" without one.
func contextLine(r *CompareReport) string {
	if !r.hasContext() {
		return ""
	}
	lost, gained := 0, 0
	for _, q := range r.Queries {
		lost += len(q.FactsLost)
		gained += len(q.FactsGained)
	}
	rows := contextSummaryRows(r.Summary.Base.Context, r.Summary.Head.Context)
	return fmt.Sprintf("Final context, apart from the document scores — base %s; head %s; context recall %s → %s; evidence coverage %s → %s; facts lost %d, gained %d",
		contextSource(r.Summary.Base.Context), contextSource(r.Summary.Head.Context), rows[0][1], rows[0][2], rows[1][1], rows[1][2], lost, gained)
}
