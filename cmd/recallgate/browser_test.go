package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumArgs are the flags a headless Chromium needs on a closed network.
// needChromium is the browser's path, or skips the test (what, when given,
// names the part that skips) where it is not installed.
func needChromium(t *testing.T, what string) string {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if what == "" {
			what = "the test"
		}
		t.Skipf("skipping %s: chromium is not installed (apt-get install chromium; .ci/run does)", what)
	}
	return browser
}

func chromiumArgs(profile string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--virtual-time-budget=3000"}
}

// TestHTMLReportInChromium opens the demo's HTML report in headless
// Chromium: once through the page's #filter=…&query=… address (which
// clicks the real elements) to check what the page then shows, once with
// real mouse clicks through the DevTools protocol to check the table's
// width under every filter and a drill-down. It also takes a screenshot
// into the test's temp dir.
func TestHTMLReportInChromium(t *testing.T) {
	browser := needChromium(t, "")
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

	// Real clicks (DevTools input events): every filter keeps the table's
	// width, and an unchanged query's delta reads ±0.000 as in the metric
	// table.
	d := startDevtools(t, browser, filepath.Join(dir, "profile-cdp"))
	d.navigate(t, "file://"+page)
	d.waitFor(t, `document.querySelectorAll("#queries tbody tr").length === 29`)
	width := `Math.round(document.getElementById("queries").getBoundingClientRect().width)`
	first, _ := d.eval(width)
	for _, f := range []string{"regressed", "improved", "zero", "ranking", "all"} {
		d.click(t, fmt.Sprintf(`#filters button[data-filter=%q]`, f))
		d.waitFor(t, fmt.Sprintf(`document.querySelector('#filters button[data-filter=%q]').className === "on"`, f))
		if w, _ := d.eval(width); w != first {
			t.Errorf("filter %s: the query table is %s px wide, %s before", f, w, first)
		}
	}
	if v, _ := d.eval(`document.querySelector('#queries tr[data-id="q13"]').children[4].textContent === "±0.000"`); v != "true" {
		t.Errorf("an unchanged query's delta reads %s", v)
	}
	d.click(t, `#queries tr[data-id="q16"]`)
	d.waitFor(t, `!document.getElementById("drill").hidden && document.querySelector("#drill h2").textContent.indexOf("q16") === 0`)
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

// reportDOM is the DOM Chromium draws from the HTML report of compare
// (exit 1 expected) over set, base and head, opened at query q1.
func reportDOM(t *testing.T, browser, dir, set, base, head string) string {
	t.Helper()
	page := filepath.Join(dir, "report.html")
	if code, _, errs := rg(t, "compare", "--set", set, "--base", base, "--head", head, "--format", "html", "--out", page); code != 1 {
		t.Fatalf("compare: %d %s", code, errs)
	}
	dom, err := runBrowser(browser, append(chromiumArgs(filepath.Join(dir, "profile")), "--dump-dom", "file://"+page+"#query=q1"))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return dom
}

// TestHTMLReportShowsHiddenCharacters: what the page draws from its model
// (query text, a retriever's doc ids) shows bidi controls and zero-width
// characters as marks, and keeps a joiner between two Persian letters.
func TestHTMLReportShowsHiddenCharacters(t *testing.T) {
	browser := needChromium(t, "")
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"pay\u202eexe.txt می\u200cخواهم","gold":{"a":1}}`+"\n")
	base := write(t, dir, "base.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}`+"\n")
	head := write(t, dir, "head.jsonl", `{"id":"q1","hits":[{"doc":"a\u200b"}]}`+"\n")
	dom := reportDOM(t, browser, dir, set, base, head)
	for _, want := range []string{"<h2>q1: pay⟨U+202E⟩exe.txt می\u200cخواهم</h2>", "<li>a⟨U+200B⟩</li>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The model in the page's data script keeps the text as it is.
	drawn := regexp.MustCompile(`(?s)<script.*?</script>`).ReplaceAllString(dom, "")
	if strings.Contains(drawn, "\u202e") || strings.Contains(drawn, "\u200b") {
		t.Error("the page draws a raw bidi control or zero-width space")
	}
}
