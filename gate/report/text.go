package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/visible"
)

// terminal is user text for the terminal: visible.Terminal.
func terminal(s string) string { return visible.Terminal(s) }

// termID is an id (a query's, a document's) for the terminal: terminal's
// marks, and white space at either end and look-alikes marked too
// (gate.VisibleID), so "d01 " never reads as d01.
func termID(id string) string { return visible.Terminal(gate.VisibleID(id)) }

// termIDs joins ids for the terminal, each written by termID.
func termIDs(ids []string) string { return strings.Join(mapIDs(ids, termID), ", ") }

func scoreText(w io.Writer, c *gate.Scorecard) error {
	b := bufio.NewWriter(w)
	n := names(c.Depth)
	fmt.Fprintf(b, "recallgate score: %s, %s\n", c.Set.Path, queryCount(c.Set))
	fmt.Fprintf(b, "depths: candidates N=%d (recall), context k=%d (precision, nDCG)%s; unit: %s\n\n", c.Depth.Candidates, c.Depth.Context, depthNote(c.DepthDefaults), c.Set.Unit())
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	s := c.Summary
	fmt.Fprintf(tw, "metric\tmean\t\n")
	for _, m := range gate.Metrics() {
		fmt.Fprintf(tw, "%s\t%s\t\n", m.Label(c.Depth), f3(m.Mean(&s)))
	}
	fmt.Fprintf(tw, "zero recall\t%d\t\n", len(s.ZeroRecall))
	fmt.Fprintf(tw, "%s < 0.5\t%d\t\n", n.recall, len(s.BelowHalf))
	tw.Flush()
	if t := s.TrecEval; t != nil {
		fmt.Fprintf(b, "as trec_eval averages (%d queries, those judged only grade 0 as 0): %s\n", t.Queries, trecMeans(c.Depth, t))
	}
	if len(s.ZeroRecall) > 0 {
		fmt.Fprintf(b, "\nzero recall (%d)\n", len(s.ZeroRecall))
		for _, id := range s.ZeroRecall {
			q := c.Set.Query(id)
			fmt.Fprintf(b, "  %s  %q  gold: %s\n", termID(id), terminal(q.Text), termIDs(q.RelevantDocs()))
		}
	}
	source, crows := scoreContextLines(c)
	if crows != nil {
		fmt.Fprintf(b, "\nfinal context (apart from the document scores): %s\n", terminal(source))
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, row := range crows {
			fmt.Fprintf(tw, "%s\t%s\t\n", row[0], row[1])
		}
		tw.Flush()
	}
	writeUnanswerableText(b, c.Unanswerable)
	fmt.Fprintf(b, "\nper query\n")
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	if crows != nil {
		fmt.Fprintf(tw, "  id\t%s\tfirst hit\tfound\tcontext recall\tevidence\tpassages/tokens\n", strings.Join(queryColumns(c.Depth, "RR"), "\t"))
	} else {
		fmt.Fprintf(tw, "  id\t%s\tfirst hit\tfound\n", strings.Join(queryColumns(c.Depth, "RR"), "\t"))
	}
	for _, q := range c.Queries {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d/%d", termID(q.ID), strings.Join(queryValues(&q), "\t"), rank(q.FirstHitRank), q.Found, q.Relevant)
		if crows != nil {
			cr, cc, cs := scoreQueryContext(q)
			fmt.Fprintf(tw, "\t%s\t%s\t%s", cr, cc, cs)
		}
		fmt.Fprintf(tw, "\n")
	}
	tw.Flush()
	writeWarningsText(b, c.Warnings())
	return b.Flush()
}

func rank(r int) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprint(r)
}

func writeUnanswerableText(b io.Writer, us []gate.UnanswerableResult) {
	if len(us) == 0 {
		return
	}
	fmt.Fprintf(b, "\nunanswerable (%d, kept out of the metrics)\n", len(us))
	for _, u := range us {
		fmt.Fprintf(b, "  %s  returned %d %s\n", termID(u.ID), u.Returned, plural(u.Returned, "document", "documents"))
	}
}

