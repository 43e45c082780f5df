package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/fingerprint"
)

// mdList writes ids as code spans for a table cell, joined with ", ".
func mdList(ids []string) string { return strings.Join(mapIDs(ids, mdCell), ", ") }

// mdQuery is a query's text for a table cell, clipped to stay readable.
func mdQuery(text string) string { return EscapeMarkdown(clip(text, 80)) }

func compareMarkdown(w io.Writer, r *CompareReport) error {
	b := bufio.NewWriter(w)
	n := names(r.depth())
	byID := r.byID()
	ids := r.idSet()
	writeMarkdownHeader(b, r, ids)

	b.WriteString("| metric | base | head | Δ |\n|:--|--:|--:|--:|\n")
	for _, row := range summaryRows(r, mdCell) {
		d := row[3]
		if strings.HasPrefix(d, "-") && row[0] == n.recall {
			d = "**" + d + "**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], d)
	}

	fmt.Fprintf(b, "\n%s\n", statsLine(r))
	if l := detectLine(r); l != "" {
		fmt.Fprintf(b, "\n%s\n", l)
	}
	if l := boundLine(r); l != "" {
		fmt.Fprintf(b, "\n%s\n", l)
	}
	if l := holmLine(r); l != "" {
		fmt.Fprintf(b, "\n%s\n", EscapeMarkdown(l))
	}
	if l := rangeLine(r.Unjudged, r.Depth.Context); l != "" {
		fmt.Fprintf(b, "\n%s\n", l)
	}
	if l := notInCorpusLine(r.NotInCorpus, mdCode); l != "" {
		fmt.Fprintf(b, "\n%s\n", l)
	}
	if l := latencyLine(r.Latency); l != "" {
		fmt.Fprintf(b, "\n%s\n", l)
	}

	// docs gives each flipped query's last cell, already escaped.
	flipTable := func(title string, ids []string, docsHead string, docs func(*CompareQuery) string) {
		if len(ids) == 0 {
			return
		}
		fmt.Fprintf(b, "\n**%s (%d)**\n\n| query | text | %s | %s | %s |\n|:--|:--|--:|--:|:--|\n", title, len(ids), n.recall, n.ndcg, docsHead)
		for _, id := range ids {
			p := byID[id]
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s |\n", mdCell(id), mdQuery(p.Query),
				f3(p.Base.RecallAtN), f3(p.Head.RecallAtN), f3(p.Base.NDCGAtK), f3(p.Head.NDCGAtK), docs(p))
		}
	}
	if len(r.Regressed)+len(r.Improved) == 0 {
		fmt.Fprintf(b, "\nNo query changed %s.\n", n.recall)
	}
	flipTable("Regressed", r.Regressed, "gold docs lost (why)", func(p *CompareQuery) string {
		if len(p.Moves) == 0 {
			return mdList(p.Lost)
		}
		var out []string
		for _, m := range p.Moves {
			out = append(out, moveText(m)) // escapes its ids itself
		}
		return strings.Join(out, ", ")
	})
	flipTable("Improved", r.Improved, "gold docs gained", func(p *CompareQuery) string { return mdList(p.Gained) })
	if r.Chart {
		writeChart(b, r, byID)
	}

	if len(r.RankingOnly) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Ranking only: %d %s found the same documents in a different order</summary>\n\n", len(r.RankingOnly), plural(len(r.RankingOnly), "query", "queries"))
		fmt.Fprintf(b, "| query | text | %s | %s | first hit |\n|:--|:--|--:|--:|--:|\n", n.precision, n.ndcg)
		for _, id := range r.RankingOnly {
			p := byID[id]
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s → %s |\n", mdCell(id), mdQuery(p.Query),
				f3(p.Base.PrecisionAtK), f3(p.Head.PrecisionAtK), f3(p.Base.NDCGAtK), f3(p.Head.NDCGAtK), rankPtr(p.Base.FirstHitRank), rankPtr(p.Head.FirstHitRank))
		}
		b.WriteString("\n</details>\n")
	}
	if len(r.Waived) > 0 {
		fmt.Fprintf(b, "\n**Waived (%d)**: regressions accepted until their waiver expires\n\n| query | text | recall@%d | reason | expires |\n|:--|:--|--:|:--|:--|\n", len(r.Waived), r.Depth.Candidates)
		for _, w := range r.Waived {
			p := byID[w.ID]
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s | %s |\n", mdCell(w.ID), mdQuery(p.Query), f3(p.Base.RecallAtN), f3(p.Head.RecallAtN), EscapeMarkdown(w.Reason), EscapeMarkdown(w.Expires))
		}
	}
	if zr := r.Summary.Head.ZeroRecall; len(zr) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Zero recall on head: %d %s</summary>\n\n", len(zr), plural(len(zr), "query", "queries"))
		b.WriteString("| query | text | gold docs |\n|:--|:--|:--|\n")
		for _, id := range zr {
			p := byID[id]
			fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(id), mdQuery(p.Query), mdList(p.Gold))
		}
		b.WriteString("\n</details>\n")
	}

	writeRefusalMarkdown(b, r)
	writeUnjudgedMarkdown(b, r)
	writeRulesMarkdown(b, r)
	writeAttribution(b, r, byID)
	writeSegments(b, r)
	writeContextMarkdown(b, r, ids)
	writeApart(b, r, byID)
	if len(r.Health) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Eval-set health: %d %s</summary>\n\n", len(r.Health), plural(len(r.Health), "finding", "findings"))
		for _, h := range r.Health {
			fmt.Fprintf(b, "- %s\n", mdProse(h, ids))
		}
		b.WriteString("\n</details>\n")
	}

	writeAllQueriesMarkdown(b, r, n)
	writeWarningsMarkdown(b, ids, r.Warnings, neverRetrievedLine(r.NeverRetrieved, mdCode))
	return b.Flush()
}

