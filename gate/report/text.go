package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/recallgate/recallgate/gate"
)

// terminal strips control characters from user text so it cannot move the
// cursor or recolour the terminal.
func terminal(s string) string { return flatten(s) }

func scoreText(w io.Writer, c *gate.Scorecard) error {
	b := bufio.NewWriter(w)
	n := names(c.Depth)
	fmt.Fprintf(b, "recallgate score: %s, %s\n", c.Set.Path, queryCount(c.Set))
	fmt.Fprintf(b, "depths: candidates N=%d (recall), context k=%d (precision, nDCG); unit: documents\n\n", c.Depth.Candidates, c.Depth.Context)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	s := c.Summary
	fmt.Fprintf(tw, "metric\tmean\t\n")
	fmt.Fprintf(tw, "%s\t%s\t\n", n.recall, f3(s.Recall))
	fmt.Fprintf(tw, "%s\t%s\t\n", n.precision, f3(s.Precision))
	fmt.Fprintf(tw, "%s\t%s\t\n", n.ndcg, f3(s.NDCG))
	fmt.Fprintf(tw, "%s\t%s\t\n", n.rr, f3(s.RR))
	fmt.Fprintf(tw, "zero recall\t%d\t\n", len(s.ZeroRecall))
	fmt.Fprintf(tw, "%s < 0.5\t%d\t\n", n.recall, len(s.BelowHalf))
	tw.Flush()
	if len(s.ZeroRecall) > 0 {
		fmt.Fprintf(b, "\nzero recall (%d)\n", len(s.ZeroRecall))
		for _, id := range s.ZeroRecall {
			q := c.Set.Query(id)
			fmt.Fprintf(b, "  %s  %q  gold: %s\n", terminal(id), terminal(q.Text), terminal(strings.Join(q.RelevantDocs(), ", ")))
		}
	}
	writeUnanswerableText(b, c.Unanswerable)
	fmt.Fprintf(b, "\nper query\n")
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  id\t%s\t%s\t%s\tRR\tfirst hit\tfound\n", n.recall, n.precision, n.ndcg)
	for _, q := range c.Queries {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%d/%d\n", terminal(q.ID), f3(q.Recall), f3(q.Precision), f3(q.NDCG), f3(q.RR), rank(q.FirstHitRank), q.Found, q.Relevant)
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
		fmt.Fprintf(b, "  %s  returned %d %s\n", terminal(u.ID), u.Returned, plural(u.Returned, "document", "documents"))
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

// headline is the one-line verdict shared by the text and Markdown reports.
func headline(c *gate.Comparison) string {
	n := names(c.Depth)
	return fmt.Sprintf("mean %s %s → %s (%s), %d regressed, %d improved", n.recall,
		f3(c.Base.Recall), f3(c.Head.Recall), signed(c.MeanDelta.Recall), len(c.Regressed), len(c.Improved))
}

func compareText(w io.Writer, c *gate.Comparison) error {
	b := bufio.NewWriter(w)
	n := names(c.Depth)
	fmt.Fprintf(b, "%s  %s\n", strings.ToUpper(string(c.Verdict)), headline(c))
	for _, r := range c.Reasons {
		fmt.Fprintf(b, "  fail: %s\n", r)
	}
	fmt.Fprintf(b, "set %s: %s; candidates N=%d, context k=%d; unit: documents\n", c.Set.Path, queryCount(c.Set), c.Depth.Candidates, c.Depth.Context)
	fmt.Fprintf(b, "gate: max recall drop %.3f, max new zero-recall queries %d\n\n", c.Thresholds.MaxRecallDrop, c.Thresholds.MaxNewMisses)

	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\tbase\thead\tdelta\t\n")
	for _, row := range summaryRows(c) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", row[0], row[1], row[2], row[3])
	}
	tw.Flush()

	for _, sec := range []struct {
		title string
		ids   []string
	}{{"regressed", c.Regressed}, {"improved", c.Improved}} {
		fmt.Fprintf(b, "\n%s (%d)\n", sec.title, len(sec.ids))
		for _, id := range sec.ids {
			p := c.Query(id)
			fmt.Fprintf(b, "  %s  %s %s → %s", terminal(id), n.recall, f3(p.Base.Recall), f3(p.Head.Recall))
			if len(p.Lost) > 0 {
				fmt.Fprintf(b, "  lost: %s", terminal(strings.Join(p.Lost, ", ")))
			}
			if len(p.Gained) > 0 {
				fmt.Fprintf(b, "  gained: %s", terminal(strings.Join(p.Gained, ", ")))
			}
			fmt.Fprintf(b, "\n      %q\n", terminal(clip(p.Query.Text, 100)))
		}
	}
	if len(c.RankingOnly) > 0 {
		fmt.Fprintf(b, "\nranking only (%d): same documents found, order changed\n", len(c.RankingOnly))
		for _, id := range c.RankingOnly {
			p := c.Query(id)
			fmt.Fprintf(b, "  %s  %s %s → %s  %s %s → %s  first hit %s → %s\n", terminal(id),
				n.precision, f3(p.Base.Precision), f3(p.Head.Precision), n.ndcg, f3(p.Base.NDCG), f3(p.Head.NDCG),
				rank(p.Base.FirstHitRank), rank(p.Head.FirstHitRank))
		}
	}
	if len(c.Unanswerable) > 0 {
		fmt.Fprintf(b, "\nunanswerable (%d, kept out of the metrics)\n", len(c.Unanswerable))
		for _, u := range c.Unanswerable {
			fmt.Fprintf(b, "  %s  returned %d → %d documents\n", terminal(u[0].ID), u[0].Returned, u[1].Returned)
		}
	}
	writeWarningsText(b, c.Warnings)
	return b.Flush()
}

// summaryRows are the rows of the base/head/delta table.
func summaryRows(c *gate.Comparison) [][4]string {
	n := names(c.Depth)
	zb, zh := len(c.Base.ZeroRecall), len(c.Head.ZeroRecall)
	bb, bh := len(c.Base.BelowHalf), len(c.Head.BelowHalf)
	return [][4]string{
		{n.recall, f3(c.Base.Recall), f3(c.Head.Recall), signed(c.MeanDelta.Recall)},
		{n.precision, f3(c.Base.Precision), f3(c.Head.Precision), signed(c.MeanDelta.Precision)},
		{n.ndcg, f3(c.Base.NDCG), f3(c.Head.NDCG), signed(c.MeanDelta.NDCG)},
		{n.rr, f3(c.Base.RR), f3(c.Head.RR), signed(c.MeanDelta.RR)},
		{"zero recall", fmt.Sprint(zb), fmt.Sprint(zh), signedInt(zh - zb)},
		{n.recall + " < 0.5", fmt.Sprint(bb), fmt.Sprint(bh), signedInt(bh - bb)},
	}
}
