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
func mdQuery(q *gate.Query) string { return EscapeMarkdown(clip(q.Text, 80)) }

func compareMarkdown(w io.Writer, c *gate.Comparison) error {
	b := bufio.NewWriter(w)
	n := names(c.Depth)
	icon := "✅"
	if c.Verdict == gate.Fail {
		icon = "❌"
	}
	fmt.Fprintf(b, "### %s recallgate: %s — %s\n\n", icon, c.Verdict, headline(c))
	for _, r := range c.Reasons {
		fmt.Fprintf(b, "- **fail:** %s\n", EscapeMarkdown(r))
	}
	if len(c.Reasons) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%s · recall at N=%d candidates, precision and nDCG at k=%d in context · document level · gate: drop ≤ %.3f, new zero-recall ≤ %d\n\n",
		queryCount(c.Set), c.Depth.Candidates, c.Depth.Context, c.Thresholds.MaxRecallDrop, c.Thresholds.MaxNewMisses)

	b.WriteString("| metric | base | head | Δ |\n|:--|--:|--:|--:|\n")
	for _, row := range summaryRows(c) {
		d := row[3]
		if strings.HasPrefix(d, "-") && row[0] == n.recall {
			d = "**" + d + "**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", row[0], row[1], row[2], d)
	}

	flipTable := func(title string, ids []string, docsHead string, docs func(*gate.PairedQuery) []string) {
		if len(ids) == 0 {
			return
		}
		fmt.Fprintf(b, "\n**%s (%d)**\n\n| query | text | %s | %s | %s |\n|:--|:--|--:|--:|:--|\n", title, len(ids), n.recall, n.ndcg, docsHead)
		for _, id := range ids {
			p := c.Query(id)
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s |\n", EscapeMarkdown(id), mdQuery(p.Query),
				f3(p.Base.Recall), f3(p.Head.Recall), f3(p.Base.NDCG), f3(p.Head.NDCG), mdList(docs(p)))
		}
	}
	if len(c.Regressed)+len(c.Improved) == 0 {
		fmt.Fprintf(b, "\nNo query changed %s.\n", n.recall)
	}
	flipTable("Regressed", c.Regressed, "gold docs lost", func(p *gate.PairedQuery) []string { return p.Lost })
	flipTable("Improved", c.Improved, "gold docs gained", func(p *gate.PairedQuery) []string { return p.Gained })

	if len(c.RankingOnly) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Ranking only: %d %s found the same documents in a different order</summary>\n\n", len(c.RankingOnly), plural(len(c.RankingOnly), "query", "queries"))
		fmt.Fprintf(b, "| query | text | %s | %s | first hit |\n|:--|:--|--:|--:|--:|\n", n.precision, n.ndcg)
		for _, id := range c.RankingOnly {
			p := c.Query(id)
			fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s → %s |\n", EscapeMarkdown(id), mdQuery(p.Query),
				f3(p.Base.Precision), f3(p.Head.Precision), f3(p.Base.NDCG), f3(p.Head.NDCG), rank(p.Base.FirstHitRank), rank(p.Head.FirstHitRank))
		}
		b.WriteString("\n</details>\n")
	}
	if zr := c.Head.ZeroRecall; len(zr) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Zero recall on head: %d %s</summary>\n\n", len(zr), plural(len(zr), "query", "queries"))
		b.WriteString("| query | text | gold docs |\n|:--|:--|:--|\n")
		for _, id := range zr {
			q := c.Set.Query(id)
			fmt.Fprintf(b, "| %s | %s | %s |\n", EscapeMarkdown(id), mdQuery(q), mdList(q.RelevantDocs()))
		}
		b.WriteString("\n</details>\n")
	}

	fmt.Fprintf(b, "\n<details><summary>All %d answerable queries</summary>\n\n", len(c.Queries))
	fmt.Fprintf(b, "| query | text | %s | %s | %s | MRR | change |\n|:--|:--|--:|--:|--:|--:|:--|\n", n.recall, n.precision, n.ndcg)
	for _, p := range c.Queries {
		ch := string(p.Change)
		if p.RankingOnly {
			ch = "ranking only"
		}
		fmt.Fprintf(b, "| %s | %s | %s → %s | %s → %s | %s → %s | %s → %s | %s |\n", EscapeMarkdown(p.Query.ID), mdQuery(p.Query),
			f3(p.Base.Recall), f3(p.Head.Recall), f3(p.Base.Precision), f3(p.Head.Precision),
			f3(p.Base.NDCG), f3(p.Head.NDCG), f3(p.Base.RR), f3(p.Head.RR), ch)
	}
	b.WriteString("\n</details>\n")

	if len(c.Unanswerable) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Unanswerable: %d %s, kept out of the metrics</summary>\n\n", len(c.Unanswerable), plural(len(c.Unanswerable), "query", "queries"))
		b.WriteString("| query | text | documents returned |\n|:--|:--|--:|\n")
		for _, u := range c.Unanswerable {
			fmt.Fprintf(b, "| %s | %s | %d → %d |\n", EscapeMarkdown(u[0].ID), mdQuery(c.Set.Query(u[0].ID)), u[0].Returned, u[1].Returned)
		}
		b.WriteString("\n</details>\n")
	}
	writeWarningsMarkdown(b, c.Warnings)
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
			fmt.Fprintf(b, "| %s | %s | %s |\n", EscapeMarkdown(id), mdQuery(q), mdList(q.RelevantDocs()))
		}
	}
	fmt.Fprintf(b, "\n<details><summary>All %d answerable queries</summary>\n\n", len(c.Queries))
	fmt.Fprintf(b, "| query | text | %s | %s | %s | MRR | first hit |\n|:--|:--|--:|--:|--:|--:|--:|\n", n.recall, n.precision, n.ndcg)
	for _, q := range c.Queries {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", EscapeMarkdown(q.ID), mdQuery(c.Set.Query(q.ID)),
			f3(q.Recall), f3(q.Precision), f3(q.NDCG), f3(q.RR), rank(q.FirstHitRank))
	}
	b.WriteString("\n</details>\n")
	if len(c.Unanswerable) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Unanswerable: %d, kept out of the metrics</summary>\n\n| query | text | documents returned |\n|:--|:--|--:|\n", len(c.Unanswerable))
		for _, u := range c.Unanswerable {
			fmt.Fprintf(b, "| %s | %s | %d |\n", EscapeMarkdown(u.ID), mdQuery(c.Set.Query(u.ID)), u.Returned)
		}
		b.WriteString("\n</details>\n")
	}
	writeWarningsMarkdown(b, c.Warnings())
	return b.Flush()
}