// writeMarkdownHeader writes the comment's title, its reasons, notes and
// drift lines, the distance line and the data-quality block.
func writeMarkdownHeader(b *bufio.Writer, r *CompareReport, ids map[string]bool) {
	icon := map[string]string{string(gate.Fail): "❌", string(gate.Inconclusive): "⚠️"}[r.Verdict]
	if icon == "" {
		icon = "✅"
	}
	title := "recallgate"
	if l := r.Gate.Label(); l != "" {
		title += " · " + EscapeMarkdown(l)
	}
	fmt.Fprintf(b, "### %s %s: %s — %s\n\n", icon, title, verdictTitle(r.Verdict), headline(r, EscapeMarkdown))
	for i, reason := range r.Reasons {
		fmt.Fprintf(b, "- **%s:** %s\n", EscapeMarkdown(r.reasonKind(i)), mdProse(reason, ids))
	}
	empty := emptyAnswerLines(r, mdCode)
	for _, l := range empty {
		fmt.Fprintf(b, "- **empty answer:** %s\n", l)
	}
	if len(r.Reasons)+len(empty) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%s · recall at N=%d candidates, precision and nDCG at k=%d in context%s · document level%s · gate: %s\n\n",
		r.Set.count(), r.Depth.Candidates, r.Depth.Context, r.Depth.Note(), condensedClause(r.Unjudged.Mode), gateLine(r))
	for _, note := range r.Notes {
		fmt.Fprintf(b, "- **note:** %s\n", mdProse(note, ids))
	}
	proposed := setLines(r, mdCode)
	for _, l := range proposed {
		fmt.Fprintf(b, "- **proposal:** %s\n", l)
	}
	drift := baselineLines(r, EscapeMarkdown, mdCode)
	for _, l := range drift {
		fmt.Fprintf(b, "- **drift:** %s\n", strings.ReplaceAll(l, "\n", "\n  - "))
	}
	if len(r.Notes)+len(proposed)+len(drift) > 0 {
		b.WriteString("\n")
	}
	if l := distanceLine(r, mdCode); l != "" {
		head, rest, _ := strings.Cut(l, ": ")
		fmt.Fprintf(b, "**%s:** %s\n\n", head, rest)
	}
	// Gold the corpus lacks leads: it changes what every number means.
	if len(r.DataQuality) > 0 {
		writeDataQualityMarkdown(b, r)
		b.WriteString("\n")
	}
}

