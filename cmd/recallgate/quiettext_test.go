package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTextReportListsOnlyChangedContexts (#50 item 10): the text report's
// final-context section lists the queries whose context changed and
// counts the rest (none listed when none changed), and the metric table
// keeps its delta column as narrow as its numbers: the queries a count row
// names follow the table's columns.
func TestTextReportListsOnlyChangedContexts(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	// Hits with their text: recallgate packs each side's final context.
	texted := regexp.MustCompile(`\{"doc":"(\w)"`).ReplaceAllString(runJSONL, `{"doc":"$1","text":"the page $1"`)
	write(t, dir, "base.jsonl", texted)
	write(t, dir, "same.jsonl", texted)
	write(t, dir, "head.jsonl", strings.Replace(texted, `{"id":"q3","hits":[{"doc":"y","text":"the page y"},{"doc":"z","text":"the page z"},{"doc":"w","text":"the page w"},{"doc":"e","text":"the page e"}]}`,
		`{"id":"q3","hits":[{"doc":"e","text":"the page e"},{"doc":"y","text":"the page y"},{"doc":"z","text":"the page z"}]}`, 1))
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 3\ncontext = 2\n")
	compare := func(head string) string {
		t.Helper()
		code, out, errs := rg(t, "compare", "--config", cfg, "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, head))
		if code > 1 {
			t.Fatalf("exit %d\n%s", code, errs)
		}
		return out
	}
	out := compare("same.jsonl")
	if !strings.Contains(out, "  per query: no query's context changed (3 queries)\n") || regexp.MustCompile(`(?m)^    q[123]  `).MatchString(out) {
		t.Errorf("an unchanged context is listed per query:\n%s", out)
	}
	// q3 now returns three hits, not four: its context alone changed.
	out = compare("head.jsonl")
	m := regexp.MustCompile(`per query whose context changed \(context recall, evidence, passages/tokens; base → head\); (\d+) unchanged:\n((?:    \S.*\n)+)`).FindStringSubmatch(out)
	if m == nil || m[1] != "2" || m[2] != "    q3  1.000 → 1.000  n/a → n/a  4/12 → 3/9\n" {
		t.Errorf("want q3 listed alone and 2 unchanged counted:\n%s", out)
	}
	for _, want := range []string{
		"          metric   base   head   delta\n        recall@3  0.667  1.000  +0.333\n",
		"     zero recall      1      0      -1 (-1 recovered: q3)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the metric table is not narrow: lacks %q\n%s", want, out)
		}
	}
}
