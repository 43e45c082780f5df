package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExperimentPageInChromium lays out the experiment page of the demo
// grid with eight variants of long names and two fusion rows (one swept)
// in headless Chromium at 1280 px: the page itself never runs past the
// window, the leaderboard fits its box with no horizontal scroll (every
// column, the p95 and the gate verdict too, inside the box as laid out),
// and no two labels of the latency chart overlap (the baseline and "same"
// have nearly one latency and one Δ recall).
func TestExperimentPageInChromium(t *testing.T) {
	browser := needChromium(t, "")
	dir := t.TempDir()
	demo, _ := filepath.Abs("../../frozen-set")
	conf := string(must(os.ReadFile(filepath.Join(demo, "experiment.toml"))))
	conf = strings.ReplaceAll(conf, `corpus = "corpus"`, `corpus = "`+filepath.Join(demo, "corpus")+`"`)
	conf = strings.Replace(conf, `set = "queries.jsonl"`, `set = "`+filepath.Join(demo, "queries.jsonl")+`"`, 1)
	for _, n := range []string{"chunk-words-twelve-flat-title", "chunk-words-twenty-with-overlap", "title-boost-three-and-stemming", "stop-words-kept-title-boost-two", "whole-documents-k1-one-point-five"} {
		conf += "\n[variant." + n + ".retriever]\ntype = \"builtin\"\ncorpus = \"" + filepath.Join(demo, "corpus") + "\"\ntitle_boost = 1.5\n"
	}
	conf += "\n[fusion.reciprocal-rank-fusion-of-twelve-and-whole]\nof = [\"chunk-words-twelve-flat-title\", \"whole-documents-k1-one-point-five\"]\nmethod = \"rrf\"\nk = [10, 60]\n"
	conf += "\n[fusion.combsum-minmax-of-chunked-notitle-and-stemming]\nof = [\"chunked\", \"notitle\", \"title-boost-three-and-stemming\"]\nmethod = \"combsum\"\n"
	cfg := write(t, dir, "experiment.toml", conf)
	page := filepath.Join(dir, "e.html")
	if code, _, errs := rg(t, "experiment", "--config", cfg, "--format", "html", "--out", page); code != 0 {
		t.Fatalf("experiment: exit %d\n%s", code, errs)
	}
	d := startDevtools(t, browser, filepath.Join(dir, "profile-cdp"))
	if _, err := d.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}); err != nil {
		t.Fatal(err)
	}
	d.navigate(t, "file://"+page)
	d.waitFor(t, `document.querySelectorAll("#leaderboard tbody tr").length >= 11`)
	v, err := d.eval(`(function(){
  var table = document.getElementById("leaderboard"), box = table.parentElement;
  var out = {inner: window.innerWidth, page: document.documentElement.clientWidth, pageScroll: document.documentElement.scrollWidth,
    table: table.getBoundingClientRect().width, box: box.getBoundingClientRect().right};
  out.boxScroll = box.scrollWidth; out.boxClient = box.clientWidth; out.boxRight = box.getBoundingClientRect().right;
  out.rows = table.querySelectorAll("tbody tr:not(.details)").length;
  var cut = [];
  table.querySelectorAll("thead th").forEach(function(th){
    var r = th.getBoundingClientRect();
    if (r.right > out.boxRight + 1 || r.width < 8) { cut.push(th.textContent + " ends at " + Math.round(r.right)); }
  });
  out.cut = cut;
  var labels = [];
  document.querySelectorAll("#latency svg text").forEach(function(t){
    var s = t.textContent;
    if (s.indexOf("(baseline)") > 0 || table.textContent.indexOf(s) >= 0 && /[a-z]/.test(s) && s.indexOf(" ") < 0) {
      var r = t.getBoundingClientRect(); labels.push({s: s, l: r.left, t: r.top, r: r.right, b: r.bottom});
    }
  });
  out.labels = labels;
  return out;
})()`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Inner, Page, PageScroll, Table, Box, BoxScroll, BoxClient, BoxRight float64
		Rows                                                                int
		Cut                                                                 []string
		Labels                                                              []struct {
			S          string
			L, T, R, B float64
		}
	}
	if err := json.Unmarshal([]byte(v), &got); err != nil {
		t.Fatalf("%v: %s", err, v)
	}
	if got.Inner != 1280 || got.PageScroll > got.Page || got.Box > got.Page {
		t.Errorf("at %.0f px the page runs %0.f px wide (its width %.0f, the table's box ends at %.0f): the table is cut", got.Inner, got.PageScroll, got.Page, got.Box)
	}
	t.Logf("at %.0f px: the leaderboard %.0f px in its %.0f px box", got.Inner, got.Table, got.BoxClient)
	if got.Rows != 11 {
		t.Errorf("the leaderboard has %d rows, want 11 (the baseline, 8 variants, 2 fusions)", got.Rows)
	}
	if got.BoxScroll > got.BoxClient+1 || len(got.Cut) > 0 {
		t.Errorf("at %.0f px the %.0f px leaderboard runs past its %.0f px box (it scrolls %.0f px; columns past the box's right edge at %.0f: %v)", got.Inner, got.Table, got.BoxClient, got.BoxScroll, got.BoxRight, got.Cut)
	}
	if len(got.Labels) != 9 {
		t.Fatalf("found %d labels in the latency chart, want 9 (the baseline and 8 variants): %+v", len(got.Labels), got.Labels)
	}
	for i, a := range got.Labels {
		for _, b := range got.Labels[:i] {
			if a.L < b.R && b.L < a.R && a.T < b.B && b.T < a.B {
				t.Errorf("in the latency chart %q overlaps %q", a.S, b.S)
			}
		}
	}
	d.screenshot(t, filepath.Join(dir, "experiment.png"))
}
