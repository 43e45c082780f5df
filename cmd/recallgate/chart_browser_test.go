package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLReportChartInChromium opens the demo's HTML report in headless
// Chromium and checks its picture as the browser lays it out: the
// dumbbell of recall@5 per query is in the page (an inline SVG inside
// #chart, on screen and within the page's width), one mark per answerable
// query, the regressed queries' marks red and the improved green by the
// chart's own style, the rest the neutral blue, and a regressed query's
// mark is what the mouse finds at its place (its hover title there). It
// takes a screenshot of the page down to the chart's end; with -update it
// keeps it as docs/report-chart.png.
func TestHTMLReportChartInChromium(t *testing.T) {
	browser := needChromium(t, "")
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl", "--format", "html", "--out", page); code != 1 {
		t.Fatalf("compare: %d %s", code, errs)
	}
	d := startDevtools(t, browser, filepath.Join(dir, "profile-cdp"))
	d.navigate(t, "file://"+page)
	d.waitFor(t, `document.querySelectorAll("#queries tbody tr").length === 29`)
	v, err := d.eval(`(function(){
  var svg = document.querySelector("#chart svg");
  if (!svg) return null;
  var r = svg.getBoundingClientRect(), out = {w: r.width, h: r.height, page: document.documentElement.clientWidth, marks: {}, fill: {}};
  svg.querySelectorAll("circle.mark").forEach(function(c){
    var cls = c.getAttribute("class").replace("mark ", ""), id = c.querySelector("title").textContent.split(":")[0];
    (out.marks[cls] = out.marks[cls] || []).push(id);
    out.fill[cls] = getComputedStyle(c).fill;
  });
  var q26 = Array.prototype.filter.call(svg.querySelectorAll("circle.mark"), function(c){ return c.querySelector("title").textContent.indexOf("q26:") === 0; })[0];
  q26.scrollIntoView({block: "center"});
  var b = q26.getBoundingClientRect(), hit = document.elementFromPoint(b.left + b.width/2, b.top + b.height/2);
  out.hit = hit && hit.querySelector("title") ? hit.querySelector("title").textContent : String(hit && hit.tagName);
  return out;
})()`)
	if err != nil {
		t.Fatal(err)
	}
	if v == "null" {
		t.Fatal("the page has no chart (#chart svg)")
	}
	var got struct {
		W, H, Page float64
		Marks      map[string][]string
		Fill       map[string]string
		Hit        string
	}
	if err := json.Unmarshal([]byte(v), &got); err != nil {
		t.Fatalf("%v: %s", err, v)
	}
	if got.W < 300 || got.H < 29*18 || got.W > got.Page {
		t.Errorf("the chart is %.0f × %.0f px in a %.0f px page", got.W, got.H, got.Page)
	}
	if r, i := strings.Join(got.Marks["regressed"], ","), strings.Join(got.Marks["improved"], ","); r != "q10,q16,q26" || i != "q04,q07,q21" || len(got.Marks["same"]) != 23 {
		t.Errorf("marks by change: %v", got.Marks)
	}
	for cls, want := range map[string]string{"regressed": "rgb(198, 40, 40)", "improved": "rgb(46, 125, 50)", "same": "rgb(74, 111, 165)"} {
		if got.Fill[cls] != want {
			t.Errorf("a %s mark is filled %s, want %s", cls, got.Fill[cls], want)
		}
	}
	if got.Hit != "q26: recall@5 1.000 → 0.000 (regressed)" {
		t.Errorf("at q26's mark the mouse finds %q", got.Hit)
	}
	bottom, _ := d.eval(`Math.ceil(document.getElementById("chart").getBoundingClientRect().bottom + window.scrollY)`)
	var h float64
	json.Unmarshal([]byte(bottom), &h)
	res, err := d.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": got.Page, "height": h + 8, "scale": 1}})
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	var shot struct{ Data string }
	json.Unmarshal(res, &shot)
	png, _ := base64.StdEncoding.DecodeString(shot.Data)
	if len(png) < 10000 || h < 29*18 {
		t.Fatalf("screenshot of %d bytes, %.0f px high", len(png), h)
	}
	if *update {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report-chart.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
