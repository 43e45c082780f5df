package experiment

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/chart"
	"github.com/recallgate/recallgate/gate/report"
)

// Charts are the leaderboard's two pictures as inline SVG: each variant's
// delta recall@N against its delta nDCG@k with both intervals, and its
// p95 latency against its delta recall@N (the baseline at 0; a variant
// not timed is listed in the SVG's description, not drawn).
func Charts(r *Report) (deltas, latency string) {
	recall, ndcg := r.labels()
	d := chart.Scatter{Title: "Each variant against the baseline: Δ " + recall + " and Δ " + ndcg + " with 95% intervals",
		XLabel: "Δ " + recall, YLabel: "Δ " + ndcg, ZeroLines: true}
	l := chart.Scatter{Title: "Latency and Δ " + recall + " per variant (the baseline at 0)", XLabel: "p95 latency per query (ms)", YLabel: "Δ " + recall, ZeroLines: true}
	if bl := r.Baseline.Latency; bl != nil {
		l.Points = append(l.Points, chart.Point{X: bl.P95, Label: r.Baseline.Name + " (baseline)", Class: "baseline",
			Title: fmt.Sprintf("%s (baseline): %s %s, p95 %s", r.Baseline.Name, recall, f3(r.Baseline.Summary.RecallAtN), ms(bl, true))})
	}
	for _, v := range r.Variants {
		title := fmt.Sprintf("%s: Δ %s %s %s, p = %.3f; Δ %s %s %s; baseline's gate: %s", v.Name, recall, signed(v.Delta.RecallAtN), ci(v.CI.RecallAtN), v.PValue,
			ndcg, signed(v.Delta.NDCGAtK), ci(v.CI.NDCGAtK), v.Gate.Verdict)
		d.Points = append(d.Points, chart.Point{X: v.Delta.RecallAtN, Y: v.Delta.NDCGAtK, XLo: v.CI.RecallAtN.Low, XHi: v.CI.RecallAtN.High, YLo: v.CI.NDCGAtK.Low, YHi: v.CI.NDCGAtK.High,
			HasXInterval: true, HasYInterval: true, Label: v.Name, Title: title, Class: v.Gate.Verdict})
		x := math.NaN() // not timed: listed, not drawn
		if v.Latency != nil {
			x = v.Latency.P95
		}
		l.Points = append(l.Points, chart.Point{X: x, Y: v.Delta.RecallAtN, YLo: v.CI.RecallAtN.Low, YHi: v.CI.RecallAtN.High, HasYInterval: true,
			Label: v.Name, Title: fmt.Sprintf("%s: p95 %s, Δ %s %s", v.Name, ms(v.Latency, true), recall, signed(v.Delta.RecallAtN)), Class: v.Gate.Verdict})
	}
	return d.SVG(), l.SVG()
}

// writeHTML writes one self-contained page: the table, the two charts and
// the flips; no scripts, no external resources. Every text from the config
// or the set is escaped by html/template after gate.Visible; the SVG is
// gate/chart's, which escapes its own text.
func writeHTML(w io.Writer, r *Report) error {
	recall, ndcg := r.labels()
	type row struct {
		Name, Recall, NDCG, DRecall, CIRecall, P, DNDCG, CINDCG, PNDCG, Zero, P50, P95, Gate string
		Regressed, Improved                                                                  int
		RegIDs, ImpIDs, Wins, Bound                                                          string
		Reasons                                                                              []string
	}
	bl := r.Baseline
	var rows []row
	for _, v := range r.Variants {
		reasons := make([]string, len(v.Gate.Reasons))
		for i, x := range v.Gate.Reasons {
			reasons[i] = v.Gate.Kind(i) + ": " + gate.Visible(x)
		}
		rows = append(rows, row{Name: gate.Visible(v.Name), Recall: f3(v.Summary.RecallAtN), NDCG: f3(v.Summary.NDCGAtK), DRecall: signed(v.Delta.RecallAtN), CIRecall: ci(v.CI.RecallAtN),
			P: fmt.Sprintf("%.3f", v.PValue), DNDCG: signed(v.Delta.NDCGAtK), CINDCG: ci(v.CI.NDCGAtK), PNDCG: fmt.Sprintf("%.3f", v.NDCGPValue), Zero: zeroChange(v.ZeroRecall), P50: ms(v.Latency, false), P95: ms(v.Latency, true),
			Gate: v.Gate.Verdict, Regressed: len(v.Regressed), Improved: len(v.Improved), RegIDs: ids(v.Regressed, gate.Visible), ImpIDs: ids(v.Improved, gate.Visible),
			Wins: ids(v.Wins, gate.Visible), Reasons: reasons, Bound: report.BoundSentences(v.Bound)})
	}
	type seg struct {
		Label, Baseline, Winners string
		Recall                   []string
	}
	var segs []seg
	for _, s := range r.Segments {
		vals := make([]string, len(s.Recall))
		for i, v := range s.Recall {
			vals[i] = f3(v)
		}
		segs = append(segs, seg{gate.Visible(s.Label), f3(s.Baseline), winners(s, gate.Visible), vals})
	}
	var names, warnings, notes []string
	for _, n := range r.Notes {
		notes = append(notes, gate.Visible(n))
	}
	for _, v := range r.Variants {
		names = append(names, gate.Visible(v.Name))
	}
	for _, x := range r.Warnings {
		warnings = append(warnings, gate.Visible(x))
	}
	deltas, latency := Charts(r)
	return htmlPage.Execute(w, map[string]any{
		"Headline": r.headline(gate.Visible), "RecallName": recall, "NDCGName": ndcg,
		"Base": gate.Visible(bl.Name), "BaseRecall": f3(bl.Summary.RecallAtN), "BaseNDCG": f3(bl.Summary.NDCGAtK), "BaseZero": len(bl.Summary.ZeroRecall),
		"BaseP50": ms(bl.Latency, false), "BaseP95": ms(bl.Latency, true),
		"Rows": rows, "Segments": segs, "Names": names, "Warnings": warnings, "Notes": notes,
		// The charts are gate/chart's SVG: its text is escaped there.
		"Deltas": template.HTML(deltas), "Latency": template.HTML(latency),
		"Winner": r.Winner.Sentence(gate.Visible, r.targetName()), "Fusions": r.fusionHTML(),
	})
}

