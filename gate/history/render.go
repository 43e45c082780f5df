package history

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/chart"
	"github.com/recallgate/recallgate/gate/report"
)

// Format is a rendering of a history: one of Formats.
type Format = report.Format

// The formats of Render.
const (
	HTML     = report.HTML
	Markdown = report.Markdown
	JSON     = report.JSON
)

// Renderers are the history's formats, the default first.
var Renderers = report.NewRenderers("a history",
	report.Renderer[[]Entry]{Format: HTML, Write: renderHTML},
	report.Renderer[[]Entry]{Format: Markdown, Write: renderMarkdown},
	report.Renderer[[]Entry]{Format: JSON, Write: renderJSON},
)

// ParseFormat accepts html, markdown (or md) and json.
func ParseFormat(s string) (Format, error) { return Renderers.Parse(s) }

// Recent is how many of a gate's newest entries the tables list.
const Recent = 10

// MermaidRuns is how many of a gate's newest runs the Markdown's Mermaid
// chart draws at most (GitHub renders a longer one unreadably small).
const MermaidRuns = 30

// Render writes the history in format f: one section per gate.
func Render(w io.Writer, entries []Entry, f Format) error { return Renderers.Write(w, entries, f) }

// gateRuns are one gate's entries, in time order.
type gateRuns struct {
	Label   string
	Entries []Entry
}

// byGate splits the entries by gate, the gates sorted by label; a
// history of one gate is not copied.
func byGate(entries []Entry) []gateRuns {
	counts := map[string]int{}
	for i := range entries {
		counts[entries[i].Gate]++
	}
	labels := make([]string, 0, len(counts))
	for l := range counts {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	if len(labels) == 1 {
		return []gateRuns{{Label: labels[0], Entries: entries}}
	}
	out := make([]gateRuns, len(labels))
	idx := make(map[string]int, len(labels))
	for i, l := range labels {
		out[i] = gateRuns{Label: l, Entries: make([]Entry, 0, counts[l])}
		idx[l] = i
	}
	for _, e := range entries {
		g := &out[idx[e.Gate]]
		g.Entries = append(g.Entries, e)
	}
	return out
}

// title names the gate as a heading does.
func (g gateRuns) title() string {
	if g.Label == "" {
		return "recallgate.toml"
	}
	return g.Label
}

// breaks are where a gate's runs stop being comparable: the set
// fingerprint or a depth changed since the run before (errors, which
// measured nothing, are skipped).
func breaks(entries []Entry) []chart.Break {
	var out []chart.Break
	var last *Entry
	for i := range entries {
		e := &entries[i]
		if e.IsError() {
			continue
		}
		if last != nil {
			var what []string
			if !eq(last.Set, e.Set) {
				what = append(what, "set")
			}
			if *last.Candidates != *e.Candidates || *last.Context != *e.Context {
				what = append(what, "depth")
			}
			if len(what) > 0 {
				out = append(out, chart.Break{Index: i, Label: strings.Join(what, " and ") + " changed"})
			}
		}
		last = e
	}
	return out
}

// metricNames name the metrics at the depths of the gate's newest run.
type metricNames struct{ Recall, Precision, NDCG string }

func depthNames(entries []Entry) metricNames {
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; !e.IsError() {
			return metricNames{fmt.Sprintf("recall@%d", *e.Candidates), fmt.Sprintf("precision@%d", *e.Context), fmt.Sprintf("nDCG@%d", *e.Context)}
		}
	}
	return metricNames{"recall@N", "precision@k", "nDCG@k"}
}

// stamp is an entry's time as pages show it: "2026-12-01 02:00 UTC".
func (e *Entry) stamp() string { return e.Time[:10] + " " + e.Time[11:16] + " UTC" }

// shortCommit is the commit's first 12 digits, "—" when unknown.
func (e *Entry) shortCommit() string {
	if e.Commit == nil {
		return "—"
	}
	return shortHex(*e.Commit)
}

func shortHex(s string) string {
	s = strings.TrimPrefix(s, "sha256:")
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// verdictText is the verdict with an error's exit code and stage.
func (e *Entry) verdictText() string {
	if e.Error != nil {
		return fmt.Sprintf("error (exit %d, %s)", e.Error.ExitCode, e.Error.Stage)
	}
	return e.Verdict
}

// f3 is a score with three decimals, "—" when there is none.
func f3(v *float64) string {
	if v == nil {
		return "—"
	}
	if s := fmt.Sprintf("%.3f", *v); s != "-0.000" {
		return s
	}
	return "0.000"
}

func count(v *int) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprint(*v)
}