func writeWarningsText(b io.Writer, ws []string) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintf(b, "\nwarnings\n")
	for _, w := range ws {
		fmt.Fprintf(b, "  %s\n", terminal(w))
	}
}

// headline is the one-line verdict shared by the text, Markdown and HTML
// reports; esc escapes the untrusted text (policy values, waivers) for
// the format.
func headline(r *CompareReport, esc func(string) string) string {
	out := metricsHeadline(r)
	if w := weakPassHeadline(r); w != "" {
		out += " · " + w
	}
	if j := judgeHeadline(r, esc); j != "" {
		out += " · " + j
	}
	if p := policyHeadline(r, esc); p != "" {
		out += " · " + p
	}
	if s := setHeadline(r); s != "" {
		out += " · " + s
	}
	if b := baselineHeadline(r, esc); b != "" {
		out += " · " + b
	}
	return out
}

// policyHeadline says what a change does to the gate's policy, and which
// policy judged when it was not the base commit's: "this PR changes the
// gate: max_recall_drop 0.02 → 1.00: takes effect after merge · 1
// regression waived by this PR: q17 — reason, expires 2027-01-10". ""
// when the base commit's policy judged and the change leaves it alone.
func policyHeadline(r *CompareReport, esc func(string) string) string {
	p := r.Policy
	if p == nil {
		return ""
	}
	switch {
	case p.Source == gate.PolicyGivenConfig && p.Commit != "":
		return "policy: this change's config — the base commit has no recallgate.toml"
	case p.Source == gate.PolicyGivenConfig:
		return "policy: the given config (no base commit)"
	}
	var parts []string
	if p.MovedFrom != "" {
		parts = append(parts, "this PR moves/links the gate's config: judged by the base commit's "+esc(p.MovedFrom))
	}
	if len(p.Changes) > 0 {
		cs := make([]string, len(p.Changes))
		for i, c := range p.Changes {
			cs[i] = esc(c.Key + " " + c.Base + " → " + c.Head)
		}
		parts = append(parts, "this PR changes the gate: "+strings.Join(cs, "; ")+": takes effect after merge")
	}
	waived := map[string]bool{}
	for _, w := range r.Waived {
		waived[w.ID] = true
	}
	var used, unused []string
	for _, w := range p.WaiversAdded {
		s := esc(w.ID + " — " + w.Reason + ", expires " + w.Expires)
		if waived[w.ID] {
			used = append(used, s)
		} else {
			unused = append(unused, s)
		}
	}
	if len(used) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s waived by this PR: %s", len(used), plural(len(used), "regression", "regressions"), strings.Join(used, "; ")))
	}
	if len(unused) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s added by this PR, unused: %s", len(unused), plural(len(unused), "waiver", "waivers"), strings.Join(unused, "; ")))
	}
	return strings.Join(parts, " · ")
}

// metricsHeadline is the headline's figures.
func metricsHeadline(r *CompareReport) string {
	n := names(r.depth())
	out := fmt.Sprintf("mean %s %s → %s (%s)%s, %d regressed, %d improved", n.recall,
		f3(r.Summary.Base.RecallAtN), f3(r.Summary.Head.RecallAtN), signed(r.Summary.Delta.RecallAtN), keptOutHeadline(r), len(r.Regressed), len(r.Improved))
	// A context-depth rule that failed the whole set is news the recall
	// figures do not carry: name its mean too.
	for _, m := range []struct {
		key, name  string
		base, head float64
	}{{gate.MetricNDCG, n.ndcg, r.Summary.Base.NDCGAtK, r.Summary.Head.NDCGAtK}, {gate.MetricPrecision, n.precision, r.Summary.Base.PrecisionAtK, r.Summary.Head.PrecisionAtK}} {
		for _, ru := range r.Rules {
			if ru.Metric == m.key && ru.Segment == "" && ru.Outcome == gate.RuleFail && !strings.HasPrefix(ru.Name, "min_") {
				out += fmt.Sprintf("; %s %s → %s", m.name, f3(m.base), f3(m.head))
				break
			}
		}
	}
	// So is a final-context rule that failed.
	for _, ru := range r.Rules {
		if ru.Segment != "" || ru.Outcome != gate.RuleFail {
			continue
		}
		switch ru.Metric {
		case gate.MetricFactsLost:
			out += fmt.Sprintf("; %d %s lost from the final context", int(ru.Value), plural(int(ru.Value), "fact", "facts"))
		case gate.MetricMissingGold:
			out += fmt.Sprintf("; %d gold %s left the corpus", int(ru.Value), plural(int(ru.Value), "document", "documents"))
		case gate.MetricContextRecall:
			out += fmt.Sprintf("; context recall %s → %s", f3(ru.Base), f3(ru.Head))
		case gate.MetricCoverage:
			out += fmt.Sprintf("; evidence coverage %s → %s", f3(ru.Base), f3(ru.Head))
		}
	}
	return out
}

