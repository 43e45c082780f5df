package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// unjudgedRetriever answers each query qNN with its gold gNN and its
// judged non-relevant zNN; when order.txt beside it says "head", ten
// documents nobody judged (qNN-u01 … qNN-u10) come first, as a reranker
// that surfaces new documents would put them: recall@N stays the same.
const unjudgedRetriever = `import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
head = open(os.path.join(here, "order.txt")).read().strip() == "head"
for line in sys.stdin:
    req = json.loads(line)
    n = req["id"][1:]
    docs = ["g" + n, "z" + n]
    if head:
        docs = ["q%s-u%02d" % (n, i) for i in range(1, 11)] + docs
    print(json.dumps({"id": req["id"], "hits": [{"doc": d, "score": 20 - i} for i, d in enumerate(docs)]}), flush=True)
`

// unjudgedConfig is the fixture's config: context k = 10 holds all ten
// unjudged documents, candidates N = 20 the gold behind them.
const unjudgedConfig = "set = \"queries.jsonl\"\n[depth]\ncandidates = 20\ncontext = 10\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \"retriever.py\"]\n"

// burialFixture is a repository whose base commit holds a set shaped
// like the new user's (each query: gold plus one grade-0 row), the base
// ranking and the config with gate (the [gate] table's body, "" for none);
// the head commit puts the ten unjudged documents above the gold and sets
// its own [gate] table to headGate.
func burialFixture(t *testing.T, baseGate, headGate string) *fixture {
	t.Helper()
	f := emptyRepo(t)
	var set strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&set, `{"id":"q%02d","query":"question %d","gold":{"g%02d":1,"z%02d":0}}`+"\n", i, i, i, i)
	}
	f.put("rag/queries.jsonl", set.String())
	f.put("rag/retriever.py", unjudgedRetriever)
	f.put("rag/order.txt", "base\n")
	f.put("rag/recallgate.toml", unjudgedConfig+gateTable(baseGate))
	f.base = f.commit("base")
	f.put("rag/order.txt", "head\n")
	f.put("rag/recallgate.toml", unjudgedConfig+gateTable(headGate))
	f.commit("rerank")
	return f
}

func gateTable(body string) string {
	if body == "" {
		return ""
	}
	return "[gate]\n" + body
}

// unjudgedReport is the part of the JSON report these tests read.
type unjudgedReport struct {
	Verdict string `json:"verdict"`
	Rules   []struct {
		Name, Outcome, Reason string
	} `json:"rules"`
	Summary struct {
		Base, Head struct {
			RecallAtN    float64 `json:"recall_at_n"`
			PrecisionAtK float64 `json:"precision_at_k"`
			NDCGAtK      float64 `json:"ndcg_at_k"`
		}
	} `json:"summary"`
	Unjudged struct {
		Mode string `json:"mode"`
	} `json:"unjudged"`
	Policy *struct {
		Changes []struct{ Key, Base, Head string } `json:"changes"`
	} `json:"policy"`
}

// unjudgedGate runs `gate --base-ref` on f, the text report on stdout and
// the JSON one decoded.
func unjudgedGate(t *testing.T, f *fixture, extra ...string) (int, string, unjudgedReport) {
	t.Helper()
	jsonOut := filepath.Join(t.TempDir(), "report.json")
	var out, errb bytes.Buffer
	tmp := t.TempDir()
	e := &env{getenv: func(k string) string { return map[string]string{"RUNNER_TEMP": tmp}[k] }, stdout: &out, stderr: &errb, now: func() time.Time { return policyToday }}
	runner, rest, err := gateCommand.Parse(append([]string{"--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", f.base, "--json-out", jsonOut}, extra...))
	if err == nil {
		err = runner(context.Background(), e, rest)
	}
	code := exitCode(err)
	var rep unjudgedReport
	if code >= 2 {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out.String(), errb.String())
	}
	data, rerr := os.ReadFile(jsonOut)
	if rerr != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("report: %v\n%s\n%s", rerr, data, errb.String())
	}
	return code, out.String(), rep
}

func (r unjudgedReport) outcome(name string) (string, string) {
	for _, x := range r.Rules {
		if x.Name == name {
			return x.Outcome, x.Reason
		}
	}
	return "absent", ""
}

