package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/chart"
	"github.com/recallgate/recallgate/gate/visible"
)

// compareHTML writes one self-contained page: no external assets, works
// offline. The report model is embedded as JSON (html/template escapes it
// for the script context) and drawn with textContent only, so no text from
// the eval set or a retriever is ever parsed as HTML.
func compareHTML(w io.Writer, r *CompareReport) error {
	type reason struct{ Kind, Text string }
	var reasons []reason
	for i, t := range r.Reasons {
		reasons = append(reasons, reason{r.reasonKind(i), gate.Visible(t)})
	}
	// Text symbols, not emoji: they render without an emoji font.
	icon := map[string]string{string(gate.Fail): "✗", string(gate.Inconclusive): "⚠", string(gate.Pass): "✓"}[r.Verdict]
	n := names(r.depth())
	var rules [][7]string
	for _, ru := range r.Rules {
		c := ru.cells()
		seg := ru.Segment
		if seg == "" {
			seg = "all"
		}
		rules = append(rules, [7]string{gate.Visible(ru.label(n)), gate.Visible(seg), c[0], c[1], c[2], c[3], ru.Outcome})
	}
	svg, note := recallDumbbell(r)
	return htmlPage.Execute(w, struct {
		R       *CompareReport
		Icon    string
		Title   string
		Head    string
		Reasons []reason
		Rows    [][4]string
		Clip    int
		Rules   [][7]string
		Extra   []string
		SetPath string
		// Invisible are gate.InvisibleRanges, for the page's vis(), which
		// marks bidi controls and invisible characters in what it draws
		// from the model as gate.Visible does for the rest of the page.
		Invisible [][2]rune
		// LookAlike are gate.LookAlikeRanges, for the page's visID(), which
		// marks an id as gate.VisibleID does; Drawn the characters of the
		// report drawn as ASCII (visible.DrawnAsASCII), for the same.
		LookAlike [][2]rune
		Drawn     []rune
		// Chart is the base-against-head dumbbell (gate/chart escapes
		// every text it draws); ChartNote says what it leaves out.
		Chart     template.HTML
		ChartNote string
		// DataQuality is the data-quality heading and its lines.
		DataQuality  []string
		DQTitle      string
		Fingerprints string
		// Condensed is the set line's clause under unjudged = "condensed".
		Condensed string
	}{r, icon, verdictTitle(r.Verdict), headline(r, gate.Visible), reasons, summaryRows(r, gate.Visible), gate.PassageRunes, rules,
		nonEmpty(append(append(append(append(htmlDriftLines(r), setLines(r, gate.VisibleID)...), emptyAnswerLines(r, gate.VisibleID)...), refusalLines(r, gate.Visible, gate.VisibleID)...), distanceLine(r, gate.Visible), detectLine(r), boundLine(r), gate.Visible(holmLine(r)), gate.Visible(latencyLine(r.Latency)),
			rangeLine(r.Unjudged, r.Depth.Context), gate.Visible(notInCorpusLine(r.NotInCorpus, gate.VisibleID)), gate.Visible(unjudgedLine(r.Unjudged, r.Depth.Context, r.ReportFile)),
			gate.Visible(apartLine("Unstable between repeats of the base, not counted", r.Unstable)),
			gate.Visible(apartLine("Head unstable between repeats, judged at the worst repeat (the gate cannot pass)", r.HeadUnstable)), gate.Visible(contextLine(r)), gate.Visible(neverRetrievedLine(r.NeverRetrieved, gate.VisibleID)))...), gate.Visible(r.Set.Path), gate.InvisibleRanges, gate.LookAlikeRanges, drawnAsASCII(r), template.HTML(svg), note,
		dataQualityLines(r, gate.VisibleID), dataQualityTitle(r), fingerprintsLine(r), condensedClause(r.Unjudged.Mode)})
}

