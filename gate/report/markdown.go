package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// mdList escapes ids and joins them with ", ".
func mdList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = EscapeMarkdown(id)
	}
	return strings.Join(out, ", ")
}

// mdQuery is a query's text for a table cell, clipped to stay readable.
func mdQuery(text string) string { return EscapeMarkdown(clip(text, 80)) }

func compareMarkdown(w io.Writer, r *CompareReport) error {
	b := bufio.NewWriter(w)
	n := names(r.depth())
	byID := r.byID()
	icon := "✅"
	if r.Verdict == string(gate.Fail) {
		icon = "❌"
	}
	fmt.Fprintf(b, "### %s recallgate: %s — %s\n\n", icon, r.Verdict, headline(r))
	for _, reason := range r.Reasons {
		fmt.Fprintf(b, "- **fail:** %s\n", EscapeMarkdown(reason))
	}
	if len(r.Reasons) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%s · recall at N=%d candidates, precision and nDCG at k=%d in context · document level · gate: drop ≤ %.3f, new zero-recall ≤ %d\n\n",
		r.Set.count(), r.Depth.Candidates, r.Depth.Context, r.Thresholds.MaxRecallDrop, r.Thresholds.MaxNewMisses)

	b.WriteString("| metric | base | head | Δ |\n|:--|--:|--:|--:|\n")
	for _, row := range summaryRows(r) {
		d := row[3]
		if strings.HasPrefix(d, "-") && row[0] == n.recall {
			d = "**" + d + "**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], d)
	}

	flipTable := func(title string, ids []string, docsHead string, docs func(*CompareQuery) []string) {
		if len(ids) == 0 {
			return
		}
		fmt.Fprintf(b, "\n**%s (%d)**\n\n| query | text | %s | %s | %s |\n|:--|:--|--:|--:|:--|\n", title, len(ids), n.recall, n.ndcg, docsHead)
		for _, id := range ids {
			p := byID[id]
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s |\n", EscapeMarkdown(id), mdQuery(p.Query),
				f3(p.Base.RecallAtN), f3(p.Head.RecallAtN), f3(p.Base.NDCGAtK), f3(p.Head.NDCGAtK), mdList(docs(p)))
		}
	}
	if len(r.Regressed)+len(r.Improved) == 0 {
		fmt.Fprintf(b, "\nNo query changed %s.\n", n.recall)
	}
	flipTable("Regressed", r.Regressed, "gold docs lost", func(p *CompareQuery) []string { return p.Lost })
	flipTable("Improved", r.Improved, "gold docs gained", func(p *CompareQuery) []string { return p.Gained })

	if len(r.RankingOnly) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Ranking only: %d %s found the same documents in a different order</summary>\n\n", len(r.RankingOnly), plural(len(r.RankingOnly), "query", "queries"))
		fmt.Fprintf(b, "| query | text | %s | %s | first hit |\n|:--|:--|--:|--:|--:|\n", n.precision, n.ndcg)
		for _, id := range r.RankingOnly {
			p := byID[id]
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s → %s |\n", EscapeMarkdown(id), mdQuery(p.Query),
				f3(p.Base.PrecisionAtK), f3(p.Head.PrecisionAtK), f3(p.Base.NDCGAtK), f3(p.Head.NDCGAtK), rankPtr(p.Base.FirstHitRank), rankPtr(p.Head.FirstHitRank))
		}
		b.WriteString("\n</details>\n")
	}
	if zr := r.Summary.Head.ZeroRecall; len(zr) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Zero recall on head: %d %s</summary>\n\n", len(zr), plural(len(zr), "query", "queries"))
		b.WriteString("| query | text | gold docs |\n|:--|:--|:--|\n")
		for _, id := range zr {
			p := byID[id]
			fmt.Fprintf(b, "| %s | %s | %s |\n", EscapeMarkdown(id), mdQuery(p.Query), mdList(p.Gold))
		}
		b.WriteString("\n</details>\n")
	}

	fmt.Fprintf(b, "\n<details><summary>All %d answerable queries</summary>\n\n", len(r.Queries))
	fmt.Fprintf(b, "| query | text | %s | %s | %s | MRR | change |\n|:--|:--|--:|--:|--:|--:|:--|\n", n.recall, n.precision, n.ndcg)
	for _, p := range r.Queries {
		ch := p.Change
		if p.RankingOnly {
			ch = "ranking only"
		}
		fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s → %s | %s → %s | %s |\n", EscapeMarkdown(p.ID), mdQuery(p.Query),
			f3(p.Base.RecallAtN), f3(p.Head.RecallAtN), f3(p.Base.PrecisionAtK), f3(p.Head.PrecisionAtK),
			f3(p.Base.NDCGAtK), f3(p.Head.NDCGAtK), f3(p.Base.RR), f3(p.Head.RR), EscapeMarkdown(ch))
	}
	b.WriteString("\n</details>\n")

	if len(r.Unanswerable) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Unanswerable: %d %s, kept out of the metrics</summary>\n\n", len(r.Unanswerable), plural(len(r.Unanswerable), "query", "queries"))
		b.WriteString("| query | text | documents returned |\n|:--|:--|--:|\n")
		for _, u := range r.Unanswerable {
			fmt.Fprintf(b, "| %s | %s | %d → %d |\n", EscapeMarkdown(u.ID), mdQuery(u.Query), u.Base.Returned, u.Head.Returned)
		}
		b.WriteString("\n</details>\n")
	}
	writeWarningsMarkdown(b, r.Warnings)
	return b.Flush()
}