// writeAllQueriesMarkdown writes the closing blocks: every answerable
// query, the unanswerable ones and the inputs' fingerprints.
func writeAllQueriesMarkdown(b *bufio.Writer, r *CompareReport, n metricNames) {
	fmt.Fprintf(b, "\n<details><summary>All %d answerable queries</summary>\n\n", len(r.Queries))
	fmt.Fprintf(b, "| query | text | %s | change |\n|:--|:--|%s:--|\n", strings.Join(queryColumns(r.depth(), "MRR"), " | "), metricAligns())
	for _, p := range r.Queries {
		ch := p.Change
		if p.RankingOnly {
			ch = "ranking only"
		}
		var cells []string
		for _, m := range gate.Metrics() {
			cells = append(cells, f3(metricValue(&p.Base, m))+" → "+f3(metricValue(&p.Head, m)))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdCell(p.ID), mdQuery(p.Query), strings.Join(cells, " | "), EscapeMarkdown(ch))
	}
	b.WriteString("\n</details>\n")

	if len(r.Unanswerable) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Unanswerable: %d %s, kept out of the metrics</summary>\n\n", len(r.Unanswerable), plural(len(r.Unanswerable), "query", "queries"))
		b.WriteString("| query | text | documents returned |\n|:--|:--|--:|\n")
		for _, u := range r.Unanswerable {
			fmt.Fprintf(b, "| %s | %s | %d → %d |\n", mdCell(u.ID), mdQuery(u.Query), u.Base.Returned, u.Head.Returned)
		}
		b.WriteString("\n</details>\n")
	}
	if len(r.Fingerprints) > 0 {
		b.WriteString("\n<details><summary>Fingerprints</summary>\n\n| input | sha256 (first 12) |\n|:--|:--|\n")
		for _, k := range sortedKeys(r.Fingerprints) {
			fmt.Fprintf(b, "| %s | %s |\n", EscapeMarkdown(k), mdCell(fingerprint.Short(r.Fingerprints[k])))
		}
		b.WriteString("\n</details>\n")
	}
}

// chartBars is the most bars the delta chart shows.
const chartBars = 30

// MermaidLabel keeps text (a query id, a date) safe inside a quoted
// Mermaid label: letters, digits and - _ . / stay, everything else becomes
// _, cut to 24 characters, so no label can close its quote, start a
// directive or carry markup.
func MermaidLabel(id string) string {
	out := []rune{}
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.', r == '/':
			out = append(out, r)
		default:
			out = append(out, '_')
		}
	}
	return string(clip(string(out), 24))
}