// drawnAsASCII are the characters of the report drawn as ASCII
// (visible.DrawnAsASCII), sorted: the page's visID marks them as
// gate.VisibleID does without a confusables table of its own.
func drawnAsASCII(r *CompareReport) []rune {
	var b strings.Builder
	if err := json.NewEncoder(&b).Encode(r); err != nil {
		return nil
	}
	seen := map[rune]bool{}
	out := []rune{}
	for _, c := range b.String() {
		if c >= 0x80 && !seen[c] {
			seen[c] = true
			if visible.DrawnAsASCII(c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// htmlDriftLines are baselineLines for the page, each on one line.
func htmlDriftLines(r *CompareReport) []string {
	var out []string
	for _, l := range baselineLines(r, gate.Visible, gate.VisibleID) {
		out = append(out, "Drift: "+strings.ReplaceAll(l, "\n", " · "))
	}
	return out
}

// ChartRows is the most queries the HTML report's dumbbell chart draws.
const ChartRows = 60

// recallDumbbell draws each query's recall@N on the base (hollow) and the
// head (filled), the flipped queries coloured by their change; with more
// than ChartRows queries the flipped come first and note says how many
// are left to the table.
func recallDumbbell(r *CompareReport) (svg, note string) {
	if len(r.Queries) == 0 {
		return "", ""
	}
	qs := make([]*CompareQuery, 0, len(r.Queries))
	for i := range r.Queries {
		qs = append(qs, &r.Queries[i])
	}
	if len(qs) > ChartRows {
		flipped := func(q *CompareQuery) int {
			if q.Change == string(gate.Unchanged) {
				return 1
			}
			return 0
		}
		slices.SortStableFunc(qs, func(a, b *CompareQuery) int { return flipped(a) - flipped(b) })
		note = fmt.Sprintf("The chart draws %d of %d queries, the flipped ones first; the table below has every query.", ChartRows, len(qs))
		qs = qs[:ChartRows]
	}
	n := names(r.depth()).recall
	d := chart.Dumbbell{Title: n + " per query: base → head", FromName: "base", ToName: "head", XLabel: n}
	for _, q := range qs {
		class := "same"
		if q.Change != string(gate.Unchanged) {
			class = q.Change
		}
		d.Rows = append(d.Rows, chart.Row{Label: q.ID, From: q.Base.RecallAtN, To: q.Head.RecallAtN, Class: class,
			Title: fmt.Sprintf("%s: %s %s → %s (%s)", q.ID, n, f3(q.Base.RecallAtN), f3(q.Head.RecallAtN), q.Change)})
	}
	return d.SVG(), note
}

// apartLine names the queries of a list kept apart, "" for none.
func apartLine(title string, ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%d): %s", title, len(ids), strings.Join(ids, ", "))
}

// nonEmpty drops the empty strings.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>recallgate: {{.R.Verdict}}</title>
<style>
html{overflow-y:scroll}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1f2328;max-width:1200px}
h1{font-size:20px;margin:0 0 4px} .fail{color:#b42318} .pass{color:#1a7f37} .inconclusive{color:#9a6700} .note{color:#57606a}
table{border-collapse:collapse;margin:8px 0} th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;cursor:pointer;user-select:none} td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.regressed td:first-child{border-left:4px solid #cf222e} tr.improved td:first-child{border-left:4px solid #1a7f37}
#queries{table-layout:fixed;width:100%} #queries td{overflow-wrap:anywhere}
tr.query{cursor:pointer} tr.query:hover{background:#f6f8fa} tr.open{background:#ddf4ff}
.filters button{margin:0 4px 4px 0;padding:3px 10px;border:1px solid #d0d7de;border-radius:12px;background:#fff;cursor:pointer}
.filters button.on{background:#0969da;color:#fff;border-color:#0969da}
#drill{border:1px solid #d0d7de;border-radius:6px;padding:12px;margin-top:12px} #drill[hidden]{display:none}
.lists{display:flex;gap:24px} .lists>div{flex:1 1 0} .lists ol{margin:4px 0;padding-left:28px} li.gold{font-weight:600}
.move{color:#57606a;font-size:12px;font-weight:400} .passage{color:#57606a;font-size:12px;font-weight:400;margin:2px 0 6px;white-space:pre-wrap}
.lists li{margin:0 0 4px}
.muted{color:#57606a}
#chart{margin:12px 0} #chart svg{max-width:100%;height:auto}
</style></head><body>
<h1 class="{{.R.Verdict}}" id="verdict">{{.Icon}} recallgate: {{.Title}} — {{.Head}}</h1>
{{range .Reasons}}<div class="{{.Kind}} reason">{{.Kind}}: {{.Text}}</div>{{end}}
<p class="muted" id="subtitle">{{.SetPath}} · {{.R.Set.Queries}} queries ({{.R.Set.Answerable}} answerable{{if .R.Set.Unanswerable}}, {{.R.Set.Unanswerable}} unanswerable kept out of the metrics{{end}}) · recall at N={{.R.Depth.Candidates}}, precision and nDCG at k={{.R.Depth.Context}}{{.R.Depth.Note}}{{.Condensed}} · paired over {{.R.Stats.N}}: p = {{printf "%.3f" .R.Stats.PValue}}, 95% CI [{{printf "%+.3f" .R.Stats.CILow}}, {{printf "%+.3f" .R.Stats.CIHigh}}], {{.R.Stats.Wins}} up, {{.R.Stats.Losses}} down, {{.R.Stats.Ties}} unchanged</p>
{{if .DataQuality}}<h2 id="data-quality">{{.DQTitle}}</h2><ul>
{{range .DataQuality}}<li>{{.}}</li>
{{end}}</ul>
{{end}}<table id="summary"><tr><th>metric</th><th>base</th><th>head</th><th>Δ</th></tr>
{{range .Rows}}<tr><td>{{index . 0}}</td><td class="num">{{index . 1}}</td><td class="num">{{index . 2}}</td><td class="num">{{index . 3}}</td></tr>
{{end}}</table>
{{if .Chart}}<figure id="chart">{{.Chart}}{{if .ChartNote}}<figcaption class="muted">{{.ChartNote}}</figcaption>{{end}}</figure>
{{end}}{{range .Extra}}<p class="muted extra">{{.}}</p>
{{end}}{{if .Rules}}<details id="rules"><summary>Gate rules</summary><table><tr><th>rule</th><th>segment</th><th>base</th><th>head</th><th>value</th><th>limit</th><th>outcome</th></tr>
{{range .Rules}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td class="num">{{index . 2}}</td><td class="num">{{index . 3}}</td><td class="num">{{index . 4}}</td><td class="num">{{index . 5}}</td><td class="{{index . 6}}">{{index . 6}}</td></tr>
{{end}}</table></details>
{{end}}<div class="filters" id="filters">
<button data-filter="all" class="on">all</button><button data-filter="regressed">regressed</button><button data-filter="improved">improved</button><button data-filter="zero">zero recall</button><button data-filter="ranking">ranking only</button>
<select id="segment"><option value="">every segment</option></select>
<span id="count" class="muted"></span>
</div>
<table id="queries"><colgroup><col style="width:8%"><col style="width:40%"><col style="width:10%"><col style="width:10%"><col style="width:9%"><col style="width:10%"><col style="width:13%"></colgroup><thead><tr>
<th data-key="id">query</th><th data-key="query">text</th><th data-key="base">recall base</th><th data-key="head">recall head</th><th data-key="delta">Δ</th><th data-key="ndcg">nDCG head</th><th data-key="change">change</th>
</tr></thead><tbody></tbody></table>
<section id="drill" hidden></section>
{{if .Fingerprints}}<p class="muted" id="fingerprints">{{.Fingerprints}}</p>
{{end}}<script id="data" type="application/json">{{.R}}</script>
<script>
(function(){
"use strict";
var R = JSON.parse(document.getElementById("data").textContent);
var N = R.depth.candidates, K = R.depth.context;
var zero = {}; (R.summary.head.zero_recall||[]).forEach(function(id){zero[id]=true;});
var state = {filter:"all", segment:"", sort:"", desc:false, open:""};
var INVIS = {{.Invisible}};
function invisible(c){for (var i=0;i<INVIS.length;i++){if (c<INVIS[i][0]) return false; if (c<=INVIS[i][1]) return true;} return false;}
function shaping(c){return c>=0x80 && !/\s/.test(String.fromCodePoint(c)) && !invisible(c);}
function vis(s){
  var cs=Array.from(s), out="";
  for (var i=0;i<cs.length;i++){
    var c=cs[i].codePointAt(0), p=i>0?cs[i-1].codePointAt(0):-1, n=i+1<cs.length?cs[i+1].codePointAt(0):-1;
    var kept=(c===0x200C||c===0x200D) ? (p>=0&&n>=0&&shaping(p)&&shaping(n)) : (c>=0xFE00&&c<=0xFE0F) ? (p>=0&&shaping(p)) : false;
    var ctl=(c<0x20&&c!==9&&c!==10&&c!==13)||(c>=0x7F&&c<=0x9F);
    out += ((invisible(c)&&!kept)||ctl) ? "⟨U+"+("000"+c.toString(16).toUpperCase()).slice(-Math.max(4,c.toString(16).length))+"⟩" : cs[i];
  }
  return out;
}
var LOOK = {{.LookAlike}};
function inRanges(c, rs){for (var i=0;i<rs.length;i++){if (c<rs[i][0]) return false; if (c<=rs[i][1]) return true;} return false;}
function mark(c){var h=c.toString(16).toUpperCase(); return "⟨U+"+("000"+h).slice(-Math.max(4,h.length))+"⟩";}
var DRAWN = {{.Drawn}};
function drawn(c){return DRAWN.indexOf(c)>=0;}
function asASCII(s){var cs=Array.from(s), whole=true; for (var i=0;i<cs.length;i++){var c=cs[i].codePointAt(0); if (/^[A-Za-z]$/.test(cs[i])) return true; if (c>=0x80 && /\p{L}/u.test(cs[i]) && !drawn(c)) whole=false;} return whole;}
function visID(s){
  var cs=Array.from(vis(String(s))), lo=0, hi=cs.length, out="", other=asASCII(String(s));
  while (lo<hi && /\s/.test(cs[lo])) lo++;
  while (hi>lo && /\s/.test(cs[hi-1])) hi--;
  var onASCII=false;
  for (var i=0;i<cs.length;i++){var c=cs[i].codePointAt(0), mn=/\p{Mn}/u.test(cs[i]); out += (i<lo||i>=hi||inRanges(c, LOOK)||(mn&&onASCII)||(other&&drawn(c))) ? mark(c) : cs[i]; onASCII=/^[A-Za-z0-9]$/.test(cs[i])||(mn&&onASCII);}
  return out;
}
function el(tag, text, cls){var e=document.createElement(tag); if(text!==undefined&&text!==null) e.textContent=vis(String(text)); if(cls) e.className=cls; return e;}
function f3(x){return (Math.round(x*1000)/1000).toFixed(3);}
function signed(x){var s=f3(x); if (s==="0.000"||s==="-0.000") return "±0.000"; return x>0 ? "+"+s : s;}
var CAUSE = {"retrieval-miss":"retrieval miss","ranking-miss":"ranking miss","missing-from-corpus":"not in corpus","context-miss":"context miss"};
var CLIP = {{.Clip}};
var UNANSWERABLE = (R.unanswerable||[]).length;
function change(q){return q.ranking_only ? "ranking only" : (q.waived ? "waived" : q.change);}
var segs = {};
R.queries.forEach(function(q){(q.segments||[]).forEach(function(s){segs[s]=true;}); if(q.source) segs["source: "+q.source]=true;});
var sel = document.getElementById("segment");
Object.keys(segs).sort().forEach(function(s){var o=el("option", s); o.value=s; sel.appendChild(o);});
function keep(q){
  if (state.filter==="regressed" && !(q.change==="regressed" && !q.waived)) return false;
  if (state.filter==="improved" && q.change!=="improved") return false;
  if (state.filter==="zero" && !zero[q.id]) return false;
  if (state.filter==="ranking" && !q.ranking_only) return false;
  if (state.segment) {
    var s = (q.segments||[]).slice(); if (q.source) s.push("source: "+q.source);
    if (s.indexOf(state.segment) < 0) return false;
  }
  return true;
}
function key(q, k){
  switch(k){case "base": return q.base.` + gate.MetricRecall + `; case "head": return q.head.` + gate.MetricRecall + `; case "delta": return q.delta.` + gate.MetricRecall + `;
  case "ndcg": return q.head.` + gate.MetricNDCG + `; case "change": return change(q); case "query": return q.query||""; default: return q.id;}
}
function draw(){
  var rows = R.queries.filter(keep);
  if (state.sort) rows.sort(function(a,b){var x=key(a,state.sort), y=key(b,state.sort); var c = x<y?-1:x>y?1:0; return state.desc?-c:c;});
  var tb = document.querySelector("#queries tbody"); tb.textContent="";
  rows.forEach(function(q){
    var tr = el("tr", null, "query "+(q.waived?"":q.change)+(state.open===q.id?" open":"")); tr.dataset.id=q.id;
    [visID(q.id), q.query, f3(q.base.` + gate.MetricRecall + `), f3(q.head.` + gate.MetricRecall + `), signed(q.delta.` + gate.MetricRecall + `), f3(q.head.` + gate.MetricNDCG + `), change(q)].forEach(function(v,i){
      tr.appendChild(el("td", v, (i>=2&&i<=5)?"num":""));});
    tr.addEventListener("click", function(){ open(q.id); });
    tb.appendChild(tr);
  });
  document.getElementById("count").textContent = rows.length + " of " + R.queries.length + " answerable queries" +
    (UNANSWERABLE ? " (" + UNANSWERABLE + " unanswerable, kept out of the metrics)" : "");
}
var clipped = false;
function list(title, q, side, other){
  var box = el("div"); box.appendChild(el("strong", title));
  var ol = el("ol"), docs = q[side].docs||[], otherDocs = q[other].docs||[];
  docs.forEach(function(d, i){
    var grade = q.grades ? q.grades[d] : undefined;
    var li = el("li", (grade>0 ? "★ " : "") + visID(d), grade>0 ? "gold" : "");
    if (grade>0) {
      var j = otherDocs.indexOf(d);
      li.appendChild(el("span", " (grade "+grade+", "+other+" rank "+(j<0?"—":(j+1))+")", "move"));
    }
    var p = q[side].passages && q[side].passages[d];
    if (p) { p = String(p).trim(); li.appendChild(el("div", p, "passage")); if (p.slice(-1)==="…") clipped = true; }
    ol.appendChild(li);
  });
  if (!docs.length) box.appendChild(el("div", "nothing returned", "muted"));
  box.appendChild(ol); return box;
}
function open(id){
  state.open = id; draw();
  var q = R.queries.filter(function(x){return x.id===id;})[0], d = document.getElementById("drill");
  d.textContent = ""; d.hidden = false;
  d.appendChild(el("h2", visID(q.id) + ": " + (q.query||"")));
  var gold = el("div"); gold.appendChild(el("strong", "gold documents: "));
  Object.keys(q.grades||{}).sort(function(a,b){return q.grades[b]-q.grades[a] || (a<b?-1:1);}).forEach(function(g){ gold.appendChild(el("span", visID(g)+" ("+q.grades[g]+")  ")); });
  d.appendChild(gold);
  (q.moves||[]).forEach(function(m){ d.appendChild(el("div", (CAUSE[m.cause]||m.cause)+": "+visID(m.doc)+" rank "+(m.base_rank||"—")+" → "+(m.head_rank||"—")+(m.took_its_place?", replaced by "+visID(m.took_its_place):""), "move")); });
  clipped = false;
  var lists = el("div", null, "lists"); lists.appendChild(list("base", q, "base", "head")); lists.appendChild(list("head", q, "head", "base")); d.appendChild(lists);
  if (clipped) d.appendChild(el("div", "Passages are clipped to " + CLIP + " characters; a clipped one ends with …", "muted"));
}
document.querySelectorAll("#filters button").forEach(function(b){
  b.addEventListener("click", function(){
    state.filter = b.dataset.filter;
    document.querySelectorAll("#filters button").forEach(function(x){x.className = x===b ? "on" : "";});
    draw();
  });
});
sel.addEventListener("change", function(){ state.segment = sel.value; draw(); });
document.querySelectorAll("#queries th").forEach(function(th){
  th.addEventListener("click", function(){ var k=th.dataset.key; state.desc = state.sort===k ? !state.desc : false; state.sort=k; draw(); });
});
draw();
// #filter=regressed&query=q07 replays those clicks (used by the browser test).
var h = new URLSearchParams(location.hash.slice(1));
if (h.get("filter")) { var b = document.querySelector('#filters button[data-filter="'+h.get("filter")+'"]'); if (b) b.click(); }
if (h.get("query")) { var tr = document.querySelector('#queries tr[data-id="'+CSS.escape(h.get("query"))+'"]'); if (tr) tr.click(); }
})();
</script>
</body></html>
`))