// TestUnjudgedDefaultFails: by default (trec_eval's reading) a head that
// buries the gold under ten documents nobody judged fails on the nDCG and
// precision drops, and each reason counts them and says how to clear them.
func TestUnjudgedDefaultFails(t *testing.T) {
	f := burialFixture(t, "", "")
	code, text, rep := unjudgedGate(t, f)
	if code != 1 || rep.Verdict != "fail" {
		t.Fatalf("exit %d verdict %s, want 1 fail\n%s", code, rep.Verdict, text)
	}
	if rep.Summary.Base.RecallAtN != 1 || rep.Summary.Head.RecallAtN != 1 {
		t.Errorf("recall@20 base %v head %v, want 1 and 1 (only the ranking moved)", rep.Summary.Base.RecallAtN, rep.Summary.Head.RecallAtN)
	}
	for _, name := range []string{"max_ndcg_drop", "max_precision_drop"} {
		out, why := rep.outcome(name)
		if out != "fail" || !strings.Contains(why, "fails with 120 documents nobody judged in the head's top 10 counted non-relevant; if they are relevant, judge them (`recallgate label --from-report report.json`) and score again") {
			t.Errorf("%s: %s %q", name, out, why)
		}
	}
	if rep.Unjudged.Mode != "nonrelevant" {
		t.Errorf("unjudged.mode %q, want nonrelevant", rep.Unjudged.Mode)
	}
	if !strings.Contains(text, "Head precision@10 is 0.000 … 1.000") {
		t.Errorf("the range line is gone in the default reading:\n%s", text)
	}
}

// TestUnjudgedDebtBounded: the label-debt block of the text report lists
// ten of the twelve queries, then says how many more the JSON holds.
func TestUnjudgedDebtBounded(t *testing.T) {
	f := burialFixture(t, "", "")
	_, text, _ := unjudgedGate(t, f)
	if n := strings.Count(text, "  unjudged in head context: "); n != 10 || !strings.Contains(text, "  q10  unjudged in head context: q10-u01, ") ||
		!strings.Contains(text, "\n  …and 2 more queries (the JSON lists them all)\n") {
		t.Errorf("label debt lists %d queries, want 10 then \"…and 2 more queries\":\n%s", n, text)
	}
}

// TestUnjudgedRangeFromBase: the base commit's unjudged = "range" reads
// the same change inconclusive (exit 0); the pull request's own "range"
// is a proposal and the change still fails.
func TestUnjudgedRangeFromBase(t *testing.T) {
	f := burialFixture(t, "unjudged = \"range\"\n", "unjudged = \"range\"\n")
	code, text, rep := unjudgedGate(t, f)
	if code != 0 || rep.Verdict != "inconclusive" || rep.Unjudged.Mode != "range" {
		t.Fatalf("base range: exit %d verdict %s mode %q, want 0 inconclusive range\n%s", code, rep.Verdict, rep.Unjudged.Mode, text)
	}
	if out, _ := rep.outcome("max_ndcg_drop"); out != "inconclusive" {
		t.Errorf("base range: max_ndcg_drop %s", out)
	}

	f = burialFixture(t, "", "unjudged = \"range\"\n")
	code, text, rep = unjudgedGate(t, f)
	if code != 1 || rep.Verdict != "fail" || rep.Unjudged.Mode != "nonrelevant" {
		t.Fatalf("the PR's own range: exit %d verdict %s mode %q, want 1 fail nonrelevant (the base's policy)\n%s", code, rep.Verdict, rep.Unjudged.Mode, text)
	}
	if rep.Policy == nil || len(rep.Policy.Changes) != 1 || rep.Policy.Changes[0] != (struct{ Key, Base, Head string }{"unjudged", "nonrelevant", "range"}) {
		t.Errorf("policy %+v: want the proposal unjudged nonrelevant → range", rep.Policy)
	}
	if h := headlineOf(text); !strings.Contains(h, "unjudged nonrelevant → range") {
		t.Errorf("headline %q does not name the proposal", h)
	}
}