// row is one entry as the tables show it; Note is an error's message
// (untrusted text: each format escapes it).
type row struct {
	Time, Commit, Verdict, Class, Recall, Precision, NDCG, Zero, Facts, Latency, Set, Note string
}

func (e *Entry) row() row {
	r := row{Time: e.stamp(), Commit: e.shortCommit(), Verdict: e.verdictText(), Class: e.Verdict,
		Recall: f3(e.RecallAtN), Precision: f3(e.PrecisionAtK), NDCG: f3(e.NDCGAtK), Zero: count(e.ZeroRecall), Facts: "—", Latency: "—", Set: "—"}
	switch {
	case e.FactsFound != nil && *e.FactsTotal == 0:
		r.Facts = "n/a" // the set names no required facts: nothing to find
	case e.FactsFound != nil:
		r.Facts = fmt.Sprintf("%d of %d", *e.FactsFound, *e.FactsTotal)
	}
	if e.LatencyP95 != nil {
		r.Latency = fmt.Sprintf("%.1f ms", *e.LatencyP95)
	}
	if e.Set != nil {
		r.Set = shortHex(*e.Set)
	}
	if e.Error != nil {
		r.Note = e.Error.Message
	}
	return r
}

// recent are the gate's newest Recent entries, newest first.
func recent(entries []Entry) []row {
	var out []row
	for i := len(entries) - 1; i >= 0 && len(out) < Recent; i-- {
		out = append(out, entries[i].row())
	}
	return out
}

// span says how many runs over which days: "12 runs (1 error), 2026-11-20 … 2026-12-01".
func span(entries []Entry) string {
	errs := 0
	for i := range entries {
		if entries[i].IsError() {
			errs++
		}
	}
	s := fmt.Sprintf("%d %s", len(entries), plural(len(entries), "run", "runs"))
	if errs > 0 {
		s += fmt.Sprintf(" (%d %s)", errs, plural(errs, "error", "errors"))
	}
	return s + fmt.Sprintf(", %s … %s", entries[0].Time[:10], entries[len(entries)-1].Time[:10])
}

var plural = gate.Plural

// trend is the gate's line chart: recall@N and nDCG@k per entry, the
// verdict as each mark's class, an error a gap in both lines, a change of
// set or depth a break.
func trend(g gateRuns) chart.Lines {
	names := depthNames(g.Entries)
	recall := chart.LineSeries{Name: names.Recall, Class: "recall"}
	ndcg := chart.LineSeries{Name: names.NDCG, Class: "ndcg"}
	labels := make([]string, len(g.Entries))
	for i := range g.Entries {
		e := &g.Entries[i]
		labels[i] = e.Time[:10]
		head := e.stamp() + " · commit " + e.shortCommit() + " · " + e.verdictText()
		if e.IsError() {
			p := chart.LinePoint{Gap: true, Class: "error", Title: head + ": " + e.Error.Message}
			recall.Points, ndcg.Points = append(recall.Points, p), append(ndcg.Points, p)
			continue
		}
		recall.Points = append(recall.Points, chart.LinePoint{Value: *e.RecallAtN, Class: e.Verdict,
			Title: fmt.Sprintf("%s · recall@%d %s", head, *e.Candidates, f3(e.RecallAtN))})
		ndcg.Points = append(ndcg.Points, chart.LinePoint{Value: *e.NDCGAtK, Class: e.Verdict,
			Title: fmt.Sprintf("%s · nDCG@%d %s", head, *e.Context, f3(e.NDCGAtK))})
	}
	return chart.Lines{Title: names.Recall + " and " + names.NDCG + " over time · " + g.title(), YLabel: "mean over the set", XLabels: labels,
		Series: []chart.LineSeries{recall, ndcg}, Breaks: breaks(g.Entries)}
}

