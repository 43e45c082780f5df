package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumArgs are the flags a headless Chromium needs on a closed network.
func chromiumArgs(profile string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--virtual-time-budget=3000"}
}

// TestHTMLReportInChromium opens the demo's HTML report in headless
// Chromium, clicks the "regressed" filter and a query (through the page's
// #filter=…&query=… hook, which clicks the real elements), and checks what
// the page then shows. It also takes a screenshot into the test's temp dir.
func TestHTMLReportInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("skipping: chromium is not installed (apt-get install chromium; .ci/run does)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	// The demo's base run with q26's passages made longer than a report
	// keeps, so the drill-down must say they are clipped.
	base := filepath.Join(dir, "base.jsonl")
	lines := strings.SplitAfter(string(must(os.ReadFile("../../frozen-set/runs/base.jsonl"))), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, `{"id":"q26"`) {
			lines[i] = strings.ReplaceAll(line, `"text":"`, `"text":"`+strings.Repeat("a long passage ", 30))
		}
	}
	if err := os.WriteFile(base, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", base, "--head", "../../frozen-set/runs/head.jsonl", "--format", "html", "--out", page); code != 1 {
		t.Fatalf("compare: %d %s", code, errs)
	}
	url := "file://" + page + "#filter=regressed&query=q26"
	dom, err := runBrowser(browser, append(chromiumArgs(filepath.Join(dir, "profile")), "--dump-dom", url))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	rows := regexp.MustCompile(`<tr class="query ([a-z ]*)" data-id="([^"]+)"`).FindAllStringSubmatch(dom, -1)
	var ids []string
	for _, r := range rows {
		if !strings.HasPrefix(r[1], "regressed") {
			t.Errorf("row %s of class %q shown under the regressed filter", r[2], r[1])
		}
		ids = append(ids, r[2])
	}
	if strings.Join(ids, ",") != "q10,q16,q26" {
		t.Errorf("regressed filter shows %v", ids)
	}
	for _, want := range []string{
		`<button data-filter="regressed" class="on">`,
		`<tr class="query regressed open" data-id="q26"`,
		`<h2>q26: where can I see who deleted a queue</h2>`,
		`<li class="gold">★ security/audit-log`,
		`3 of 29 answerable queries (1 unanswerable, kept out of the metrics)`,
		`30 queries (29 answerable, 1 unanswerable kept out of the metrics)`,
		`3 up, 3 down, 23 unchanged`,
		`retrieval miss: security/audit-log rank 2 → —, replaced by security/roles`,
		`Passages are clipped to 280 characters; a clipped one ends with …`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %q after the clicks", want)
		}
	}
	if strings.Contains(dom, "retrieval-miss:") {
		t.Error("the drill-down spells the cause retrieval-miss")
	}
	if regexp.MustCompile(`<div class="passage">\s`).MatchString(dom) {
		t.Error("a passage starts with blank space (a gap above it)")
	}

	// An unchanged query's delta reads ±0.000, as in the metric table, and
	// the table keeps its width whatever the filter shows: a copy of the
	// page measures it under each filter.
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	measure := `<script>(function(){var w=[];document.querySelectorAll("#filters button").forEach(function(b){b.click();w.push(b.dataset.filter+"="+Math.round(document.getElementById("queries").getBoundingClientRect().width));});document.querySelector("#filters button").click();var p=document.createElement("pre");p.id="widths";p.textContent=w.join(" ");document.body.appendChild(p);})();</script></body>`
	probe := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probe, []byte(strings.Replace(string(data), "</body>", measure, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, err = runBrowser(browser, append(chromiumArgs(filepath.Join(dir, "profile3")), "--window-size=1200,1000", "--dump-dom", "file://"+probe))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`<pre id="widths">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the width probe did not run")
	}
	widths := map[string]bool{}
	for _, f := range strings.Fields(m[1]) {
		widths[f[strings.Index(f, "=")+1:]] = true
	}
	if len(widths) != 1 {
		t.Errorf("the query table changes width with the filter: %s", m[1])
	}
	if !regexp.MustCompile(`data-id="q13"><td>q13</td><td>[^<]*</td><td class="num">1\.000</td><td class="num">1\.000</td><td class="num">±0\.000</td>`).MatchString(dom) {
		t.Errorf("an unchanged query's delta is not ±0.000:\n%s", regexp.MustCompile(`<tr[^>]*data-id="q13".*?</tr>`).FindString(dom))
	}
	shot := filepath.Join(dir, "report.png")
	if _, err := runBrowser(browser, append(chromiumArgs(filepath.Join(dir, "profile2")), "--window-size=1200,1000", "--screenshot="+shot, url)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %v %v", st, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func runBrowser(browser string, args []string) (string, error) {
	cmd := exec.Command(browser, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return "", err
		}
		return out.String(), nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return "", os.ErrDeadlineExceeded
	}
}
