package label

import "html/template"

// docTemplate shows one whole document.
var docTemplate = template.Must(template.New("doc").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.ID}}</title>
<style>body{font:15px/1.55 system-ui,sans-serif;margin:24px auto;max-width:760px;color:#1f2328} pre{white-space:pre-wrap;font:inherit}</style>
</head><body><p><code>{{.ID}}</code></p><h1>{{.Title}}</h1><pre>{{.Text}}</pre></body></html>
`))

// pageTemplate is the labelling page: one query at a time, its pooled
// documents as cards, everything drawn with textContent from /api/state.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>recallgate label: {{.Set}}</title>
<style>
html{overflow-y:scroll}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2328}
#top{position:sticky;top:0;z-index:1;background:#fff;box-shadow:0 1px 0 #d0d7de}
header{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:10px 24px;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
#heading{padding:8px 24px 6px;max-width:1000px}
.others{font-size:12px;color:#57606a;margin-left:8px} .judge{display:block;font-size:12px;color:#9a6700;margin-top:2px} .gold{font-size:12px;color:#1a7f37;margin-left:8px}
.searched{font-size:12px;color:#8250df;margin-left:8px}
#search input{width:60%;font:inherit;padding:3px 6px}
main{padding:16px 24px;max-width:1000px}
h1{font-size:20px;margin:0 0 4px} .muted{color:#57606a} .keys{font-size:12px;color:#57606a}
kbd{border:1px solid #d0d7de;border-bottom-width:2px;border-radius:4px;padding:0 4px;font:12px ui-monospace,monospace;background:#fff}
.card{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;margin:8px 0}
.card.focus{outline:3px solid #0969da;outline-offset:1px}
.card .doc{font:12px ui-monospace,monospace;color:#57606a}
.card .title{font-weight:600}
.card .passage{margin:4px 0}
mark{background:#fff8c5;padding:0 1px}
.grades button{margin-right:4px;min-width:34px;padding:2px 8px;border:1px solid #d0d7de;border-radius:6px;background:#fff;cursor:pointer}
.grades button.on{background:#0969da;border-color:#0969da;color:#fff}
.grades{margin-top:6px} .grades a{margin-left:8px;font-size:12px}
#error{background:#ffebe9;border:1px solid #ff8182;color:#82071e;padding:8px 12px;border-radius:6px;margin:8px 0}
#error[hidden],#dq[hidden],span[hidden]{display:none}
#dq{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px;border-radius:6px;margin:8px 0}
.unanswerable{color:#9a6700;font-weight:600}
textarea{width:100%;min-height:40px;font:inherit}
</style></head><body>
<div id="top">
<header>
<strong>recallgate label</strong>
<span id="progress" class="muted"></span>
<span id="who" class="muted"></span>
<span class="keys"><kbd>j</kbd>/<kbd>k</kbd> document · <kbd id="gradekeys">0</kbd> grade · <kbd>n</kbd>/<kbd>p</kbd> query · <kbd>s</kbd> skip · <span id="labelkeys"><kbd>u</kbd> unanswerable · <kbd>?</kbd> unsure · </span><kbd>z</kbd>/<kbd>Backspace</kbd> undo · <span id="searchkeys"><kbd>/</kbd> search · <kbd>x</kbd> more documents · </span><span id="sectionkeys"><kbd>h</kbd> the document's sections · </span><kbd>e</kbd> note<span id="confirmkey" hidden> · <kbd>c</kbd> confirm</span></span>
</header>
<div id="heading">
<p id="position" class="muted"></p>
<h1 id="query"></h1>
<div id="guideline" class="muted"></div>
</div>
</div>
<main>
<div id="error" hidden></div>
<div id="reloaded" class="muted" hidden></div>
<div id="status"></div>
<div id="dq" hidden></div>
<div id="cards"></div>
<div id="search" hidden><p><label for="q">Search the corpus</label> <input id="q" placeholder="words of the answer, then Enter"></p><div id="results"></div></div>
<p id="setnote" class="muted"></p>
<p><label for="note">Your note</label><br><textarea id="note" placeholder="why this grade, what is missing…"></textarea></p>
</main>
<script>
(function(){
"use strict";
var S = null, qi = 0, ci = 0, busy = Promise.resolve(), shownAt = Date.now(), found = [];
function el(tag, text, cls){var e=document.createElement(tag); if(text!==undefined&&text!==null) e.textContent=String(text); if(cls) e.className=cls; return e;}
function showError(msg){var e=document.getElementById("error"); e.textContent=msg||""; e.hidden=!msg;}
// T is this run's key, from the address recallgate label printed: every
// call carries it, so a page that does not know it can change nothing.
var T = new URLSearchParams(location.search).get("t") || "";
function call(path, body){
  return fetch(path, body===undefined ? {headers:{"X-Recallgate-Token":T}} : {method:"POST", headers:{"Content-Type":"application/json","X-Recallgate-Token":T}, body:JSON.stringify(body)})
    .then(function(r){ return r.json().then(function(j){ if(!r.ok) throw new Error(j.error||r.statusText); return j; }); });
}
function api(path, body){
  return call(path, body).then(function(j){ S=j; showError(""); draw(); }, function(err){ showError(err.message); });
}
function say(msg){ var e=document.getElementById("reloaded"); e.textContent=msg||""; e.hidden=!msg; }
function q(){ return S.queries[qi]; }
function gradeName(n){ return S.grade_names && S.grade_names[n] ? n + " " + S.grade_names[n] : String(n); }
function grades(){ return S.binary ? [0,1] : [0,1,2,3]; }
function cards(){ return q().candidates.concat(found); }
function card(c, i, box){
  var d = el("div", null, "card" + (i===ci ? " focus" : "")); d.dataset.doc = c.doc;
  if (c.grade !== null && c.grade !== undefined) d.dataset.grade = c.grade;
  var head = el("div", c.doc, "doc");
  if (c.others) head.appendChild(el("span", c.others.map(function(o){ return o.labeller + " " + o.grade; }).join(" · "), "others"));
  if (c.judges) c.judges.forEach(function(j){ head.appendChild(el("span", j.judge + " (a program, not a person; " + j.fingerprint + ") grades it " + j.grade + (j.reason ? ": " + j.reason : ""), "judge")); });
  if (c.gold !== undefined && c.gold !== null) head.appendChild(el("span", "gold " + c.gold, "gold"));
  if (c.fromSections) head.appendChild(el("span", c.in_pool ? "a section (also in the pool)" : "a section of the document", "searched"));
  if (c.searched || c.fromSearch) head.appendChild(el("span", c.in_pool ? "from search (also in the pool)" : "found by search", "searched"));
  d.appendChild(head);
  if (c.title) d.appendChild(el("div", c.title, "title"));
  var p = el("div", null, "passage");
  c.passage.forEach(function(s){ p.appendChild(s.m ? el("mark", s.t) : document.createTextNode(s.t)); });
  d.appendChild(p);
  var g = el("div", null, "grades");
  grades().forEach(function(n){
    var b = el("button", gradeName(n), c.grade===n ? "on" : ""); b.type="button"; b.setAttribute("aria-pressed", c.grade===n);
    b.addEventListener("click", function(){ ci=i; grade(n); });
    g.appendChild(b);
  });
  if (S.sections && c.doc.indexOf("#") < 0 && S.mode!=="adjudicate") { var sb = el("button", "sections"); sb.type="button"; sb.addEventListener("click", function(){ ci=i; sections(c.doc); }); g.appendChild(sb); }
  var a = el("a", "whole document"); a.href = "/doc?id=" + encodeURIComponent(c.doc) + "&t=" + encodeURIComponent(T); a.target = "_blank"; g.appendChild(a);
  d.appendChild(g);
  d.addEventListener("click", function(ev){ if (ev.target.tagName!=="BUTTON" && ev.target.tagName!=="A") { focusCard(i); } });
  box.appendChild(d);
}
function draw(){
  if (!S.queries.length) { document.getElementById("query").textContent = S.mode==="adjudicate" ? "Nothing to adjudicate: the labellers agree everywhere." : "The set has no queries."; return; }
  qi = Math.max(0, Math.min(qi, S.queries.length-1));
  var cur = q(), all = cards();
  ci = Math.max(0, Math.min(ci, all.length-1));
  var verb = {adjudicate:"decided ", reverify:"re-verified "}[S.mode] || "labelled ";
  document.getElementById("progress").textContent = verb + S.done + " of " + S.queries.length;
  document.getElementById("who").textContent = (S.mode==="adjudicate" ? "adjudicating as " : "as ") + S.labeller + (S.binary ? " · binary grades" : " · grades 0–3");
  document.getElementById("gradekeys").textContent = S.binary ? "0 1" : "0 1 2 3";
  document.getElementById("confirmkey").hidden = S.mode!=="reverify";
  document.getElementById("labelkeys").hidden = S.mode==="adjudicate";
  document.getElementById("searchkeys").hidden = S.mode==="adjudicate" || !S.search;
  document.getElementById("sectionkeys").hidden = S.mode==="adjudicate" || !S.sections;
  document.getElementById("position").textContent = "query " + (qi+1) + " of " + S.queries.length + " · " + cur.id + " · " + cur.graded + " of " + cur.candidates.length + " documents " + (S.mode==="adjudicate" ? "decided" : "graded") + (cur.verified ? " · verified " + cur.verified : "");
  document.getElementById("query").textContent = cur.query;
  document.getElementById("guideline").textContent = [S.guideline, S.mode==="adjudicate" ? S.rule : ""].filter(Boolean).join(" · ");
  var st = document.getElementById("status"); st.textContent = "";
  if (cur.unanswerable) st.appendChild(el("span", S.mode==="adjudicate" ? "Unanswerable as the labels stand." : "You marked it unanswerable: no document in the pool or a search answers it.", "unanswerable"));
  if (cur.unsure) st.appendChild(el("span", " Marked unsure: it goes to adjudication.", "muted"));
  if (cur.unsure_by && cur.unsure_by.length) st.appendChild(el("span", " Unsure: " + cur.unsure_by.join(", "), "muted"));
  var dq = document.getElementById("dq");
  dq.hidden = !cur.missing_gold.length;
  dq.textContent = cur.missing_gold.length ? "Data-quality bug, not a retrieval failure: gold document" + (cur.missing_gold.length>1?"s ":" ") + cur.missing_gold.join(", ") + " " + (cur.missing_gold.length>1?"are":"is") + " not in the corpus. Grade another document, or fix the corpus." + Object.keys(cur.proposed||{}).sort().map(function(k){ return " " + k + ": its heading was renamed or removed; the closest section now is " + cur.proposed[k] + ", shown to grade."; }).join("") : "";
  document.getElementById("setnote").textContent = cur.set_note ? "From the set: " + cur.set_note : "";
  document.getElementById("search").hidden = !S.search || S.mode==="adjudicate";
  var note = document.getElementById("note"); if (document.activeElement !== note) note.value = cur.note || "";
  var box = document.getElementById("cards"); box.textContent = "";
  if (!cur.candidates.length) box.appendChild(el("p", "No retriever returned a document for this query.", "muted"));
  cur.candidates.forEach(function(c, i){ card(c, i, box); });
  var res = document.getElementById("results"); res.textContent = "";
  found.forEach(function(c, i){ card(c, cur.candidates.length + i, res); });
  var f = document.querySelector(".card.focus"); if (f && f.scrollIntoView) f.scrollIntoView({block:"nearest"});
}
function focusCard(i){ ci = i; shownAt = Date.now(); draw(); }
function grade(n){
  var cur = q(), c = cards()[ci]; if (!c) return busy;
  var body = {id:cur.id, doc:c.doc, grade:n, seconds:(Date.now()-shownAt)/1000, searched:!!c.fromSearch};
  busy = busy.then(function(){ return api("/api/grade", body); }).then(function(){
    found = found.filter(function(x){ return !S.queries[qi].candidates.some(function(y){ return y.doc===x.doc; }); });
    draw();
  });
  return busy;
}
function move(d){ qi = Math.max(0, Math.min(S.queries.length-1, qi+d)); ci = 0; found = []; shownAt = Date.now(); history.replaceState(null, "", "#q="+encodeURIComponent(q().id)); draw(); }
function skip(){
  for (var d = 1; d < S.queries.length; d++) { var i = (qi + d) % S.queries.length; if (!S.queries[i].labelled) { move(i - qi); return; } }
  move(1);
}
function search(path, secs){
  busy = busy.then(function(){ return call(path).then(function(j){
    var cur = q(), shown = cur.candidates.map(function(c){ return c.doc; });
    found = j.results.filter(function(r){ return shown.indexOf(r.doc) < 0; }).map(function(r){ if (secs) r.fromSections = true; else r.fromSearch = true; return r; });
    if (!found.length) showError((secs ? "Every section of " : "The search found nothing new for “") + j.query + (secs ? " is shown already." : "”.")); else showError("");
    ci = cur.candidates.length; shownAt = Date.now(); draw();
  }, function(err){ showError(err.message); }); });
  return busy;
}
function sections(doc){ return search("/api/sections?id=" + encodeURIComponent(q().id) + "&doc=" + encodeURIComponent(doc), true); }
function key(k){
  if (!S) return busy;
  var max = S.binary ? 1 : 3, cur = S.queries.length ? q() : null;
  if (/^[0-9]$/.test(k) && +k <= max) return grade(+k);
  switch (k) {
  case "j": case "ArrowDown": focusCard(Math.min(cards().length-1, ci+1)); break;
  case "k": case "ArrowUp": focusCard(Math.max(0, ci-1)); break;
  case "n": case "ArrowRight": move(1); break;
  case "p": case "ArrowLeft": move(-1); break;
  case "s": skip(); break;
  case "u": busy = busy.then(function(){ return api("/api/query", {id:cur.id, unanswerable:!cur.unanswerable}); }); break;
  case "?": busy = busy.then(function(){ return api("/api/query", {id:cur.id, unsure:!cur.unsure}); }); break;
  case "c": if (S.mode==="reverify") busy = busy.then(function(){ return api("/api/query", {id:cur.id, confirm:true}); }); break;
  case "z": case "Backspace": busy = busy.then(function(){ return api("/api/undo", {}); }); break;
  case "/": if (S.search) document.getElementById("q").focus(); break;
  case "x": if (S.search) return search("/api/search?id=" + encodeURIComponent(cur.id) + "&expand=10"); break;
  case "e": document.getElementById("note").focus(); break;
  case "h": var hc = cards()[ci]; if (S.sections && S.mode!=="adjudicate" && hc && hc.doc.indexOf("#") < 0) return sections(hc.doc); break;
  }
  return busy;
}
document.addEventListener("keydown", function(ev){
  if (ev.target.tagName === "TEXTAREA" || ev.target.tagName === "INPUT") { if (ev.key === "Escape") ev.target.blur(); return; }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  ["j","k","n","p","s","u","?","c","z","/","x","e","h","Backspace","ArrowDown","ArrowUp","ArrowLeft","ArrowRight"].indexOf(ev.key) >= 0 && ev.preventDefault();
  key(ev.key);
});
document.getElementById("q").addEventListener("keydown", function(ev){
  if (ev.key !== "Enter") return;
  ev.preventDefault(); var v = ev.target.value.trim(); ev.target.blur();
  if (v) search("/api/search?id=" + encodeURIComponent(q().id) + "&q=" + encodeURIComponent(v));
});
document.getElementById("note").addEventListener("change", function(ev){
  var cur = q(), v = ev.target.value;
  busy = busy.then(function(){ return api("/api/query", {id:cur.id, note:v}); });
});
api("/api/state").then(function(){
  if (S && S.reloaded) say("The set file had changed on disk and was read again" + (S.changed && S.changed.length ? ": " + S.changed.length + (S.changed.length > 1 ? " queries changed (" : " query changed (") + S.changed.slice(0, 10).join(", ") + (S.changed.length > 10 ? ", …" : "") + ")." : "."));
  var h = new URLSearchParams(location.hash.slice(1));
  if (h.get("q")) { var i = S.queries.map(function(x){return x.id;}).indexOf(h.get("q")); if (i >= 0) { qi = i; draw(); } }
});
})();
</script>
</body></html>
`))
