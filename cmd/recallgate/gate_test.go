package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoGate runs the quick-start command on the project's own frozen set:
// it must fail on the re-chunking change with flips in both directions, and
// its runs must equal the committed ones (the builtin retriever is deterministic).
func TestDemoGate(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := rg(t, "gate", "--config", "../../frozen-set/recallgate.toml", "--save-runs", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the demo head regresses)\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"FAIL  mean recall@5", "regressed (3)", "improved (3)", "lost: security/audit-log"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, side := range []string{"base", "head"} {
		got, _ := os.ReadFile(filepath.Join(dir, side+".jsonl"))
		want, err := os.ReadFile(filepath.Join("../../frozen-set/runs", side+".jsonl"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s run differs from frozen-set/runs/%s.jsonl (regenerate with --save-runs frozen-set/runs)", side, side)
		}
	}
	// The committed runs give the same verdict through compare.
	code2, out2, _ := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml",
		"--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl")
	if code2 != 1 || out2 != out {
		t.Errorf("compare on the saved runs: exit %d, report differs from gate's:\n%s", code2, out2)
	}
}

func TestRetrieveAndFileRetriever(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "base.jsonl", runJSONL)
	write(t, dir, "partial.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}`+"\n")
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 3\ncontext = 2\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"partial.jsonl\"\n")
	out := filepath.Join(dir, "out.jsonl")
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--side", "base", "--out", out); code != 0 {
		t.Fatalf("retrieve base: exit %d %s", code, errs)
	}
	if code, stdout, errs := rg(t, "score", "--set", set, "--results", out, "--candidates", "3", "--context", "2"); code != 0 || !strings.Contains(stdout, "recall@3  0.667") {
		t.Errorf("score of the written run: exit %d\n%s%s", code, stdout, errs)
	}
	code, _, errs := rg(t, "gate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "head: 2 queries could not be retrieved (not scored as misses)") || !strings.Contains(errs, "q2: run file") {
		t.Errorf("gate with a partial head run: exit %d, want 3\n%s", code, errs)
	}
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--side", "middle", "--out", out); code != 2 || !strings.Contains(errs, "--side must be base or head") {
		t.Errorf("bad side: %d %s", code, errs)
	}
}

func TestGateConfigErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "qrels.txt", setQrels)
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	tests := []struct{ name, toml, want string }{
		{"qrels without texts", "set = \"qrels.txt\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", "queries: set qrels.txt is TREC qrels"},
		{"no retriever", "set = \"set.jsonl\"\n", "base.retriever: no retriever configured"},
		{"unknown type", "set = \"set.jsonl\"\n[retriever]\ntype = \"vector\"\n", "unknown retriever type \"vector\""},
		{"builtin without corpus", "set = \"set.jsonl\"\n[retriever]\ntype = \"builtin\"\n", "retriever.corpus: required"},
		{"bad chunking", "set = \"set.jsonl\"\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\nchunk_words = 5\nchunk_overlap = 5\n", "chunk_overlap must be within"},
		{"bad timeout", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\ntimeout = \"soon\"\n", "not a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := write(t, dir, "c.toml", tt.toml)
			code, _, errs := rg(t, "gate", "--config", cfg)
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, errs, tt.want)
			}
		})
	}
	cfg := write(t, dir, "same.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	code, _, errs := rg(t, "gate", "--config", cfg)
	if code != 0 || !strings.Contains(errs, "base and head use the same [retriever]") {
		t.Errorf("same config: exit %d %s", code, errs)
	}
}