// writeChart draws the recall@N delta of each flipped query (regressed
// first) as a Mermaid bar chart, which GitHub renders in comments.
func writeChart(b io.Writer, r *CompareReport, byID map[string]*CompareQuery) {
	ids := append(append([]string{}, r.Regressed...), r.Improved...)
	if len(ids) == 0 {
		return
	}
	more := 0
	if len(ids) > chartBars {
		more = len(ids) - chartBars
		ids = ids[:chartBars]
	}
	// Mermaid's xychart draws every bar up from the bottom of the plot, not
	// from zero (barPlot.ts: height = plot bottom - value), so a negative
	// delta on a -1..1 axis would read as a short bar going up. The chart
	// therefore plots sizes on a 0-based axis as two series, lost (red,
	// first) and gained (green), and the labels carry the direction.
	// The arrow is the verdict's (regressed ↓, improved ↑); a query that
	// flipped on its ranking with recall@N unchanged (an equal-grade swap
	// that lowered nDCG) has no bar and says "ranking".
	var labels, lost, gained []string
	ranking := false
	for i, id := range ids {
		d := byID[id].Delta.RecallAtN
		arrow, l, g := "↑", "0", "0"
		if i < len(r.Regressed) {
			arrow = "↓"
		}
		switch {
		case arrow == "↓" && d < 0:
			l = fmt.Sprintf("%.3f", -d)
		case arrow == "↑" && d > 0:
			g = fmt.Sprintf("%.3f", d)
		default:
			arrow, ranking = arrow+" ranking", true
		}
		labels = append(labels, fmt.Sprintf("%q", MermaidLabel(id)+" "+arrow))
		lost, gained = append(lost, l), append(gained, g)
	}
	title := fmt.Sprintf("recall@%d lost (red, ↓) and gained (green, ↑) per flipped query", r.Depth.Candidates)
	if ranking {
		title += fmt.Sprintf("; ranking: flipped on nDCG@%d, recall unchanged", r.Depth.Context)
	}
	if more > 0 {
		title += fmt.Sprintf(" (%d more not shown)", more)
	}
	fmt.Fprintf(b, "\n```mermaid\n---\nconfig:\n  themeVariables:\n    xyChart:\n      plotColorPalette: \"#cf222e, #1a7f37\"\n---\nxychart-beta\n    title \"%s\"\n    x-axis [%s]\n    y-axis \"recall@%d change (size)\" 0 --> 1\n    bar [%s]\n    bar [%s]\n```\n",
		title, strings.Join(labels, ", "), r.Depth.Candidates, strings.Join(lost, ", "), strings.Join(gained, ", "))
}

// statsLine is the one-line paired test result.
func statsLine(r *CompareReport) string {
	st := r.Stats
	method := "exact sign-flip test"
	if !st.Exact {
		method = fmt.Sprintf("sign-flip test, %d seeded flips", gate.MonteCarloFlips)
	}
	line := fmt.Sprintf("Paired over %d queries: mean Δ recall@%d %s, 95%% CI [%s, %s], p = %.3f (%s); %d up, %d down, %d unchanged.",
		st.N, r.Depth.Candidates, signed(st.MeanDelta), signed(st.CILow), signed(st.CIHigh), st.PValue, method, st.Wins, st.Losses, st.Ties)
	if r.NoiseFloor > 0 || len(r.Unstable) > 0 {
		line += fmt.Sprintf(" Noise floor between repeats of the base: %.3f; %d unstable %s kept out.", r.NoiseFloor, len(r.Unstable), plural(len(r.Unstable), "query", "queries"))
	}
	return line
}

// causeText is the reader's name of an attribution cause.
func causeText(c string) string {
	switch c {
	case gate.CauseRetrieval:
		return "retrieval miss"
	case gate.CauseRanking:
		return "ranking miss"
	case gate.CauseCorpus:
		return "not in corpus"
	case gate.CauseContext:
		return "context miss"
	}
	return flatten(c)
}

// moveTail is what follows a move's ranks: what took its place, and for
// a context miss the fact and the passage that held it on the base.
// esc escapes text, id a document's id, passage a passage label of doc.
func moveTail(m MoveInfo, esc, id func(string) string, passage func(label, doc string) string) string {
	switch {
	case m.Fact != "":
		return fmt.Sprintf(", fact %q held by %s on the base; reached the model instead: %s", esc(clip(m.Fact, 100)), passage(m.Passage, m.Doc), esc(m.TookItsPlace))
	case m.TookItsPlace != "":
		return ", replaced by " + id(m.TookItsPlace)
	}
	return ""
}

func rankText(r *int) string {
	if r == nil {
		return "—"
	}
	return fmt.Sprint(*r)
}