func writeWarningsMarkdown(b io.Writer, ws []string) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintf(b, "\n<details><summary>⚠️ %d %s</summary>\n\n", len(ws), plural(len(ws), "warning", "warnings"))
	for _, w := range ws {
		fmt.Fprintf(b, "- %s\n", EscapeMarkdown(w))
	}
	io.WriteString(b, "\n</details>\n")
}

func scoreMarkdown(w io.Writer, c *gate.Scorecard) error {
	b := bufio.NewWriter(w)
	n := names(c.Depth)
	s := c.Summary
	fmt.Fprintf(b, "### recallgate score — mean %s %s, %d zero-recall, %d below 0.5\n\n", n.recall, f3(s.Recall), len(s.ZeroRecall), len(s.BelowHalf))
	fmt.Fprintf(b, "%s · recall at N=%d candidates, precision and nDCG at k=%d in context · document level\n\n", queryCount(c.Set), c.Depth.Candidates, c.Depth.Context)
	b.WriteString("| metric | mean |\n|:--|--:|\n")
	fmt.Fprintf(b, "| %s | %s |\n| %s | %s |\n| %s | %s |\n| %s | %s |\n| zero recall | %d |\n| %s < 0.5 | %d |\n",
		n.recall, f3(s.Recall), n.precision, f3(s.Precision), n.ndcg, f3(s.NDCG), n.rr, f3(s.RR), len(s.ZeroRecall), n.recall, len(s.BelowHalf))
	if len(s.ZeroRecall) > 0 {
		fmt.Fprintf(b, "\n**Zero recall (%d)**\n\n| query | text | gold docs |\n|:--|:--|:--|\n", len(s.ZeroRecall))
		for _, id := range s.ZeroRecall {
			q := c.Set.Query(id)
			fmt.Fprintf(b, "| %s | %s | %s |\n", EscapeMarkdown(id), mdQuery(q.Text), mdList(q.RelevantDocs()))
		}
	}
	fmt.Fprintf(b, "\n<details><summary>All %d answerable queries</summary>\n\n", len(c.Queries))
	fmt.Fprintf(b, "| query | text | %s | %s | %s | MRR | first hit |\n|:--|:--|--:|--:|--:|--:|--:|\n", n.recall, n.precision, n.ndcg)
	for _, q := range c.Queries {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", EscapeMarkdown(q.ID), mdQuery(c.Set.Query(q.ID).Text),
			f3(q.Recall), f3(q.Precision), f3(q.NDCG), f3(q.RR), rank(q.FirstHitRank))
	}
	b.WriteString("\n</details>\n")
	if len(c.Unanswerable) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Unanswerable: %d, kept out of the metrics</summary>\n\n| query | text | documents returned |\n|:--|:--|--:|\n", len(c.Unanswerable))
		for _, u := range c.Unanswerable {
			fmt.Fprintf(b, "| %s | %s | %d |\n", EscapeMarkdown(u.ID), mdQuery(c.Set.Query(u.ID).Text), u.Returned)
		}
		b.WriteString("\n</details>\n")
	}
	writeWarningsMarkdown(b, c.Warnings())
	return b.Flush()
}
