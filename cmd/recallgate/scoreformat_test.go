package main

import (
	"strings"
	"testing"
)

// score takes the formats of report.Scorecards, and its help lists those:
// a comparison's format is a usage error before the run is read.
func TestScoreFormatsFromRegistry(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	run := write(t, dir, "run.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}`+"\n")
	for _, f := range []string{"junit", "html"} {
		code, out, errs := rg(t, "score", "--set", set, "--results", run, "--format", f)
		if code != 2 || !strings.Contains(errs, `--format: unknown format "`+f+`" (want text, json, markdown or benchmark)`) {
			t.Errorf("--format %s: exit %d\nstdout %s\nstderr %s", f, code, out, errs)
		}
	}
	if code, out, errs := rg(t, "score", "--set", set, "--results", run, "--format", "benchmark"); code != 0 || !strings.Contains(out, `"name": "recall@50"`) {
		t.Errorf("--format benchmark: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}
