package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScoreAndCompareSayTheirDepths: without --config, score and compare
// read recallgate.toml in the current folder as gate does (its depths,
// 10 and 10, not the defaults, with a note naming the file); where there
// is none, the depth line says the depths are the defaults (both, or the
// one no flag set), in text, Markdown and JSON.
func TestScoreAndCompareSayTheirDepths(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"a","gold":{"d1":1}}`+"\n"+`{"id":"q2","query":"b","gold":{"d2":1}}`+"\n")
	run := write(t, dir, "run.jsonl", `{"id":"q1","hits":[{"doc":"d1"}]}`+"\n"+`{"id":"q2","hits":[{"doc":"x"},{"doc":"d2"}]}`+"\n")
	withConfig := t.TempDir()
	write(t, withConfig, "recallgate.toml", "set = "+quote(set)+"\n[depth]\ncandidates = 10\ncontext = 10\n")
	t.Chdir(withConfig)
	code, out, errs := rg(t, "score", "--results", run)
	if code != 0 || !strings.Contains(out, "depths: candidates N=10 (recall), context k=10 (precision, nDCG); unit: documents\n") || !strings.Contains(errs, "recallgate: reading recallgate.toml in the current folder (no --config)") {
		t.Errorf("score beside recallgate.toml: exit %d, want its depths and a note\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, "compare", "--base", run, "--head", run)
	if !strings.Contains(out, "; candidates N=10, context k=10; unit: documents\n") {
		t.Errorf("compare beside recallgate.toml: exit %d, want its depths\n%s\n%s", code, out, errs)
	}

	t.Chdir(dir)
	code, out, errs = rg(t, "score", "--set", set, "--results", run)
	if code != 0 || !strings.Contains(out, "depths: candidates N=50 (recall), context k=5 (precision, nDCG) (defaults; no --config); unit: documents\n") || strings.Contains(errs, "reading") {
		t.Errorf("score without a config: exit %d, want the defaults said\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, "score", "--set", set, "--results", run, "--format", "markdown", "--context", "3")
	if code != 0 || !strings.Contains(out, "precision and nDCG at k=3 in context (N the default; no --config) · document level") {
		t.Errorf("score --format markdown --context 3: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, "compare", "--set", set, "--base", run, "--head", run)
	if !strings.Contains(out, "; candidates N=50, context k=5 (defaults; no --config); unit: documents\n") {
		t.Errorf("compare without a config: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = rg(t, "compare", "--set", set, "--base", run, "--head", run, "--format", "json", "--candidates", "20")
	var rep struct {
		Depth struct {
			Candidates, Context int
			Defaults            []string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Depth.Candidates != 20 || strings.Join(rep.Depth.Defaults, ",") != "context" {
		t.Errorf("compare --format json --candidates 20: exit %d, depth %+v (%v)\n%s", code, rep.Depth, err, errs)
	}
}
