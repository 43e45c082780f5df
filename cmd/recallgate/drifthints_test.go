package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHintsNameTheReportFile: the label debt's command names the JSON
// report the run wrote (--json-out drift.json), not a report.json that is
// not there; with no JSON report written it says how to write one.
func TestHintsNameTheReportFile(t *testing.T) {
	dir, cfg := unjudgedFixture(t)
	jsonOut := filepath.Join(dir, "drift.json")
	code, out, errs := rg(t, "gate", "--config", cfg, "--json-out", jsonOut)
	if code != 0 || !strings.Contains(out, "they count as non-relevant until judged: `recallgate label --from-report "+jsonOut+"`.") || strings.Contains(out, "report.json") {
		t.Errorf("gate --json-out drift.json: exit %d, want the label command to name it\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, "gate", "--config", cfg, "--format", "markdown")
	if code != 0 || !strings.Contains(out, "`recallgate label --from-report REPORT.json` (the run's JSON report: --json-out REPORT.json)") {
		t.Errorf("gate with no JSON report: exit %d, want how to write one\n%s\n%s", code, out, errs)
	}
}

// TestDriftNamesTheRetrieverFiles: after a merged change to the file the
// service's start names, the drift headline names that file and the
// commit that changed it, not two hashes.
func TestDriftNamesTheRetrieverFiles(t *testing.T) {
	f, _ := serviceRepo(t, startTable)
	cfg := filepath.Join(f.dir, "recallgate.toml")
	if code, out, errs := rg(t, "gate", "--config", cfg, "--no-cache", "--write-baseline", filepath.Join(f.dir, "baselines/head.jsonl")); code != 0 {
		t.Fatalf("write the baseline: exit %d\n%s\n%s", code, out, errs)
	}
	f.commit("baseline after review")
	f.edit("service.py", "CAP = 50", "CAP = 1")
	capped := f.commit("search: answer one hit")
	code, out, errs := f.drift()
	first, _, _ := strings.Cut(out, "\n")
	want := "changed since the baseline (the likely cause): retriever (service.py changed in " + capped[:7] + " (search: answer one hit))"
	if code != 1 || !strings.Contains(first, want) {
		t.Errorf("drift after the service change: exit %d, headline %q, want %q\n%s", code, first, want, errs)
	}
}
