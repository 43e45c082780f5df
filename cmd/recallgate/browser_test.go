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
	if code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl", "--format", "html", "--out", page); code != 1 {
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
		`3 of 29 queries`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %q after the clicks", want)
		}
	}
	shot := filepath.Join(dir, "report.png")
	if _, err := runBrowser(browser, append(chromiumArgs(filepath.Join(dir, "profile2")), "--window-size=1200,1000", "--screenshot="+shot, url)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %v %v", st, err)
	}
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