var htmlPage = template.Must(template.New("experiment").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>recallgate experiment</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1f2328;max-width:1200px}
table{border-collapse:collapse;margin:12px 0}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:right;vertical-align:top}
td{white-space:nowrap}
th:first-child,td:first-child{text-align:left}
td.name{white-space:normal;overflow-wrap:anywhere;min-width:8em;max-width:16em}
.ci{display:block;font-size:12px;color:#57606a;white-space:nowrap}
tr.baseline td{background:#f6f8fa}
td.pass{color:#1a7f37}td.fail{color:#cf222e}td.inconclusive{color:#9a6700}
figure{margin:16px 0;overflow-x:auto}
.scroll{overflow-x:auto;max-width:100%}
.note{color:#57606a}
</style></head><body>
<h1>recallgate experiment</h1>
<p>{{.Headline}}</p>
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}<p class="note">An experiment informs, it does not gate (exit 0). Δ is variant − baseline with its 95% paired bootstrap interval beneath; p is the sign-flip test of the Δ before it; reg. and impr. count the regressed and improved queries; zero is the baseline's zero-recall queries and each variant's change (+ new, − recovered); p50 and p95 are latency per query; “gate” is what the config's [gate] would say of the variant as the head (the baseline's gate).</p>
<div class="scroll"><table id="leaderboard">
<thead><tr><th>variant</th><th>{{.RecallName}}</th><th title="Δ {{.RecallName}}: variant − baseline, its 95% paired bootstrap interval below">Δ {{.RecallName}}<span class="ci">95% CI</span></th><th title="sign-flip test of Δ {{.RecallName}}">p</th><th>{{.NDCGName}}</th><th title="Δ {{.NDCGName}}: variant − baseline, its 95% paired bootstrap interval below">Δ {{.NDCGName}}<span class="ci">95% CI</span></th><th title="sign-flip test of Δ {{.NDCGName}}">p</th><th title="regressed queries">reg.</th><th title="improved queries">impr.</th><th title="zero-recall queries: the baseline's count; a variant's change, + new and − recovered">zero</th><th title="p50 latency per query">p50</th><th title="p95 latency per query">p95</th><th title="baseline's gate: what the config's [gate] would say of the variant as the head">gate</th></tr></thead>
<tbody>
<tr class="baseline"><td class="name">{{.Base}} (baseline)</td><td>{{.BaseRecall}}</td><td></td><td></td><td>{{.BaseNDCG}}</td><td></td><td></td><td></td><td></td><td>{{.BaseZero}}</td><td>{{.BaseP50}}</td><td>{{.BaseP95}}</td><td></td></tr>
{{range .Rows}}<tr><td class="name">{{.Name}}</td><td>{{.Recall}}</td><td>{{.DRecall}}<span class="ci">{{.CIRecall}}</span></td><td>{{.P}}</td><td>{{.NDCG}}</td><td>{{.DNDCG}}<span class="ci">{{.CINDCG}}</span></td><td>{{.PNDCG}}</td><td>{{.Regressed}}</td><td>{{.Improved}}</td><td>{{.Zero}}</td><td>{{.P50}}</td><td>{{.P95}}</td><td class="{{.Gate}}">{{.Gate}}</td></tr>
{{end}}</tbody></table></div>
<p id="winner"><strong>{{.Winner}}</strong></p>
<figure id="deltas">{{.Deltas}}</figure>
<figure id="latency">{{.Latency}}</figure>
<h2>Flips</h2>
{{range .Rows}}<h3>{{.Name}}</h3>
<p>regressed ({{.Regressed}}): {{.RegIDs}}<br>improved ({{.Improved}}): {{.ImpIDs}}<br>finds the most of: {{.Wins}}{{if .Bound}}<br>what a pass rules out (one-sided 95% bound): {{.Bound}}{{end}}</p>
{{if .Reasons}}<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}{{.Fusions}}{{if .Segments}}<h2>Segments ({{.RecallName}})</h2>
<div class="scroll"><table><thead><tr><th>segment</th><th>baseline</th>{{range .Names}}<th>{{.}}</th>{{end}}<th>the most</th></tr></thead><tbody>
{{range .Segments}}<tr><td>{{.Label}}</td><td>{{.Baseline}}</td>{{range .Recall}}<td>{{.}}</td>{{end}}<td>{{.Winners}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{if .Warnings}}<h2>Warnings</h2><ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body></html>
`))