func compareText(w io.Writer, r *CompareReport) error {
	b := bufio.NewWriter(w)
	n := names(r.depth())
	byID := r.byID()
	writeHeadText(b, r)
	writeTableText(b, r)
	writeContextText(b, r)

	for _, l := range refusalLines(r, terminal, termID) {
		fmt.Fprintf(b, "%s\n", l)
	}

	writeFlippedText(b, r, n, byID)
	writeApartText(b, r, n, byID)
	if len(r.Health) > 0 {
		fmt.Fprintf(b, "\neval-set health\n")
		for _, h := range r.Health {
			fmt.Fprintf(b, "  %s\n", terminal(h))
		}
	}
	if l := fingerprintsLine(r); l != "" {
		fmt.Fprintf(b, "\n%s\n", l)
	}
	writeWarningsText(b, nonEmpty(append(slices.Clone(r.Warnings), neverRetrievedLine(r.NeverRetrieved, termID))...))
	return b.Flush()
}

// writeHeadText writes the verdict, its reasons and the lines that say
// what was compared, up to the data-quality note and a blank line.
func writeHeadText(b *bufio.Writer, r *CompareReport) {
	title := strings.ToUpper(r.Verdict)
	if r.Verdict == string(gate.Inconclusive) {
		title += " (not failed)"
	}
	fmt.Fprintf(b, "%s  %s\n", title, headline(r, terminal))
	for i, reason := range r.Reasons {
		fmt.Fprintf(b, "  %s: %s\n", terminal(r.reasonKind(i)), terminal(reason))
	}
	for _, l := range emptyAnswerLines(r, termID) {
		fmt.Fprintf(b, "  empty answer: %s\n", l)
	}
	fmt.Fprintf(b, "set %s: %s; candidates N=%d, context k=%d%s; unit: %s%s\n", terminal(r.Set.Path), r.Set.count(), r.Depth.Candidates, r.Depth.Context, r.Depth.Note(), r.Set.unit(), condensedClause(r.Unjudged.Mode))
	fmt.Fprintf(b, "gate: %s\n", rulesSummary(r))
	if l := distanceLine(r, terminal); l != "" {
		fmt.Fprintf(b, "%s\n", l)
	}
	for _, note := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", terminal(note))
	}
	for _, l := range setLines(r, termID) {
		fmt.Fprintf(b, "proposal: %s\n", l)
	}
	for _, l := range baselineLines(r, terminal, termID) {
		fmt.Fprintf(b, "drift: %s\n", strings.ReplaceAll(l, "\n", "\n  "))
	}
	// Gold the corpus lacks leads: it changes what every number means.
	writeDataQualityText(b, r)
	b.WriteString("\n")

}

