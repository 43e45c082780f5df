package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReportInNamesAnExperiment: report --in an experiment's JSON report
// (a real one, written by experiment --json-out) is refused (exit 2)
// saying it is an experiment report and how to render one, not with the
// strict decoder's unknown field; so is a scorecard's.
func TestReportInNamesAnExperiment(t *testing.T) {
	dir := t.TempDir()
	cfg := experimentConfig(t, "[variant.plain.retriever]\ntype = \"builtin\"\ncorpus = "+quote(demoPath(t, "corpus"))+"\n")
	exp := filepath.Join(dir, "experiment.json")
	if code, out, errs := rg(t, "experiment", "--config", cfg, "--format", "json", "--out", exp); code != 0 {
		t.Fatalf("experiment: exit %d\n%s\n%s", code, out, errs)
	}
	code, _, errs := rg(t, "report", "--in", exp, "--format", "markdown")
	if code != 2 || strings.Contains(errs, "unknown field") || !strings.Contains(errs, exp+": not a comparison's report: this is an experiment report (recallgate experiment --format json)") ||
		!strings.Contains(errs, "render it by running recallgate experiment --config FILE --format markdown or html") {
		t.Errorf("report --in an experiment's JSON: exit %d, want 2 naming it\n%s", code, errs)
	}
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"a","gold":{"d1":1}}`+"\n")
	run := write(t, dir, "run.jsonl", `{"id":"q1","hits":[{"doc":"d1"}]}`+"\n")
	card := filepath.Join(dir, "score.json")
	if code, out, errs := rg(t, "score", "--set", set, "--results", run, "--format", "json", "--out", card); code != 0 {
		t.Fatalf("score: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := rg(t, "report", "--in", card); code != 2 || !strings.Contains(errs, "this is a scorecard (recallgate score --format json)") {
		t.Errorf("report --in a scorecard: exit %d, want 2 naming it\n%s", code, errs)
	}
}
