package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPDropFailsTheGate: a head that finds the same documents, each one
// rank lower behind a stranger, keeps recall@5 and precision@3 but loses
// average precision (1 → (1/2 + 2/3) / 2 = 0.583 on every query). With
// max_ap_drop = 0.1 in the config the gate fails on that rule alone (exit
// 1; without the key it passes), and the stored report rendered again by
// report --in names the rule in Markdown.
func TestAPDropFailsTheGate(t *testing.T) {
	dir := t.TempDir()
	var set, base, head strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&set, `{"id": "q%d", "query": "question %d", "gold": {"a%d": 1, "b%d": 1}}`+"\n", i, i, i, i)
		fmt.Fprintf(&base, `{"id": "q%d", "hits": [{"doc": "a%d"}, {"doc": "b%d"}, {"doc": "x%d"}]}`+"\n", i, i, i, i)
		fmt.Fprintf(&head, `{"id": "q%d", "hits": [{"doc": "x%d"}, {"doc": "a%d"}, {"doc": "b%d"}]}`+"\n", i, i, i, i)
	}
	write(t, dir, "queries.jsonl", set.String())
	b := write(t, dir, "base.jsonl", base.String())
	h := write(t, dir, "head.jsonl", head.String())
	rules := "[gate]\nmax_recall_drop = 0.02\nmax_ndcg_drop = 1\nmax_precision_drop = 1\n"
	without := write(t, dir, "without.toml", "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n"+rules)
	if code, _, errs := rg(t, "compare", "--config", without, "--base", b, "--head", h, "--format", "json"); code != 0 {
		t.Fatalf("without max_ap_drop: exit %d, want 0 (only AP moved)\n%s", code, errs)
	}
	cfg := write(t, dir, "recallgate.toml", "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n"+rules+"max_ap_drop = 0.1\n")
	rep := filepath.Join(dir, "report.json")
	code, _, errs := rg(t, "compare", "--config", cfg, "--base", b, "--head", h, "--format", "json", "--out", rep)
	if code != 1 {
		t.Fatalf("with max_ap_drop = 0.1: exit %d, want 1\n%s", code, errs)
	}
	code, out, errs := rg(t, "report", "--in", rep, "--format", "json")
	if code != 0 {
		t.Fatalf("report --in: exit %d\n%s", code, errs)
	}
	var r struct {
		Reasons []string
		Rules   []struct{ Name, Metric, Outcome string }
		Summary struct{ Delta map[string]float64 }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ru := range r.Rules {
		if ru.Name == "max_ap_drop" {
			found = ru.Metric == "ap_at_n" && ru.Outcome == "fail"
		}
	}
	want := "mean AP@5 dropped by 0.417 (limit 0.100, max_ap_drop)"
	if !found || len(r.Reasons) != 1 || r.Reasons[0] != want || fmt.Sprintf("%.4f", r.Summary.Delta["ap_at_n"]) != "-0.4167" {
		t.Errorf("rules %+v reasons %q delta %v; want max_ap_drop failed: %q", r.Rules, r.Reasons, r.Summary.Delta, want)
	}
	code, md, errs := rg(t, "report", "--in", rep, "--format", "markdown")
	if code != 0 {
		t.Fatalf("report --in --format markdown: exit %d\n%s", code, errs)
	}
	// The gate line names the rule by its words, the fail line by its key
	// (Markdown writes an underscore as &#95;).
	for _, s := range []string{"AP@5 drop ≤ 0.100", "- **fail:** mean AP@5 dropped by 0.417 (limit 0.100, max&#95;ap&#95;drop)"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
}