var page = template.Must(template.New("history").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>recallgate history</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1f2328;max-width:1200px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 4px} .muted{color:#57606a}
table{border-collapse:collapse;margin:8px 0} th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa} td.num{text-align:right;font-variant-numeric:tabular-nums} td.note{overflow-wrap:anywhere;max-width:30em}
td.fail{color:#b42318} td.pass{color:#1a7f37} td.inconclusive{color:#9a6700} td.error{color:#57606a}
svg.chart{max-width:100%;height:auto}
</style></head><body>
<h1>recallgate history</h1>
{{if not .Gates}}<p class="muted">No runs yet: recallgate history add puts a report's run here.</p>
{{end}}{{range .Gates}}<section class="gate">
<h2>{{.Title}}</h2>
<p class="muted">{{.Span}}. Each mark is a run, coloured by its verdict; an error is a gap (it measured nothing){{if .Breaks}}; a dashed line is where the set or a depth changed: numbers on either side are not comparable{{end}}.</p>
{{.SVG}}
<table><tr><th>time</th><th>commit</th><th>verdict</th><th>{{.Names.Recall}}</th><th>{{.Names.Precision}}</th><th>{{.Names.NDCG}}</th><th>zero recall</th><th>facts found</th><th>latency p95</th><th>set</th><th>error</th></tr>
{{range .Rows}}<tr><td>{{.Time}}</td><td>{{.Commit}}</td><td class="{{.Class}}">{{.Verdict}}</td><td class="num">{{.Recall}}</td><td class="num">{{.Precision}}</td><td class="num">{{.NDCG}}</td><td class="num">{{.Zero}}</td><td class="num">{{.Facts}}</td><td class="num">{{.Latency}}</td><td>{{.Set}}</td><td class="note">{{.Note}}</td></tr>
{{end}}</table>
<p class="muted">The newest {{len .Rows}} of {{len .Entries}} runs.</p>
</section>
{{end}}</body></html>
`))

func renderHTML(w io.Writer, entries []Entry) error {
	type section struct {
		Title, Span string
		Names       metricNames
		SVG         template.HTML
		Breaks      bool
		Rows        []row
		Entries     []Entry
	}
	var gates []section
	for _, g := range byGate(entries) {
		l := trend(g)
		rows := recent(g.Entries)
		for i := range rows {
			rows[i].Note = gate.Visible(rows[i].Note)
		}
		// chart.Lines escapes every text it draws (gate/chart).
		gates = append(gates, section{Title: gate.Visible(g.title()), Span: span(g.Entries), Names: depthNames(g.Entries),
			SVG: template.HTML(l.SVG()), Breaks: len(l.Breaks) > 0, Rows: rows, Entries: g.Entries})
	}
	return page.Execute(w, struct{ Gates []section }{gates})
}

// renderMarkdown writes per gate a heading, a Mermaid line chart of the
// newest comparable runs and a table of the newest entries. Nothing from
// the history reaches the Mermaid block but dates and numbers, and those
// through report.MermaidLabel; the gate's label and error messages go
// through report.EscapeMarkdown.
func renderMarkdown(w io.Writer, entries []Entry) error {
	var b strings.Builder
	b.WriteString("## recallgate history\n")
	if len(entries) == 0 {
		b.WriteString("\nNo runs yet: `recallgate history add` puts a report's run here.\n")
	}
	gates := byGate(entries)
	sections := make([]string, len(gates))
	total := b.Len()
	for i, g := range gates {
		sections[i] = markdownSection(g)
		total += len(sections[i])
	}
	shown := make([]bool, len(gates))
	left := 0
	if total <= MaxMarkdown {
		for i := range shown {
			shown[i] = true
		}
	} else {
		// The gates run most lately first, while they fit with the note.
		order := make([]int, len(gates))
		for i := range order {
			order[i] = i
		}
		newest := func(i int) string { e := gates[i].Entries; return e[len(e)-1].Time }
		slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(newest(y), newest(x)) })
		size := b.Len() + markdownNoteRoom
		for _, i := range order {
			if size+len(sections[i]) > MaxMarkdown {
				break
			}
			size += len(sections[i])
			shown[i] = true
		}
	}
	var runs int
	var lastLeft string
	for i, g := range gates {
		if shown[i] {
			b.WriteString(sections[i])
			continue
		}
		left++
		runs += len(g.Entries)
		lastLeft = max(lastLeft, g.Entries[len(g.Entries)-1].Time)
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n**%d %s not shown** (%d %s, the newest on %s): this summary keeps under %d KiB (a GitHub job summary takes 1 MiB), so it shows the %d %s run most lately. `recallgate history render --format html` or `--format json` has every gate.\n",
			left, plural(left, "gate", "gates"), runs, plural(runs, "run", "runs"), lastLeft[:10], MaxMarkdown>>10, len(gates)-left, plural(len(gates)-left, "gate", "gates"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MaxMarkdown is the most bytes `history render --format markdown` writes:
// half of the 1 MiB a GitHub job summary takes, which docs/history.md
// pipes it into (the gate's own report may share the step). A longer
// history shows the gates run most lately, whole, and says how many it
// left out.
const MaxMarkdown = 512 << 10

// markdownNoteRoom is room kept for the note on the gates left out.
const markdownNoteRoom = 512

// markdownSection is one gate's Markdown: its heading, span, chart and
// table of its newest runs.
func markdownSection(g gateRuns) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s\n\n%s.\n", report.EscapeMarkdown(g.title()), span(g.Entries))
	mermaid(&b, g)
	n := depthNames(g.Entries)
	fmt.Fprintf(&b, "\n| time | commit | verdict | %s | %s | %s | zero recall | facts found | latency p95 | set | error |\n|---|---|---|--:|--:|--:|--:|--:|--:|---|---|\n", n.Recall, n.Precision, n.NDCG)
	for _, r := range recent(g.Entries) {
		// Hashes as code spans: they copy as written and link nothing.
		commit, set := r.Commit, r.Set
		if commit != "—" {
			commit = report.MarkdownID(commit)
		}
		if set != "—" {
			set = report.MarkdownID(set)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Time, commit, r.Verdict, r.Recall, r.Precision, r.NDCG, r.Zero, r.Facts, r.Latency, set, report.EscapeMarkdown(r.Note))
	}
	if n := len(g.Entries); n > Recent {
		fmt.Fprintf(&b, "\nThe newest %d of %d runs.\n", Recent, n)
	}
	return b.String()
}

// mermaid draws the gate's newest runs since its last break (at most
// MermaidRuns, errors left out: Mermaid's line chart has no gaps) as an
// xychart-beta with two lines, recall@N and nDCG@k.
func mermaid(b *strings.Builder, g gateRuns) {
	from := 0
	if bs := breaks(g.Entries); len(bs) > 0 {
		from = bs[len(bs)-1].Index
	}
	var runs []*Entry
	errs := 0
	for i := from; i < len(g.Entries); i++ {
		if g.Entries[i].IsError() {
			errs++
			continue
		}
		runs = append(runs, &g.Entries[i])
	}
	if len(runs) > MermaidRuns {
		runs = runs[len(runs)-MermaidRuns:]
	}
	if len(runs) == 0 {
		return
	}
	seen := map[string]int{}
	var labels, recall, ndcg []string
	for _, e := range runs {
		day := e.Time[5:10]
		seen[day]++
		if n := seen[day]; n > 1 {
			day += fmt.Sprintf(".%d", n)
		}
		labels = append(labels, fmt.Sprintf("%q", report.MermaidLabel(day)))
		recall, ndcg = append(recall, f3(e.RecallAtN)), append(ndcg, f3(e.NDCGAtK))
	}
	n := depthNames(g.Entries)
	fmt.Fprintf(b, "\n```mermaid\n---\nconfig:\n  themeVariables:\n    xyChart:\n      plotColorPalette: \"#4a6fa5, #b26a00\"\n---\nxychart-beta\n    title \"%s (blue) and %s (orange), the newest %d %s\"\n    x-axis [%s]\n    y-axis \"mean over the set\" 0 --> 1\n    line [%s]\n    line [%s]\n```\n",
		n.Recall, n.NDCG, len(runs), plural(len(runs), "run", "runs"), strings.Join(labels, ", "), strings.Join(recall, ", "), strings.Join(ndcg, ", "))
	if from > 0 {
		fmt.Fprintf(b, "\nThe set or a depth changed on %s: the chart starts there (the runs before are not comparable).\n", g.Entries[from].Time[:10])
	}
	if errs > 0 {
		fmt.Fprintf(b, "\n%d %s in that span not drawn (an error measured nothing).\n", errs, plural(errs, "error", "errors"))
	}
}