// TestUnjudgedCondensed: the base's unjudged = "condensed" removes the
// documents nobody judged from both lists before the cut: the head's
// nDCG@10 and precision@10 are the base's, the change passes, and the set
// line says how it was scored.
func TestUnjudgedCondensed(t *testing.T) {
	f := burialFixture(t, "unjudged = \"condensed\"\n", "unjudged = \"condensed\"\n")
	code, text, rep := unjudgedGate(t, f)
	if code != 0 || rep.Verdict != "pass" || rep.Unjudged.Mode != "condensed" {
		t.Fatalf("condensed: exit %d verdict %s mode %q, want 0 pass condensed\n%s", code, rep.Verdict, rep.Unjudged.Mode, text)
	}
	s := rep.Summary
	if s.Head.NDCGAtK != s.Base.NDCGAtK || s.Head.NDCGAtK != 1 || s.Head.PrecisionAtK != s.Base.PrecisionAtK || math.Abs(s.Head.PrecisionAtK-0.1) > 1e-9 {
		t.Errorf("condensed: nDCG@10 base %v head %v, precision@10 base %v head %v; want 1, 1, 0.1, 0.1", s.Base.NDCGAtK, s.Head.NDCGAtK, s.Base.PrecisionAtK, s.Head.PrecisionAtK)
	}
	if !strings.Contains(text, "unit: documents, condensed (precision and nDCG over each side's list with the documents nobody judged removed before the cut, both sides)") {
		t.Errorf("the set line does not say condensed:\n%s", text)
	}
	if !strings.Contains(text, "Label debt: 120 unjudged documents in 12 queries") {
		t.Errorf("condensed drops the label debt:\n%s", text)
	}
	for format, want := range map[string]string{
		"markdown": "precision and nDCG at k=10 in context · document level, condensed (precision and nDCG over each side's list with the documents nobody judged removed before the cut, both sides) · gate:",
		"html":     "precision and nDCG at k=10, condensed (precision and nDCG over each side&#39;s list with the documents nobody judged removed before the cut, both sides) ·",
	} {
		if _, out, _ := unjudgedGate(t, f, "--format", format); !strings.Contains(out, want) {
			t.Errorf("%s: the set line does not say condensed (want %q):\n%.3000s", format, want, out)
		}
	}
}

// TestUnjudgedRescoreSavedRuns: the loop without a second retrieval. The
// runs `gate --save-runs` wrote are scored again by `compare` on the set
// with the head's documents judged: judged relevant, the head passes;
// judged not relevant, it fails with no document left unjudged. A set
// whose query reads otherwise than when the runs were made is refused,
// naming that query.
func TestUnjudgedRescoreSavedRuns(t *testing.T) {
	f := burialFixture(t, "", "")
	saved := filepath.Join(t.TempDir(), "saved")
	if code, text, _ := unjudgedGate(t, f, "--save-runs", saved); code != 1 {
		t.Fatalf("gate: exit %d, want 1\n%s", code, text)
	}
	dir := t.TempDir()
	relabel := func(name string, grade int, text func(i int) string) string {
		var b strings.Builder
		for i := 1; i <= 12; i++ {
			fmt.Fprintf(&b, `{"id":"q%02d","query":%q,"gold":{"g%02d":1,"z%02d":0`, i, text(i), i, i)
			for u := 1; u <= 10; u++ {
				fmt.Fprintf(&b, `,"q%02d-u%02d":%d`, i, u, grade)
			}
			b.WriteString("}}\n")
		}
		return write(t, dir, name, b.String())
	}
	same := func(i int) string { return fmt.Sprintf("question %d", i) }
	compare := func(set string) (int, string, string) {
		return rg(t, "compare", "--set", set, "--base", filepath.Join(saved, "base.jsonl"), "--head", filepath.Join(saved, "head.jsonl"), "--candidates", "20", "--context", "10")
	}
	// Judged relevant: the head's top 10 holds ten relevant documents where
	// the base's held one.
	code, out, errs := compare(relabel("relevant.jsonl", 1, same))
	if code != 0 || !strings.HasPrefix(out, "PASS") || !strings.Contains(out, "precision@10  0.100  1.000") {
		t.Errorf("judged relevant: exit %d, want 0 and a pass at precision@10 0.100 → 1.000\n%s%s", code, out, errs)
	}
	code, out, errs = compare(relabel("not-relevant.jsonl", 0, same))
	if code != 1 || !strings.HasPrefix(out, "FAIL") || strings.Contains(out, "nobody judged") || strings.Contains(out, "Label debt") {
		t.Errorf("judged not relevant: exit %d, want 1, a fail with nothing left unjudged\n%s%s", code, out, errs)
	}
	reworded := relabel("reworded.jsonl", 1, func(i int) string {
		if i == 7 {
			return "question seven"
		}
		return same(i)
	})
	code, _, errs = compare(reworded)
	if code != 2 || !strings.Contains(errs, `base.jsonl: this run was made for other query texts than `+reworded+`: query "q07" reads otherwise than when it was retrieved`) {
		t.Errorf("reworded q07: exit %d, want 2 naming q07\n%s", code, errs)
	}
}

