package experiment

import (
	"fmt"
	"io"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
)

// md escapes untrusted text for a Markdown table cell or paragraph.
var md = report.EscapeMarkdown

// verdictMark is a gate verdict with a text symbol (no emoji font needed).
func verdictMark(v string) string {
	switch v {
	case "pass":
		return "✓ pass"
	case "fail":
		return "✗ fail"
	}
	return "⚠ " + v
}

// writeMarkdown writes the compact leaderboard a pull-request comment can
// carry: one table, one line of flips per variant, the segment winners.
func writeMarkdown(w io.Writer, r *Report) error {
	recall, ndcg := r.labels()
	var b strings.Builder
	fmt.Fprintf(&b, "### recallgate experiment: %d %s against the baseline\n\n", len(r.Variants), plural(len(r.Variants), "variant", "variants"))
	fmt.Fprintf(&b, "Set %s: %d answerable queries; candidates N=%d, context k=%d. Δ is variant − baseline with its 95%% paired bootstrap interval; p is the sign-flip test of the Δ before it.\n\n",
		md(r.Set.Path), r.Set.Answerable, r.Depth.Candidates, r.Depth.Context)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "> %s\n\n", md(n))
	}
	fmt.Fprintf(&b, "| variant | %s | Δ %s [95%% CI] | p | %s | Δ %s [95%% CI] | p | regressed | improved | zero recall | p95 | baseline's gate |\n", recall, recall, ndcg, ndcg)
	b.WriteString("|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n")
	bl := r.Baseline
	fmt.Fprintf(&b, "| **%s** (baseline) | %s | | | %s | | | | | %d | %s | |\n", md(bl.Name), f3(bl.Summary.RecallAtN), f3(bl.Summary.NDCGAtK), len(bl.Summary.ZeroRecall), ms(bl.Latency, true))
	for _, v := range r.Variants {
		fmt.Fprintf(&b, "| %s | %s | %s %s | %.3f | %s | %s %s | %.3f | %d | %d | %s | %s | %s |\n", md(v.Name), f3(v.Summary.RecallAtN), signed(v.Delta.RecallAtN), ci(v.CI.RecallAtN), v.PValue,
			f3(v.Summary.NDCGAtK), signed(v.Delta.NDCGAtK), ci(v.CI.NDCGAtK), v.NDCGPValue, len(v.Regressed), len(v.Improved), zeroChange(v.ZeroRecall), ms(v.Latency, true), verdictMark(v.Gate.Verdict))
	}
	fmt.Fprintf(&b, "\n**%s**\n\n", r.Winner.Sentence(md, r.targetName()))
	for _, v := range r.Variants {
		rules := ""
		if len(v.Bound) > 0 {
			rules = " · what a pass rules out: " + report.BoundSentences(v.Bound)
		}
		if len(v.Regressed)+len(v.Improved) == 0 {
			fmt.Fprintf(&b, "- **%s**: no query flipped%s\n", md(v.Name), rules)
			continue
		}
		fmt.Fprintf(&b, "- **%s**: regressed %s · improved %s%s\n", md(v.Name), ids(v.Regressed, report.MarkdownID), ids(v.Improved, report.MarkdownID), rules)
	}
	for _, v := range r.Variants {
		if v.Fusion != nil {
			fmt.Fprintf(&b, "\n**%s**: %s. The chosen setting, to paste:\n\n```toml\n%s```\n", md(v.Name), md(strings.Join(r.fusionLines(v, gate.Visible), "; ")), v.Fusion.Table)
		}
	}
	var wins []string
	for _, s := range r.Segments {
		if len(s.Winners) > 0 {
			wins = append(wins, fmt.Sprintf("%s: %s", md(s.Label), winners(s, md)))
		}
	}
	if len(wins) > 0 {
		fmt.Fprintf(&b, "\nThe most %s per segment, where a variant beats the baseline: %s.\n", recall, strings.Join(wins, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