// Document is the JSON rendering of a history.
type Document struct {
	// Tool and Command are "recallgate" and "history", so a reader tells
	// this document from a report.
	Tool    string `json:"tool"`
	Command string `json:"command"`
	// Entries are the history's, oldest first.
	Entries []Entry `json:"entries"`
}

func renderJSON(w io.Writer, entries []Entry) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(true)
	return enc.Encode(Document{Tool: "recallgate", Command: "history", Entries: append([]Entry{}, entries...)})
}

// ReadDocument reads back what Render wrote as JSON, as strictly as a
// history file: unknown keys refused and every entry checked.
func ReadDocument(rd io.Reader, name string) (*Document, error) {
	data, err := gate.ReadAllLimited(rd, name, "history document", MaxEntries*MaxLineBytes)
	if err != nil {
		return nil, err
	}
	var d Document
	if err := gate.DecodeStrict(data, &d); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("read history document: %w", err)}
	}
	if d.Tool != "recallgate" || d.Command != "history" || len(d.Entries) > MaxEntries {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("not a recallgate history (tool %.20q, command %.20q, %d entries)", d.Tool, d.Command, len(d.Entries))}
	}
	for i := range d.Entries {
		if err := d.Entries[i].check(); err != nil {
			return nil, &gate.InputError{File: name, Field: fmt.Sprintf("entries[%d]", i), Err: err}
		}
	}
	return &d, nil
}