// moveText explains one lost gold doc in a table cell.
func moveText(m MoveInfo) string {
	return fmt.Sprintf("%s (%s, rank %s → %s%s)", mdCell(m.Doc), causeText(m.Cause), rankText(m.BaseRank), rankText(m.HeadRank), moveTail(m, EscapeMarkdown, mdCell, mdCellPassage))
}

// contextMissText explains the context-miss cause when a move has it.
func contextMissText(r *CompareReport) string {
	for _, q := range r.Queries {
		for _, m := range q.Moves {
			if m.Cause == gate.CauseContext {
				return fmt.Sprintf(" Context miss: inside the top %d, but the passage that reached the model does not hold a fact the base's did (dedup, budget cut, the wrong passage).", r.Depth.Context)
			}
		}
	}
	return ""
}

func writeAttribution(b io.Writer, r *CompareReport, byID map[string]*CompareQuery) {
	var rows []string
	for _, q := range r.Queries {
		for _, m := range q.Moves {
			rows = append(rows, fmt.Sprintf("| %s | %s | %d | %s → %s | %s | %s |\n", mdCell(q.ID), mdCell(m.Doc), m.Grade,
				rankText(m.BaseRank), rankText(m.HeadRank), causeText(m.Cause), strings.TrimPrefix(strings.TrimPrefix(moveTail(m, EscapeMarkdown, mdCell, mdCellPassage), ", replaced by "), ", ")))
		}
	}
	if len(rows) == 0 {
		return
	}
	corpus := "no corpus was given, so a doc missing from it shows as a retrieval miss"
	if r.CorpusKnown {
		corpus = "checked against the corpus"
	}
	fmt.Fprintf(b, "\n<details><summary>Where it loses: %d gold %s attributed</summary>\n\n", len(rows), plural(len(rows), "doc", "docs"))
	fmt.Fprintf(b, "Retrieval miss: out of the top %d entirely (retriever, chunking, ingestion, filters). Ranking miss: still a candidate, below the top %d (reranker, fusion weights). Not in corpus: a data-quality bug.%s Ranks are base → head; %s.\n\n", r.Depth.Candidates, r.Depth.Context, contextMissText(r), corpus)
	b.Write([]byte("| query | gold doc | grade | rank | cause | took its place |\n|:--|:--|--:|--:|:--|:--|\n"))
	for _, row := range rows {
		io.WriteString(b, row)
	}
	io.WriteString(b, "\n</details>\n")
}

func writeSegments(b io.Writer, r *CompareReport) {
	if len(r.Segments) == 0 {
		return
	}
	fmt.Fprintf(b, "\n<details><summary>Segments: %d</summary>\n\n| segment | queries | base recall@%d | head | Δ | regressed | improved |\n|:--|--:|--:|--:|--:|--:|--:|\n", len(r.Segments), r.Depth.Candidates)
	for _, s := range r.Segments {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %d | %d |\n", EscapeMarkdown(s.Label()), s.Queries, f3(s.BaseRecall), f3(s.HeadRecall), signed(s.HeadRecall-s.BaseRecall), s.Regressed, s.Improved)
	}
	io.WriteString(b, "\n</details>\n")
}

