package experiment

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/visible"
)

// plain makes untrusted text one visible line for a terminal: visible.Terminal.
func plain(s string) string { return visible.Terminal(s) }

// f3 and signed are the reports' number formats.
var f3, signed = report.Fixed3, report.SignedDelta

// ci is an interval as reports print it.
func ci(iv Interval) string { return "[" + signed(iv.Low) + ", " + signed(iv.High) + "]" }

// ms is a latency with the precision its size deserves; "n/a" when the
// side was not timed (a cached run).
func ms(l *report.LatencyInfo, p95 bool) string {
	if l == nil {
		return "n/a"
	}
	if p95 {
		return report.Millis(l.P95)
	}
	return report.Millis(l.P50)
}

// zeroChange is the change in zero-recall queries: "+1 −1" (new,
// recovered), "−2", "±0".
func zeroChange(z ZeroRecall) string {
	var parts []string
	if len(z.New) > 0 {
		parts = append(parts, fmt.Sprintf("+%d", len(z.New)))
	}
	if len(z.Recovered) > 0 {
		parts = append(parts, fmt.Sprintf("−%d", len(z.Recovered)))
	}
	if len(parts) == 0 {
		return "±0"
	}
	return strings.Join(parts, " ")
}

// labels are the metric names at the report's depths.
func (r *Report) labels() (recall, ndcg string) {
	return fmt.Sprintf("recall@%d", r.Depth.Candidates), fmt.Sprintf("nDCG@%d", r.Depth.Context)
}

// headline is the report's first line, with esc applied to the set path.
func (r *Report) headline(esc func(string) string) string {
	return fmt.Sprintf("experiment: %d %s ranked against the baseline · set %s: %d queries (%d answerable); candidates N=%d, context k=%d; unit: documents",
		len(r.Variants), plural(len(r.Variants), "variant", "variants"), esc(r.Set.Path), r.Set.Queries, r.Set.Answerable, r.Depth.Candidates, r.Depth.Context)
}

var plural = gate.Plural

// ids lists query ids for a line, each through esc; "none" for none.
func ids(list []string, esc func(string) string) string {
	if len(list) == 0 {
		return "none"
	}
	out := make([]string, len(list))
	for i, id := range list {
		out[i] = esc(id)
	}
	return gate.JoinFirst(out, 20)
}

func writeText(w io.Writer, r *Report) error {
	recall, ndcg := r.labels()
	var b strings.Builder
	fmt.Fprintln(&b, r.headline(plain))
	fmt.Fprintln(&b, "Exit 0: an experiment informs, it does not gate; \"gate\" says what the baseline's [gate] would say of each variant as the head.")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", plain(n))
	}
	fmt.Fprintln(&b)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "variant\t%s\t%s\tΔ %s\t95%% CI\tp\tΔ %s\t95%% CI\tp\tregressed\timproved\tzero recall\tp50\tp95\tgate\t\n", recall, ndcg, recall, ndcg)
	bl := r.Baseline
	fmt.Fprintf(tw, "%s (baseline)\t%s\t%s\t\t\t\t\t\t\t\t\t%d\t%s\t%s\t\t\n", plain(bl.Name), f3(bl.Summary.RecallAtN), f3(bl.Summary.NDCGAtK), len(bl.Summary.ZeroRecall), ms(bl.Latency, false), ms(bl.Latency, true))
	for _, v := range r.Variants {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3f\t%s\t%s\t%.3f\t%d\t%d\t%s\t%s\t%s\t%s\t\n", plain(v.Name), f3(v.Summary.RecallAtN), f3(v.Summary.NDCGAtK),
			signed(v.Delta.RecallAtN), ci(v.CI.RecallAtN), v.PValue, signed(v.Delta.NDCGAtK), ci(v.CI.NDCGAtK), v.NDCGPValue,
			len(v.Regressed), len(v.Improved), zeroChange(v.ZeroRecall), ms(v.Latency, false), ms(v.Latency, true), v.Gate.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n%s\n", r.Winner.Sentence(plain, r.targetName()))
	for _, v := range r.Variants {
		fmt.Fprintf(&b, "\n%s: %s %s → %s (%s), p = %.3f (%s sign-flip test)\n", plain(v.Name), recall, f3(bl.Summary.RecallAtN), f3(v.Summary.RecallAtN), signed(v.Delta.RecallAtN), v.PValue, exactness(v.Exact))
		if v.Fusion != nil {
			for _, l := range r.fusionLines(v, plain) {
				fmt.Fprintf(&b, "  %s\n", l)
			}
			fmt.Fprintf(&b, "  the chosen setting, to paste:\n    %s\n", strings.ReplaceAll(strings.TrimSpace(v.Fusion.Table), "\n", "\n    "))
		}
		fmt.Fprintf(&b, "  regressed (%d): %s\n", len(v.Regressed), ids(v.Regressed, plain))
		fmt.Fprintf(&b, "  improved (%d): %s\n", len(v.Improved), ids(v.Improved, plain))
		fmt.Fprintf(&b, "  zero recall: new %s; recovered %s\n", ids(v.ZeroRecall.New, plain), ids(v.ZeroRecall.Recovered, plain))
		if len(v.Wins) > 0 {
			fmt.Fprintf(&b, "  finds the most of: %s\n", ids(v.Wins, plain))
		}
		if len(v.Bound) > 0 {
			fmt.Fprintf(&b, "  what a pass rules out (one-sided 95%% bound): %s\n", report.BoundSentences(v.Bound))
		}
		fmt.Fprintf(&b, "  the baseline's gate: %s\n", v.Gate.Verdict)
		for i, why := range v.Gate.Reasons {
			fmt.Fprintf(&b, "    %s: %s\n", v.Gate.Kind(i), plain(why))
		}
	}
	if len(r.Segments) > 0 {
		fmt.Fprintf(&b, "\nsegments (%s; the most, when above the baseline)\n", recall)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "  segment\tqueries\tbaseline")
		for _, v := range r.Variants {
			fmt.Fprintf(tw, "\t%s", plain(v.Name))
		}
		fmt.Fprint(tw, "\tthe most\n")
		for _, s := range r.Segments {
			fmt.Fprintf(tw, "  %s\t%d\t%s", plain(s.Label), s.Queries, f3(s.Baseline))
			for _, v := range s.Recall {
				fmt.Fprintf(tw, "\t%s", f3(v))
			}
			fmt.Fprintf(tw, "\t%s\n", winners(s, plain))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(&b, "\nwarnings")
		for _, x := range r.Warnings {
			fmt.Fprintf(&b, "  %s\n", plain(x))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// winners names a segment's winners, or says the baseline holds.
func winners(s Segment, esc func(string) string) string {
	if len(s.Winners) == 0 {
		return "baseline"
	}
	out := make([]string, len(s.Winners))
	for i, n := range s.Winners {
		out[i] = esc(n)
	}
	return strings.Join(out, ", ")
}

// exactness says how the p-value was found.
func exactness(exact bool) string {
	if exact {
		return "exact"
	}
	return "Monte Carlo"
}
