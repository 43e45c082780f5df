package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMermaidArrowFollowsTheVerdict (#50 item 6): q1 (gold a and b, both
// grade 1) swaps a at rank 1 for b at rank 2 (recall@2 1/2 → 1/2, nDCG@1
// 1 → 0): an equal-grade swap, regressed on its ranking. The Mermaid chart
// draws it ↓ with no bar and says "ranking", never ↑; q2, which lost its
// gold, is ↓ with a lost bar of 1; q3, which found its gold, ↑ with a
// gained bar of 1.
func TestMermaidArrowFollowsTheVerdict(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", `{"id":"q1","query":"first","gold":{"a":1,"b":1}}
{"id":"q2","query":"second","gold":{"d":1}}
{"id":"q3","query":"third","gold":{"c":1}}
`)
	write(t, dir, "base.jsonl", `{"id":"q1","hits":[{"doc":"a"},{"doc":"x"}]}
{"id":"q2","hits":[{"doc":"d"}]}
{"id":"q3","hits":[{"doc":"z"}]}
`)
	write(t, dir, "head.jsonl", `{"id":"q1","hits":[{"doc":"x"},{"doc":"b"}]}
{"id":"q2","hits":[{"doc":"z"}]}
{"id":"q3","hits":[{"doc":"c"}]}
`)
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 2\ncontext = 1\n")
	code, md, errs := rg(t, "compare", "--config", cfg, "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, "head.jsonl"), "--format", "markdown")
	if code > 1 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	_, chart, ok := strings.Cut(md, "```mermaid\n")
	chart, _, _ = strings.Cut(chart, "```")
	if !ok {
		t.Fatalf("no Mermaid chart:\n%s", md)
	}
	for _, want := range []string{
		`title "recall@2 lost (red, ↓) and gained (green, ↑) per flipped query; ranking: flipped on nDCG@1, recall unchanged"`,
		`x-axis ["q2 ↓", "q1 ↓ ranking", "q3 ↑"]`,
		"bar [1.000, 0, 0]\n    bar [0, 0, 1.000]",
	} {
		if !strings.Contains(chart, want) {
			t.Errorf("the chart lacks %q:\n%s", want, chart)
		}
	}
}