// writeApart lists the synthetic and base-unstable queries, which never
// count, and the head-unstable ones, which count at their worst repeat.
func writeApart(b io.Writer, r *CompareReport, byID map[string]*CompareQuery) {
	for _, sec := range []struct {
		title string
		ids   []string
	}{
		{"Synthetic queries, kept out of the headline and the verdict", r.Synthetic.Queries},
		{"Unstable queries: results changed between repeats of the base, never counted as flips", r.Unstable},
		{"Head unstable: results changed between repeats of the head, judged at the worst repeat (the gate cannot pass)", r.HeadUnstable},
	} {
		if len(sec.ids) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n<details><summary>%s: %d</summary>\n\n| query | text | recall@%d | change |\n|:--|:--|--:|:--|\n", sec.title, len(sec.ids), r.Depth.Candidates)
		for _, id := range sec.ids {
			p := byID[id]
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s |\n", mdCell(id), mdQuery(p.Query), f3(p.Base.RecallAtN), f3(p.Head.RecallAtN), EscapeMarkdown(p.Change))
		}
		io.WriteString(b, "\n</details>\n")
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeWarningsMarkdown lists the warnings, escaped with the report's ids
// as code spans (mdProse), then the lines of own, which are written
// already escaped ("" skipped).
func writeWarningsMarkdown(b io.Writer, ids map[string]bool, ws []string, own ...string) {
	own = nonEmpty(own...)
	n := len(ws) + len(own)
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "\n<details><summary>⚠️ %d %s</summary>\n\n", n, plural(n, "warning", "warnings"))
	for _, w := range ws {
		fmt.Fprintf(b, "- %s\n", mdProse(w, ids))
	}
	for _, w := range own {
		fmt.Fprintf(b, "- %s\n", w)
	}
	io.WriteString(b, "\n</details>\n")
}

func scoreMarkdown(w io.Writer, c *gate.Scorecard) error {
	b := bufio.NewWriter(w)
	n := names(c.Depth)
	s := c.Summary
	fmt.Fprintf(b, "### recallgate score — mean %s %s, %d zero-recall, %d below 0.5\n\n", n.recall, f3(s.Recall), len(s.ZeroRecall), len(s.BelowHalf))
	fmt.Fprintf(b, "%s · recall at N=%d candidates, precision and nDCG at k=%d in context%s · document level\n\n", queryCount(c.Set), c.Depth.Candidates, c.Depth.Context, depthNote(c.DepthDefaults))
	b.WriteString("| metric | mean |\n|:--|--:|\n")
	for _, m := range gate.Metrics() {
		fmt.Fprintf(b, "| %s | %s |\n", m.Label(c.Depth), f3(m.Mean(&s)))
	}
	fmt.Fprintf(b, "| zero recall | %d |\n| %s < 0.5 | %d |\n", len(s.ZeroRecall), n.recall, len(s.BelowHalf))
	if len(s.ZeroRecall) > 0 {
		fmt.Fprintf(b, "\n**Zero recall (%d)**\n\n| query | text | gold docs |\n|:--|:--|:--|\n", len(s.ZeroRecall))
		for _, id := range s.ZeroRecall {
			q := c.Set.Query(id)
			fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(id), mdQuery(q.Text), mdList(q.RelevantDocs()))
		}
	}
	source, crows := scoreContextLines(c)
	if crows != nil {
		fmt.Fprintf(b, "\n**Final context**, apart from the document scores — %s\n\n| final context | mean |\n|:--|--:|\n", EscapeMarkdown(source))
		for _, row := range crows {
			fmt.Fprintf(b, "| %s | %s |\n", row[0], row[1])
		}
	}
	fmt.Fprintf(b, "\n<details><summary>All %d answerable queries</summary>\n\n", len(c.Queries))
	if crows != nil {
		fmt.Fprintf(b, "| query | text | %s | first hit | context recall | evidence | passages / tokens |\n|:--|:--|%s--:|--:|--:|--:|\n", strings.Join(queryColumns(c.Depth, "MRR"), " | "), metricAligns())
	} else {
		fmt.Fprintf(b, "| query | text | %s | first hit |\n|:--|:--|%s--:|\n", strings.Join(queryColumns(c.Depth, "MRR"), " | "), metricAligns())
	}
	for _, q := range c.Queries {
		fmt.Fprintf(b, "| %s | %s | %s | %s |", mdCell(q.ID), mdQuery(c.Set.Query(q.ID).Text),
			strings.Join(queryValues(&q), " | "), rank(q.FirstHitRank))
		if crows != nil {
			cr, cc, cs := scoreQueryContext(q)
			fmt.Fprintf(b, " %s | %s | %s |", cr, cc, cs)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n</details>\n")
	if len(c.Unanswerable) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Unanswerable: %d, kept out of the metrics</summary>\n\n| query | text | documents returned |\n|:--|:--|--:|\n", len(c.Unanswerable))
		for _, u := range c.Unanswerable {
			fmt.Fprintf(b, "| %s | %s | %d |\n", mdCell(u.ID), mdQuery(c.Set.Query(u.ID).Text), u.Returned)
		}
		b.WriteString("\n</details>\n")
	}
	writeWarningsMarkdown(b, nil, c.Warnings())
	return b.Flush()
}

// writeRulesMarkdown is the table of every rule applied, collapsed, with
// the rules that decided named in its summary.
func writeRulesMarkdown(b io.Writer, r *CompareReport) {
	if len(r.Rules) == 0 {
		return
	}
	n := names(r.depth())
	decided := 0
	for _, ru := range r.Rules {
		if ru.Outcome != gate.RulePass {
			decided++
		}
	}
	fmt.Fprintf(b, "\n<details><summary>Gate rules: %d applied, %d not passed</summary>\n\n", len(r.Rules), decided)
	b.Write([]byte("| rule | segment | base | head | value | limit | outcome |\n|:--|:--|--:|--:|--:|--:|:--|\n"))
	for _, ru := range r.Rules {
		c := ru.cells()
		seg := ru.Segment
		if seg == "" {
			seg = "all"
		}
		out := ru.Outcome
		if out != gate.RulePass {
			out = "**" + out + "**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", EscapeMarkdown(ru.label(n)), EscapeMarkdown(seg), c[0], c[1], c[2], c[3], out)
	}
	b.Write([]byte("\n</details>\n"))
}

// writeUnjudgedMarkdown lists the head's new unjudged context documents,
// or says once that the set cannot tell.
func writeUnjudgedMarkdown(b io.Writer, r *CompareReport) {
	line := unjudgedLine(r.Unjudged, r.Depth.Context, r.ReportFile)
	if line == "" {
		return
	}
	if !r.Unjudged.Known {
		fmt.Fprintf(b, "\n%s\n", EscapeMarkdown(line))
		return
	}
	fmt.Fprintf(b, "\n<details><summary>Unjudged in the head's context: %d %s</summary>\n\n%s\n\n| query | documents nobody judged |\n|:--|:--|\n", len(r.Unjudged.New), plural(len(r.Unjudged.New), "query", "queries"), line)
	shown, more := debtShown(r.Unjudged)
	for _, q := range shown {
		fmt.Fprintf(b, "| %s | %s |\n", mdCell(q.ID), mdList(q.Docs))
	}
	if more != "" {
		fmt.Fprintf(b, "\n%s\n", more)
	}
	b.Write([]byte("\n</details>\n"))
}

// metricAligns is one right-aligned column per document metric.
func metricAligns() string { return strings.Repeat("--:|", len(gate.Metrics())) }

// gateLine is the whole set's rules in a few words: "recall@5 drop ≤ 0.020,
// new zero-recall ≤ 0, nDCG@3 drop ≤ 0.050, …"; segment rules are in the
// rules table.
func gateLine(r *CompareReport) string {
	if len(r.Rules) == 0 {
		return fmt.Sprintf("drop ≤ %.3f, new zero-recall ≤ %d", r.Thresholds.MaxRecallDrop, r.Thresholds.MaxNewMisses)
	}
	var parts []string
	for _, ru := range r.Rules {
		if ru.Segment != "" || ru.Name == "segment" || (ru.Outcome == gate.RuleSkipped && (ru.Metric == gate.MetricFalseAnswers || ru.Metric == gate.MetricFalseRefusals)) {
			continue // a refusal rule not evaluated: the refusal block says why
		}
		c := ru.cells()
		what := ru.Name
		if rule := gate.LookupRule(ru.Name); rule != nil {
			what = rule.Words(r.depth())
		}
		parts = append(parts, what+" "+c[3])
	}
	return strings.Join(parts, ", ")
}
