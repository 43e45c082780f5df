package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportForgedVerdictRefused: a failing report.json with only its "verdict"
// changed to pass is refused by `report --in` and by `comment --report`
// (the two-workflow pattern's privileged job): exit 2 naming the verdict
// and the failed rule, no ✅ rendered, no comment written.
func TestReportForgedVerdictRefused(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "report.json")
	if code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl", "--format", "json", "--out", rep); code != 1 {
		t.Fatalf("compare: %d %s", code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal(must(os.ReadFile(rep)), &m); err != nil || m["verdict"] != "fail" {
		t.Fatalf("the frozen set's report: %v verdict %v", err, m["verdict"])
	}
	m["verdict"] = "pass"
	forged := write(t, dir, "forged.json", string(must(json.Marshal(m))))
	const want = `forged.json: report refused: verdict "pass" disagrees with the report's rules: rules[0] (max_recall_drop).outcome is fail, so the verdict is "fail"`

	code, out, errs := rg(t, "report", "--in", forged, "--format", "markdown")
	if code != 2 || !strings.Contains(errs, want) || strings.Contains(out, "✅") {
		t.Errorf("report --in: exit %d, want 2 and %q\n%s%s", code, want, out, errs)
	}

	g := &fakeGitHub{}
	srv := g.server(t)
	env := map[string]string{"GITHUB_TOKEN": "ghs_secret123", "GITHUB_REPOSITORY": "acme/rag", "GITHUB_API_URL": srv.URL}
	var cout, ceb bytes.Buffer
	code = run(context.Background(), []string{"comment", "--report", forged, "--pr", "42"}, func(k string) string { return env[k] }, &cout, &ceb)
	if code != 2 || !strings.Contains(ceb.String(), want) || len(g.comments)+len(g.edits) != 0 {
		t.Errorf("comment --report: exit %d, %d comments %d edits, want 2 and %q\n%s%s", code, len(g.comments), len(g.edits), want, cout.String(), ceb.String())
	}
}
