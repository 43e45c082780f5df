package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// TestJudgeFlipShownInEveryFormat (#50 item 3): a judge whose grades the
// policy lets count (kappa 0.50 against min_judge_agreement 0.45, just
// over the bar) turns a failing head into a passing one, and every format
// says so in its headline: the judge, how many of its grades count, its
// kappa and the verdict without them; the JSON carries
// judge.verdict_without and grades_used, read back by the strict reader.
//
// Hand-computed (judgeWorld): without the judge each query's gold is
// {qNrel}; the base finds it, the head does not: head recall 0, under
// min_recall 0.4: fail. With it, qNa (tag [g3]) is gold too: base and head
// each find one of two, recall 0.5 both: pass. The judge's grades taken
// are qNa and qNb of the four queries (alice graded qNrel and qNnon): 8.
func TestJudgeFlipShownInEveryFormat(t *testing.T) {
	keys := "min_recall = 0.4\nmin_judge_agreement = 0.45\nmin_judge_overlap = 8"
	dir := judgeWorld(t, keys, "good", "10s")
	cfg := filepath.Join(dir, "recallgate.toml")
	compare := func(format string) (int, string) {
		t.Helper()
		code, out, errs := rg(t, "compare", "--config", cfg, "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, "head.jsonl"), "--format", format)
		if code > 1 {
			t.Fatalf("compare --format %s: exit %d\n%s", format, code, errs)
		}
		return code, out
	}
	// Before the judge has graded: people alone, the head fails.
	if code, out := compare("text"); code != 1 || strings.Contains(out, "judge tagger (kappa") {
		t.Fatalf("before judging: exit %d, want 1 and no judge clause\n%s", code, out)
	}
	_, first := judgedCompare(t, dir)
	if code, out, errs := rg(t, "judge", "--config", cfg, "--from-report", first); code != 0 {
		t.Fatalf("judge: exit %d\n%s%s", code, out, errs)
	}

	const clause = "rests on 8 grades of judge tagger (kappa 0.50); without them: fail"
	code, text := compare("text")
	if code != 0 || !strings.HasPrefix(text, "PASS  ") {
		t.Fatalf("with the judge's grades: exit %d, want a pass\n%s", code, text)
	}
	if head, _, _ := strings.Cut(text, "\n"); !strings.Contains(head, clause) {
		t.Errorf("text headline lacks %q:\n%s", clause, head)
	}
	_, md := compare("markdown")
	if head, _, _ := strings.Cut(md, "\n"); !strings.HasPrefix(head, "### ") || !strings.Contains(head, clause) {
		t.Errorf("Markdown headline lacks %q:\n%s", clause, head)
	}
	cmarkgfm.AssertInert(t, md)
	if _, html := compare("html"); !strings.Contains(html, clause) {
		t.Errorf("HTML lacks %q", clause)
	}
	if _, junit := compare("junit"); !strings.Contains(junit, `<property name="judge_verdict" value="`+clause+`">`) {
		t.Errorf("JUnit lacks the judge_verdict property %q:\n%s", clause, junit)
	}
	_, js := compare("json")
	var r struct {
		Verdict string `json:"verdict"`
		Judge   struct {
			Used           bool   `json:"used"`
			GradesUsed     int    `json:"grades_used"`
			VerdictWithout string `json:"verdict_without"`
		} `json:"judge"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "pass" || !r.Judge.Used || r.Judge.GradesUsed != 8 || r.Judge.VerdictWithout != "fail" {
		t.Errorf("JSON: verdict %s, judge %+v; want pass, 8 grades used, verdict_without fail", r.Verdict, r.Judge)
	}
	// Read back strictly, rendered again: the same clause.
	saved := write(t, dir, "judged.json", js)
	if code, out, errs := rg(t, "report", "--in", saved, "--format", "text"); code != 0 || !strings.Contains(out, clause) {
		t.Errorf("report --in: exit %d, want the clause\n%s%s", code, out, errs)
	}
	// A forged verdict_without is refused, naming the key.
	forged := strings.Replace(js, `"verdict_without": "fail"`, `"verdict_without": "maybe"`, 1)
	if forged == js {
		t.Fatalf("the JSON has no verdict_without to forge:\n%s", js)
	}
	if code, _, errs := rg(t, "report", "--in", write(t, dir, "forged.json", forged), "--format", "text"); code != 2 || !strings.Contains(errs, "judge.verdict_without") {
		t.Errorf("a forged verdict_without: exit %d, want 2 naming the key\n%s", code, errs)
	}

	// The same verdict either way says so.
	writeJudgeConfig(t, dir, "max_ndcg_drop = 1.0\nmax_precision_drop = 1.0\nmin_judge_agreement = 0.45\nmin_judge_overlap = 8", "good", "10s")
	if _, out := compare("text"); !strings.Contains(out, "rests on 8 grades of judge tagger (kappa 0.50); without them: also pass") {
		t.Errorf("no flip: the headline does not say the verdict stands without the judge:\n%s", out)
	}
	if err := os.Remove(saved); err != nil {
		t.Fatal(err)
	}
}