// writeTableText writes the metric table and the statistics lines below it.
func writeTableText(b *bufio.Writer, r *CompareReport) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\tbase\thead\tdelta\t\n")
	// The queries a count row names follow its last cell, out of the
	// columns: a long list does not widen the delta column.
	for _, row := range summaryRows(r, terminal) {
		delta, ids, _ := strings.Cut(row[3], " (")
		if ids != "" {
			ids = " (" + ids
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row[0], row[1], row[2], delta, ids)
	}
	tw.Flush()
	fmt.Fprintf(b, "\n%s\n", terminal(statsLine(r)))
	if l := detectLine(r); l != "" {
		fmt.Fprintf(b, "%s\n", l)
	}
	if l := boundLine(r); l != "" {
		fmt.Fprintf(b, "%s\n", l)
	}
	if l := holmLine(r); l != "" {
		fmt.Fprintf(b, "%s\n", terminal(l))
	}
	if l := latencyLine(r.Latency); l != "" {
		fmt.Fprintf(b, "%s\n", l)
	}
	if l := rangeLine(r.Unjudged, r.Depth.Context); l != "" {
		fmt.Fprintf(b, "%s\n", l)
	}
	if l := notInCorpusLine(r.NotInCorpus, termID); l != "" {
		fmt.Fprintf(b, "%s\n", l)
	}
	if l := unjudgedLine(r.Unjudged, r.Depth.Context, r.ReportFile); l != "" {
		fmt.Fprintf(b, "%s\n", l)
		shown, more := debtShown(r.Unjudged)
		for _, q := range shown {
			fmt.Fprintf(b, "  %s  unjudged in head context: %s\n", termID(q.ID), termIDs(q.Docs))
		}
		if more != "" {
			fmt.Fprintf(b, "  %s\n", more)
		}
	}
}

// writeFlippedText writes the regressed and improved queries with their
// moves.
func writeFlippedText(b *bufio.Writer, r *CompareReport, n metricNames, byID map[string]*CompareQuery) {
	for _, sec := range []struct {
		title string
		ids   []string
	}{{"regressed", r.Regressed}, {"improved", r.Improved}} {
		fmt.Fprintf(b, "\n%s (%d)\n", sec.title, len(sec.ids))
		for _, id := range sec.ids {
			p := byID[id]
			fmt.Fprintf(b, "  %s  %s %s → %s", termID(id), n.recall, f3(p.Base.RecallAtN), f3(p.Head.RecallAtN))
			if len(p.Lost) > 0 {
				fmt.Fprintf(b, "  lost: %s", termIDs(p.Lost))
			}
			if len(p.Gained) > 0 {
				fmt.Fprintf(b, "  gained: %s", termIDs(p.Gained))
			}
			fmt.Fprintf(b, "\n      %q\n", terminal(clip(p.Query, 100)))
			for _, m := range p.Moves {
				fmt.Fprintf(b, "      %s: %s rank %s → %s%s", causeText(m.Cause), termID(m.Doc), rankText(m.BaseRank), rankText(m.HeadRank), moveTail(m, terminal, termID, func(l, _ string) string { return terminal(l) }))
				b.WriteString("\n")
			}
		}
	}
}

// writeApartText writes the queries set apart (waived, synthetic,
// unstable, ranking only, unanswerable) and the segments table.
func writeApartText(b *bufio.Writer, r *CompareReport, n metricNames, byID map[string]*CompareQuery) {
	for _, w := range r.Waived {
		fmt.Fprintf(b, "\nwaived: %s until %s: %s", terminal(w.ID), terminal(w.Expires), terminal(w.Reason))
	}
	if len(r.Waived) > 0 {
		b.WriteString("\n")
	}
	if len(r.Synthetic.Queries) > 0 {
		fmt.Fprintf(b, "\nsynthetic (%d, kept out of the headline): %s\n", len(r.Synthetic.Queries), termIDs(r.Synthetic.Queries))
	}
	if len(r.Unstable) > 0 {
		fmt.Fprintf(b, "\nunstable between repeats of the base (%d, not counted): %s\n", len(r.Unstable), termIDs(r.Unstable))
	}
	if len(r.HeadUnstable) > 0 {
		fmt.Fprintf(b, "\nhead unstable between repeats (%d, judged at the worst repeat; the gate cannot pass): %s\n", len(r.HeadUnstable), termIDs(r.HeadUnstable))
	}
	if len(r.RankingOnly) > 0 {
		fmt.Fprintf(b, "\nranking only (%d): same documents found, order changed\n", len(r.RankingOnly))
		for _, id := range r.RankingOnly {
			p := byID[id]
			fmt.Fprintf(b, "  %s  %s %s → %s  %s %s → %s  first hit %s → %s\n", termID(id),
				n.precision, f3(p.Base.PrecisionAtK), f3(p.Head.PrecisionAtK), n.ndcg, f3(p.Base.NDCGAtK), f3(p.Head.NDCGAtK),
				rankPtr(p.Base.FirstHitRank), rankPtr(p.Head.FirstHitRank))
		}
	}
	if len(r.Unanswerable) > 0 {
		fmt.Fprintf(b, "\nunanswerable (%d, kept out of the metrics)\n", len(r.Unanswerable))
		for _, u := range r.Unanswerable {
			fmt.Fprintf(b, "  %s  returned %d → %d documents\n", termID(u.ID), u.Base.Returned, u.Head.Returned)
		}
	}
	if len(r.Segments) > 0 {
		fmt.Fprintf(b, "\nsegments (%s)\n", n.recall)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  segment\tqueries\tbase\thead\tregressed\timproved\n")
		for _, s := range r.Segments {
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%d\t%d\n", terminal(s.Label()), s.Queries, f3(s.BaseRecall), f3(s.HeadRecall), s.Regressed, s.Improved)
		}
		tw.Flush()
	}
}

