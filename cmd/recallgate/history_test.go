package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHistoryAcceptance: three reports (two runs, one error) added with
// recallgate history add make three lines, the error's with no metric
// value (each null); the first report added again adds nothing; render
// writes an HTML page whose SVG has a mark per run in each line and the
// error as a gap; a corrupt line is exit 2 naming file:line.
//
// Hand-computed at N=3, k=2 on setJSONL: runJSONL finds q1 and q2 but not
// q3 (recall 2/3; nDCG (0.826 + 0.631 + 0) / 3 = 0.486, one zero-recall
// query); the better run also finds q3 at rank 1 (recall 1; nDCG
// (0.826 + 0.631 + 1) / 3 = 0.819).
func TestHistoryAcceptance(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	worse := write(t, dir, "worse.jsonl", runJSONL)
	better := write(t, dir, "better.jsonl", strings.Replace(runJSONL, `{"id":"q3","hits":[{"doc":"y"},{"doc":"z"},{"doc":"w"},{"doc":"e"}]}`, `{"id":"q3","hits":[{"doc":"e"}]}`, 1))
	report := func(name, base, head string, want int) string {
		out := filepath.Join(dir, name)
		if code, _, errs := rg(t, "compare", "--set", set, "--base", base, "--head", head, "--candidates", "3", "--context", "2", "--format", "json", "--out", out); code != want {
			t.Fatalf("compare %s: exit %d, want %d: %s", name, code, want, errs)
		}
		return out
	}
	reports := []string{report("fail.json", better, worse, 1), report("pass.json", worse, better, 0), report("error.json", worse, filepath.Join(dir, "missing.jsonl"), 2)}
	hist := filepath.Join(dir, "history.jsonl")
	for i, r := range reports {
		code, out, errs := rg(t, "history", "add", "--history", hist, "--report", r, "--time", []string{"2026-12-01T02:00:00Z", "2026-12-02T03:00:00+01:00", "2026-12-03T02:00:00Z"}[i])
		if code != 0 || !strings.Contains(out, "history: added 2026-12-0") || errs != "" {
			t.Fatalf("add %s: exit %d\n%s\n%s", r, code, out, errs)
		}
	}
	data := string(must(os.ReadFile(hist)))
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), data)
	}
	want := []map[string]any{
		{"time": "2026-12-01T02:00:00Z", "verdict": "fail", "recall_at_n": 2.0 / 3, "zero_recall": 1.0, "candidates": 3.0, "context": 2.0, "queries": 3.0, "error": nil},
		{"time": "2026-12-02T02:00:00Z", "verdict": "pass", "recall_at_n": 1.0, "zero_recall": 0.0, "error": nil},
		{"time": "2026-12-03T02:00:00Z", "verdict": "error", "set": nil, "candidates": nil, "context": nil, "queries": nil, "recall_at_n": nil, "precision_at_k": nil,
			"ndcg_at_k": nil, "zero_recall": nil, "facts_found": nil, "facts_total": nil, "latency_p95_ms": nil},
	}
	ndcg := []float64{0.486, 0.819}
	for i, line := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		for k, v := range want[i] {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("line %d: %s = %v (present %v), want %v", i+1, k, g, ok, v)
			}
		}
		if i < 2 {
			if g := got["ndcg_at_k"].(float64); g < ndcg[i]-0.0005 || g > ndcg[i]+0.0005 {
				t.Errorf("line %d: nDCG@2 %v, want %.3f", i+1, g, ndcg[i])
			}
		}
	}
	if !strings.Contains(lines[2], `"error":{"exit_code":2,"stage":"run file","message":"score head run: `) {
		t.Errorf("the error entry: %s", lines[2])
	}

	// The same report again (same day): not added twice.
	code, out, _ := rg(t, "history", "add", "--history", hist, "--report", reports[0], "--time", "2026-12-01T09:00:00Z")
	if code != 0 || !strings.Contains(out, "already holds this run") || string(must(os.ReadFile(hist))) != data {
		t.Errorf("re-adding: exit %d %q", code, out)
	}

	page := filepath.Join(dir, "history.html")
	if code, _, errs := rg(t, "history", "render", "--history", hist, "--out", page); code != 0 {
		t.Fatalf("render: exit %d %s", code, errs)
	}
	svg := regexp.MustCompile(`(?s)<svg .*</svg>`).FindString(string(must(os.ReadFile(page))))
	for _, want := range []string{
		`<circle class="mark recall fail"`, `<title>2026-12-01 02:00 UTC · commit — · fail · recall@3 0.667</title>`,
		`<circle class="mark recall pass"`, `<title>2026-12-02 02:00 UTC · commit — · pass · nDCG@2 0.819</title>`,
		`<desc>not drawn (no value): recall@3 2026-12-03, nDCG@2 2026-12-03</desc>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q:\n%s", want, svg)
		}
	}
	if n, gaps := strings.Count(svg, `class="mark`), strings.Count(svg, `class="mark gap error"`); n != 5 || gaps != 1 {
		t.Errorf("%d marks (%d on the axis), want 5: two runs in two lines, the error a gap with its one mark on the axis", n, gaps)
	}
	for _, f := range []string{"markdown", "json"} {
		if code, out, errs := rg(t, "history", "render", "--history", hist, "--format", f); code != 0 || !strings.Contains(out, "error") {
			t.Errorf("render %s: exit %d %s %s", f, code, out, errs)
		}
	}

	// A corrupt line: exit 2, naming the file and the line; nothing added.
	corrupt := strings.Replace(data, `"verdict":"pass"`, `"verdict":"passed"`, 1)
	os.WriteFile(hist, []byte(corrupt), 0o644)
	for _, args := range [][]string{{"add", "--report", reports[0], "--time", "2026-12-09T00:00:00Z"}, {"render"}} {
		code, _, errs := rg(t, append([]string{"history"}, append(args, "--history", hist)...)...)
		if code != 2 || !strings.Contains(errs, hist+`:2: verdict "passed": want one of [pass fail inconclusive error]`) {
			t.Errorf("history %s on a corrupt line: exit %d %s", args[0], code, errs)
		}
	}
	if string(must(os.ReadFile(hist))) != corrupt {
		t.Error("a corrupt history was written over")
	}
	// Without --time the entry is stamped now, and stderr says so.
	fresh := filepath.Join(dir, "fresh.jsonl")
	if code, _, errs := rg(t, "history", "add", "--history", fresh, "--report", reports[1]); code != 0 || !strings.Contains(errs, "a report carries no time: the entry is stamped now") {
		t.Errorf("add without --time: exit %d %q", code, errs)
	}
	for _, bad := range [][]string{{"history"}, {"history", "plot", "--history", hist}, {"history", "add", "--history", hist}, {"history", "render", "--history", hist, "--format", "pdf"},
		{"history", "add", "--history", hist, "--report", reports[0], "--time", "yesterday"}, {"history", "render", "--history", hist, "--out", hist}} {
		if code, _, _ := rg(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
