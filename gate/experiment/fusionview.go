package experiment

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/chart"
	"github.com/recallgate/recallgate/gate/fusion"
)

// targetName is the winner's metric as the reports name it.
func (r *Report) targetName() string {
	recall, ndcg := r.labels()
	if r.Winner.Metric == "recall_at_n" {
		return recall
	}
	return ndcg
}

// fusionLines say how a fusion row was made and what its sweep chose, each
// name through esc: the method, the cross-validated score against the
// in-sample one, and how often one setting fits a query best.
func (r *Report) fusionLines(v Variant, esc func(string) string) []string {
	f := v.Fusion
	recall, ndcg := r.labels()
	of := make([]string, len(f.Of))
	for i, o := range f.Of {
		of[i] = esc(o)
	}
	how := f.Method
	if f.Norm != "" {
		how += " over " + f.Norm + " scores"
	}
	lines := []string{fmt.Sprintf("fused by %s of %s (no retrieval of its own)", how, strings.Join(of, ", "))}
	if f.Settings == 1 {
		return append(lines, fmt.Sprintf("one setting (%s): nothing was chosen on these queries, so its score is not optimistic", f.Chosen))
	}
	target := ndcg
	if f.Target == fusion.TargetRecall {
		target = recall
	}
	lines = append(lines,
		fmt.Sprintf("swept %d settings by %s; the row is scored by leave-one-query-out cross-validation (each query fused with the setting best on the others)", f.Settings, target),
		fmt.Sprintf("%s: cross-validated %s, in-sample best %s (%s), optimism %s", ndcg, f3(f.CV.NDCG), f3(f.InSample.NDCG), f.Chosen, signed(f.Optimism.NDCG)),
		fmt.Sprintf("%s: cross-validated %s, in-sample best %s, optimism %s", recall, f3(f.CV.Recall), f3(f.InSample.Recall), signed(f.Optimism.Recall)))
	fits, gap := 0, 0.0
	for _, o := range f.Oracle {
		if o.Value-o.Chosen <= 1e-9 {
			fits++
		}
		gap += o.Value - o.Chosen
	}
	if n := len(f.Oracle); n > 0 {
		lines = append(lines, fmt.Sprintf("per query: the chosen setting is as good as the best for that query alone on %d of %d queries; the mean gap to each query's own best is %s", fits, n, f3(gap/float64(n))))
	}
	return lines
}

// oracleChart is a fusion row's per-query chart: the chosen setting's
// target value against each query's own best (the 20 queries furthest
// from it), as inline SVG.
func (r *Report) oracleChart(v Variant) string {
	f := v.Fusion
	if len(f.Oracle) == 0 {
		return ""
	}
	o := slices.Clone(f.Oracle)
	slices.SortStableFunc(o, func(a, b fusion.QueryOracle) int {
		ga, gb := a.Value-a.Chosen, b.Value-b.Chosen
		switch {
		case ga > gb:
			return -1
		case ga < gb:
			return 1
		}
		return 0
	})
	o = o[:min(20, len(o))]
	d := chart.Dumbbell{Title: fmt.Sprintf("%s: the chosen setting (%s) against each query's own best, %s (the %d queries furthest from it)", v.Name, f.Chosen, r.targetName(), len(o)),
		FromName: "chosen", ToName: "the query's best", XLabel: r.targetName(), Width: 480}
	for _, q := range o {
		d.Rows = append(d.Rows, chart.Row{Label: q.Query, From: q.Chosen, To: q.Value, Title: fmt.Sprintf("%s: chosen %s, best %s (%s)", q.Query, f3(q.Chosen), f3(q.Value), q.Best)})
	}
	return d.SVG()
}

// fusionHTML is the page's fusion section: per fusion row its lines, the
// pasteable table and the per-query chart. Every text is escaped here;
// the SVG is gate/chart's.
func (r *Report) fusionHTML() template.HTML {
	var b strings.Builder
	for _, v := range r.Variants {
		if v.Fusion == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("<h2>Fusions</h2>\n")
		}
		fmt.Fprintf(&b, "<h3>%s</h3>\n<ul>", template.HTMLEscapeString(gate.Visible(v.Name)))
		for _, l := range r.fusionLines(v, gate.Visible) {
			fmt.Fprintf(&b, "<li>%s</li>", template.HTMLEscapeString(l))
		}
		fmt.Fprintf(&b, "</ul>\n<p>The chosen setting, to paste:</p>\n<pre>%s</pre>\n", template.HTMLEscapeString(v.Fusion.Table))
		if svg := r.oracleChart(v); svg != "" {
			fmt.Fprintf(&b, "<figure class=\"oracle\">%s</figure>\n", svg)
		}
	}
	return template.HTML(b.String())
}