func rankPtr(r *int) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprint(*r)
}

// summaryRows are the rows of the base/head/delta table.
// summaryRows are the metric table's rows: metric, base, head, delta. The
// two count rows say which queries entered and left the group, so counts
// that net out still show both movements; esc escapes those ids.
func summaryRows(r *CompareReport, esc func(string) string) [][4]string {
	n := names(r.depth())
	sb, sh, d := r.Summary.Base, r.Summary.Head, r.Summary.Delta
	count := func(delta int, base, head []string) string {
		s := signedInt(delta)
		if m := movement(base, head, esc); m != "" {
			s += " (" + m + ")"
		}
		return s
	}
	var rows [][4]string
	for _, m := range gate.Metrics() {
		rows = append(rows, [4]string{m.Label(r.depth()), f3(metricValue(&sb, m)), f3(metricValue(&sh, m)), signed(metricValue(&d, m))})
	}
	return append(rows, [][4]string{
		{"zero recall", fmt.Sprint(len(sb.ZeroRecall)), fmt.Sprint(len(sh.ZeroRecall)), count(d.ZeroRecall, sb.ZeroRecall, sh.ZeroRecall)},
		{n.recall + " < 0.5", fmt.Sprint(sb.BelowHalf), fmt.Sprint(sh.BelowHalf), count(d.BelowHalf, sb.BelowHalfIDs, sh.BelowHalfIDs)},
	}...)
}

// queryColumns are the document metrics' per-query column titles, the
// registry's labels (rr titled rr).
func queryColumns(d gate.Depth, rr string) []string {
	var out []string
	for _, m := range gate.Metrics() {
		if m.Key == gate.MetricRR {
			out = append(out, rr)
			continue
		}
		out = append(out, m.Label(d))
	}
	return out
}

// queryValues are one query's document metrics, as queryColumns titles them.
func queryValues(q *gate.QueryScore) []string {
	var out []string
	for _, m := range gate.Metrics() {
		out = append(out, f3(m.Of(q)))
	}
	return out
}

// trecMeans are the means as trec_eval averages them: "recall@10 0.667,
// precision@2 0.333, …".
func trecMeans(d gate.Depth, t *gate.TrecMeans) string {
	var parts []string
	for _, m := range gate.Metrics() {
		parts = append(parts, m.Label(d)+" "+f3(m.TrecMean(t)))
	}
	return strings.Join(parts, ", ")
}

// rulesSummary is every rule on one line: "max_recall_drop 0.020 pass, …".
func rulesSummary(r *CompareReport) string {
	if len(r.Rules) == 0 {
		return fmt.Sprintf("max recall drop %.3f, max new zero-recall queries %d", r.Thresholds.MaxRecallDrop, r.Thresholds.MaxNewMisses)
	}
	var parts []string
	for _, ru := range r.Rules {
		name := ru.Name
		if ru.Segment != "" {
			name = terminal(ru.Segment) + " " + name
		}
		c := ru.cells()
		parts = append(parts, fmt.Sprintf("%s %s %s", name, c[3], ru.Outcome))
	}
	return strings.Join(parts, ", ")
}