// TestProposalRemovesWhatItBreaks: a change that breaks q26 and proposes
// removing it (and q01, which it leaves alone) says so in the headline of
// the text and Markdown reports and in the proposal's removed line.
func TestProposalRemovesWhatItBreaks(t *testing.T) {
	f := newFixture(t, builtinConfig)
	regressCorpus(f)
	first, _, _ := strings.Cut(string(must(os.ReadFile(filepath.Join(f.dir, "rag/queries.jsonl")))), "\n")
	f.edit("rag/queries.jsonl", first+"\n", "")
	f.edit("rag/queries.jsonl", q26Line+"\n", "")
	f.commit("break q26, remove it and q01")
	code, text, _ := unjudgedGate(t, f)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, text)
	}
	if want := "set: the base commit's (30 queries); this change proposes 2 removed; 1 of them regresses in it"; !strings.Contains(headlineOf(text), want) {
		t.Errorf("text headline %q lacks %q", headlineOf(text), want)
	}
	if want := "removed (still gated: the base commit's set holds them; 1 of them regresses in this change): q01, q26"; !strings.Contains(text, want) {
		t.Errorf("text report lacks %q:\n%s", want, text)
	}
	_, md, _ := unjudgedGate(t, f, "--format", "markdown")
	for _, want := range []string{"this change proposes 2 removed; 1 of them regresses in it",
		"- **proposal:** removed (still gated: the base commit's set holds them; 1 of them regresses in this change): `q01`, `q26`"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}

	// Only q26 removed: the one it removes is the one it breaks.
	f = newFixture(t, builtinConfig)
	regressCorpus(f)
	f.edit("rag/queries.jsonl", q26Line+"\n", "")
	f.commit("break q26 and remove it")
	_, text, _ = unjudgedGate(t, f)
	if want := "this change proposes 1 removed; that query regresses in it"; !strings.Contains(headlineOf(text), want) {
		t.Errorf("text headline %q lacks %q", headlineOf(text), want)
	}
}

// TestWeakPassSaysWhatItRulesOut: eight queries, four found only by the
// base and four only by the head, pass with a mean drop of 0; the set is
// too small to rule out much, and the headline says how little. The same
// runs against themselves pass ruling out any drop, and say nothing more.
func TestWeakPassSaysWhatItRulesOut(t *testing.T) {
	dir := t.TempDir()
	var set, base, head strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&set, `{"id":"q%d","query":"question %d","gold":{"g%d":1}}`+"\n", i, i, i)
		found, missed := fmt.Sprintf(`{"id":"q%d","hits":[{"doc":"g%d"}]}`+"\n", i, i), fmt.Sprintf(`{"id":"q%d","hits":[{"doc":"x"}]}`+"\n", i)
		if i <= 4 {
			base.WriteString(found)
			head.WriteString(missed)
		} else {
			base.WriteString(missed)
			head.WriteString(found)
		}
	}
	s, b, h := write(t, dir, "set.jsonl", set.String()), write(t, dir, "base.jsonl", base.String()), write(t, dir, "head.jsonl", head.String())
	code, out, errs := rg(t, "compare", "--set", s, "--base", b, "--head", h, "--candidates", "10", "--context", "5", "--max-new-misses", "8")
	// precision@5's bound, 0.100, is twice its limit 0.05, not more: left out.
	want := " · rules out only drops of recall@10 > 0.500, nDCG@5 > 0.500"
	if code != 0 || !strings.HasSuffix(headlineOf(out), want) {
		t.Errorf("exit %d, headline %q: want 0 and %q\n%s", code, headlineOf(out), want, errs)
	}
	code, out, _ = rg(t, "compare", "--set", s, "--base", b, "--head", b, "--candidates", "10", "--context", "5")
	if code != 0 || !strings.HasPrefix(out, "PASS") || strings.Contains(headlineOf(out), "rules out only") {
		t.Errorf("identical runs: exit %d, headline %q", code, headlineOf(out))
	}
}
