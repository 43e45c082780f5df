package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// write puts content in a file under dir and returns its path.
func write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rg runs the CLI in-process and returns its exit code, stdout and stderr.
func rg(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
	return code, out.String(), errb.String()
}

// The same labels and results as JSONL and as TREC qrels/run. Hand-computed
// at N=3, k=2:
//
//	q1 gold {a:3, b:1}; run [a#1 a#2 x b] → docs [a x b]
//	   recall@3 = 2/2 = 1; P@2 = 1/2; DCG@2 = 3; ideal = 3 + 1/log2(3); RR = 1
//	q2 gold {c:2, d:0}; run [d c] → recall 1; P@2 = 1/2; DCG = 2/log2(3); ideal 2; RR = 1/2
//	q3 gold {e:1}; run [y z w e] → recall@3 = 0; P@2 = 0; nDCG 0; RR = 1/4
const (
	setJSONL = `{"id":"q1","query":"first","gold":{"a":3,"b":1}}
{"id":"q2","query":"second","gold":{"c":2,"d":0}}
{"id":"q3","query":"third","gold":{"e":1}}
`
	setQrels = "q1 0 a 3\nq1 0 b 1\nq2 0 c 2\nq2 0 d 0\nq3 0 e 1\n"
	runJSONL = `{"id":"q1","hits":[{"doc":"a","chunk":"a#1"},{"doc":"a","chunk":"a#2"},{"doc":"x"},{"doc":"b"}]}
{"id":"q2","hits":[{"doc":"d"},{"doc":"c"}]}
{"id":"q3","hits":[{"doc":"y"},{"doc":"z"},{"doc":"w"},{"doc":"e"}]}
`
	// Ranks are written in an order trec_eval ignores; scores decide.
	runTREC = "q1 Q0 a 3 9.0 t\nq1 Q0 x 1 8.0 t\nq1 Q0 b 2 7.0 t\n" +
		"q2 Q0 d 1 5.0 t\nq2 Q0 c 2 4.0 t\n" +
		"q3 Q0 y 1 4 t\nq3 Q0 z 2 3 t\nq3 Q0 w 3 2 t\nq3 Q0 e 4 1 t\n"
)

type jsonScore struct {
	Summary struct {
		RecallAtN    float64  `json:"recall_at_n"`
		PrecisionAtK float64  `json:"precision_at_k"`
		NDCGAtK      float64  `json:"ndcg_at_k"`
		RR           float64  `json:"rr"`
		ZeroRecall   []string `json:"zero_recall"`
		BelowHalf    int      `json:"below_half"`
	} `json:"summary"`
	Metrics []struct {
		Key, Unit, Stage, Denominator string
		Depth                         int
	} `json:"metrics"`
	Queries []struct {
		ID           string  `json:"id"`
		RecallAtN    float64 `json:"recall_at_n"`
		PrecisionAtK float64 `json:"precision_at_k"`
		NDCGAtK      float64 `json:"ndcg_at_k"`
		RR           float64 `json:"rr"`
		FirstHitRank *int    `json:"first_hit_rank"`
	} `json:"queries"`
}

func scoreJSON(t *testing.T, set, results string) jsonScore {
	t.Helper()
	code, out, errs := rg(t, "score", "--set", set, "--results", results, "--candidates", "3", "--context", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var js jsonScore
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatal(err)
	}
	return js
}

func TestScoreHandComputed(t *testing.T) {
	dir := t.TempDir()
	l3 := math.Log2(3)
	want := []struct {
		recall, p, ndcg, rr float64
		first               int
	}{
		{1, 0.5, 3 / (3 + 1/l3), 1, 1},
		{1, 0.5, (2 / l3) / 2, 0.5, 2},
		{0, 0, 0, 0.25, 4},
	}
	for _, form := range []struct{ name, set, run string }{
		{"jsonl", write(t, dir, "set.jsonl", setJSONL), write(t, dir, "run.jsonl", runJSONL)},
		{"trec", write(t, dir, "qrels.txt", setQrels), write(t, dir, "run.trec", runTREC)},
	} {
		t.Run(form.name, func(t *testing.T) {
			js := scoreJSON(t, form.set, form.run)
			if len(js.Queries) != 3 {
				t.Fatalf("%d queries", len(js.Queries))
			}
			for i, w := range want {
				q := js.Queries[i]
				if math.Abs(q.RecallAtN-w.recall) > 1e-12 || math.Abs(q.PrecisionAtK-w.p) > 1e-12 || math.Abs(q.NDCGAtK-w.ndcg) > 1e-12 || math.Abs(q.RR-w.rr) > 1e-12 {
					t.Errorf("%s: got %+v, want %+v", q.ID, q, w)
				}
				if q.FirstHitRank == nil || *q.FirstHitRank != w.first {
					t.Errorf("%s: first hit %v, want %d", q.ID, q.FirstHitRank, w.first)
				}
			}
			if s := js.Summary; math.Abs(s.RecallAtN-2.0/3) > 1e-12 || math.Abs(s.RR-1.75/3) > 1e-12 || strings.Join(s.ZeroRecall, ",") != "q3" || s.BelowHalf != 1 {
				t.Errorf("summary %+v", s)
			}
			if m := js.Metrics[0]; m.Key != "recall_at_n" || m.Depth != 3 || m.Unit != "documents" || m.Stage != "candidates" || m.Denominator == "" {
				t.Errorf("metric %+v", m)
			}
			if m := js.Metrics[2]; m.Key != "ndcg_at_k" || m.Depth != 2 || m.Stage != "context" {
				t.Errorf("metric %+v", m)
			}
		})
	}
}

func TestScoreMissingQueryWarns(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	run := write(t, dir, "run.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}`+"\n")
	code, out, errs := rg(t, "score", "--set", set, "--results", run)
	if code != 0 || !strings.Contains(errs, "query q2 is not in the run; scored as an empty result") || !strings.Contains(out, "zero recall (2)") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

// thirty writes a set of thirty one-gold queries and a run that finds every
// gold doc except for the queries in lose.
func thirty(t *testing.T, dir string, lose ...string) (set, base, head string) {
	t.Helper()
	var s, b, h strings.Builder
	for i := 1; i <= 30; i++ {
		id := fmt.Sprintf("q%02d", i)
		fmt.Fprintf(&s, `{"id":%q,"query":"question %d","gold":{"doc%02d":1}}`+"\n", id, i, i)
		fmt.Fprintf(&b, `{"id":%q,"hits":[{"doc":"doc%02d"},{"doc":"other"}]}`+"\n", id, i)
		hit := fmt.Sprintf("doc%02d", i)
		for _, l := range lose {
			if l == id {
				hit = "wrong"
			}
		}
		fmt.Fprintf(&h, `{"id":%q,"hits":[{"doc":%q},{"doc":"other"}]}`+"\n", id, hit)
	}
	return write(t, dir, "set.jsonl", s.String()), write(t, dir, "base.jsonl", b.String()), write(t, dir, "head.jsonl", h.String())
}

func TestCompareOneRegressionExits1(t *testing.T) {
	set, base, head := thirty(t, t.TempDir(), "q17")
	code, out, errs := rg(t, "compare", "--set", set, "--base", base, "--head", head)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	if !strings.HasPrefix(out, "FAIL") || !strings.Contains(out, "regressed (1)\n  q17") || !strings.Contains(out, "-0.033") {
		t.Errorf("report:\n%s", out)
	}
	code, out, _ = rg(t, "compare", "--set", set, "--base", base, "--head", head, "--format", "json")
	var js struct {
		Verdict   string   `json:"verdict"`
		Regressed []string `json:"regressed"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != 1 || js.Verdict != "fail" || strings.Join(js.Regressed, ",") != "q17" {
		t.Errorf("json exit %d verdict %q regressed %v err %v", code, js.Verdict, js.Regressed, err)
	}
}

func TestCompareNoDropExits0(t *testing.T) {
	set, base, _ := thirty(t, t.TempDir())
	code, out, errs := rg(t, "compare", "--set", set, "--base", base, "--head", base)
	if code != 0 || !strings.HasPrefix(out, "PASS") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

func TestCompareThresholdsFromConfigAndFlags(t *testing.T) {
	dir := t.TempDir()
	set, base, head := thirty(t, dir, "q17")
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[gate]\nmax_recall_drop = 0.05\nmax_new_misses = 1\n")
	if code, out, errs := rg(t, "compare", "--config", cfg, "--base", base, "--head", head); code != 0 {
		t.Errorf("config thresholds: exit %d\n%s%s", code, out, errs)
	}
	if code, _, _ := rg(t, "compare", "--config", cfg, "--set", set, "--base", base, "--head", head, "--max-recall-drop", "0.02"); code != 1 {
		t.Errorf("flag over config: exit %d, want 1", code)
	}
	bad := write(t, dir, "bad.toml", "[gate]\nmax_recal_drop = 0.05\n")
	if code, _, errs := rg(t, "compare", "--config", bad, "--set", set, "--base", base, "--head", head); code != 2 || !strings.Contains(errs, "bad.toml:2: gate.max_recal_drop: unknown key; did you mean max_recall_drop?") {
		t.Errorf("typo in config: exit %d %s", code, errs)
	}
}

func TestMalformedInputsExit2WithFileAndLine(t *testing.T) {
	dir := t.TempDir()
	var six strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&six, `{"id":"q%d","query":"x","gold":{"d":1}}`+"\n", i)
	}
	good := `{"id":"q1","query":"x","gold":{"d":1}}` + "\n"
	run := write(t, dir, "run.jsonl", `{"id":"q1","hits":[]}`+"\n")
	tests := []struct{ name, content, want string }{
		{"badjson.jsonl", six.String() + `{"id":"q7","query":"x","gold":{"d":1}` + "\n", "badjson.jsonl:7: invalid JSON"},
		{"unknown.jsonl", `{"id":"q1","query":"x","gold":{"d":1},"labels":{}}` + "\n", "unknown.jsonl:1: labels: unknown field"},
		{"grade.jsonl", good + `{"id":"q2","query":"x","gold":{"d":5}}` + "\n", "grade.jsonl:2: gold.d: query \"q2\": grade 5 is outside 0–3"},
		{"dup.jsonl", good + good, "dup.jsonl:2: id: duplicate query id \"q1\""},
		{"empty.jsonl", "", "empty.jsonl: eval set is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := write(t, dir, tt.name, tt.content)
			for _, args := range [][]string{
				{"validate", "--set", set},
				{"score", "--set", set, "--results", run},
			} {
				code, _, errs := rg(t, args...)
				if code != 2 || !strings.Contains(errs, tt.want) {
					t.Errorf("%s: exit %d, stderr %q, want 2 and %q", args[0], code, errs, tt.want)
				}
			}
		})
	}
	set := write(t, dir, "ok.jsonl", good)
	badRun := write(t, dir, "badrun.jsonl", `{"id":"q1","hits":[{"chunk":"c1"}]}`+"\n")
	if code, _, errs := rg(t, "score", "--set", set, "--results", badRun); code != 2 || !strings.Contains(errs, "badrun.jsonl:1: hits[0].doc") {
		t.Errorf("hit without doc: exit %d %q", code, errs)
	}
	if code, _, errs := rg(t, "score", "--set", set, "--results", filepath.Join(dir, "nope.jsonl")); code != 2 || !strings.Contains(errs, "nope.jsonl") {
		t.Errorf("missing run: exit %d %q", code, errs)
	}
	foreign := write(t, dir, "foreign.jsonl", `{"id":"zz","hits":[]}`+"\n")
	if code, _, errs := rg(t, "score", "--set", set, "--results", foreign); code != 2 || !strings.Contains(errs, "wrong file") {
		t.Errorf("foreign run: exit %d %q", code, errs)
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Commands:"},
		{[]string{"frobnicate"}, 2, "unknown command \"frobnicate\""},
		{[]string{"score"}, 2, "--results is required"},
		{[]string{"score", "--results", "r", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"compare", "--set", "s"}, 2, "--base and --head are required"},
		{[]string{"score", "--results", "r", "--format", "pdf"}, 2, "unknown format"},
		{[]string{"score", "--results", "r", "--set", "s", "--context", "0"}, 2, "context depth must be at least 1"},
		{[]string{"score", "extra"}, 2, "unexpected argument"},
	}
	for _, tt := range tests {
		code, _, errs := rg(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
	if code, out, _ := rg(t, "--version"); code != 0 || !strings.HasPrefix(out, "recallgate ") {
		t.Errorf("--version: %d %q", code, out)
	}
	for _, c := range []string{"score", "compare", "validate"} {
		code, out, _ := rg(t, c, "--help")
		if code != 0 || !strings.Contains(out, "Examples:\n  recallgate "+c) || !strings.Contains(out, "Flags:") {
			t.Errorf("%s --help: %d\n%s", c, code, out)
		}
	}
}

func TestValidateCorpus(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"x","gold":{"guide/a":1}}`+"\n"+`{"id":"q2","query":"y","gold":{"guide/b":2,"gone":1}}`+"\n")
	write(t, dir, "corpus/guide/a.md", "# A\ntext")
	write(t, dir, "corpus/guide/b.txt", "text")
	code, out, errs := rg(t, "validate", "--set", set, "--corpus", filepath.Join(dir, "corpus"))
	if code != 2 || !strings.Contains(errs, "set.jsonl:2: query q2: gold not in corpus: gone") || !strings.Contains(out, "ok: ") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	write(t, dir, "corpus/gone.md", "now here")
	if code, out, errs := rg(t, "validate", "--set", set, "--corpus", filepath.Join(dir, "corpus")); code != 0 || !strings.Contains(out, "all gold documents are among its 3 documents") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

func TestOutWritesFile(t *testing.T) {
	dir := t.TempDir()
	set, base, head := thirty(t, dir, "q03")
	out := filepath.Join(dir, "comment.md")
	code, stdout, _ := rg(t, "compare", "--set", set, "--base", base, "--head", head, "--format", "markdown", "--out", out)
	data, err := os.ReadFile(out)
	if code != 1 || err != nil || stdout != "" || !bytes.HasPrefix(data, []byte("### ❌ recallgate: fail")) {
		t.Errorf("exit %d err %v stdout %q file %q", code, err, stdout, data)
	}
}

// TestBinary builds the real binary and checks the exit codes end to end.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "recallgate")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	set, base, head := thirty(t, dir, "q09")
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"compare", "--set", set, "--base", base, "--head", head}, 1},
		{[]string{"compare", "--set", set, "--base", base, "--head", base}, 0},
		{[]string{"validate", "--set", filepath.Join(dir, "missing.jsonl")}, 2},
	} {
		err := exec.Command(bin, tt.args...).Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d", tt.args, code, tt.code)
		}
	}
}

func TestValidateConfig(t *testing.T) {
	code, out, errs := rg(t, "validate", "--config", "../../frozen-set/recallgate.toml")
	if code != 0 || !strings.Contains(out, "config is valid") || !strings.Contains(out, "all gold documents are among its 62 documents") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[[waiver]]\nquery = \"q9\"\nreason = \"r\"\nexpires = \"2999-01-01\"\n")
	if code, _, errs := rg(t, "validate", "--config", cfg); code != 2 || !strings.Contains(errs, `waiver for query "q9": no such query in`) {
		t.Errorf("unknown waiver query: exit %d %s", code, errs)
	}
}

// TestScoreSpillTroubleIsInfra: score --format json parks each query's
// entry in a temporary file; a temporary folder that cannot be written is
// the machine's trouble (exit 3), named, not the input's.
func TestScoreSpillTroubleIsInfra(t *testing.T) {
	dir := t.TempDir()
	set, base, _ := thirty(t, dir, "q09")
	t.Setenv("TMPDIR", filepath.Join(dir, "no-such-folder"))
	code, _, errs := rg(t, "score", "--set", set, "--results", base, "--format", "json")
	if code != 3 || !strings.Contains(errs, "score spill") || !strings.Contains(errs, "no-such-folder") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if code, _, errs := rg(t, "score", "--set", set, "--results", base); code != 0 {
		t.Errorf("text needs no spill: exit %d %s", code, errs)
	}
}

// TestThresholdsListEveryEffectiveLimit: a config that writes one [gate]
// key still gets every rule's effective limit under `thresholds` in the
// JSON report (it listed only the keys written), and each whole-set
// rule's `limit` in `rules` is the one `thresholds` gives.
func TestThresholdsListEveryEffectiveLimit(t *testing.T) {
	dir := t.TempDir()
	_, base, head := thirty(t, dir, "q17")
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[gate]\nmax_recall_drop = 0.05\n")
	jsonOut := filepath.Join(dir, "report.json")
	if code, out, errs := rg(t, "compare", "--config", cfg, "--base", base, "--head", head, "--json-out", jsonOut); code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Thresholds map[string]any `json:"thresholds"`
		Rules      []struct {
			Name    string `json:"name"`
			Segment string `json:"segment"`
			Limit   any    `json:"limit"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"max_recall_drop": 0.05, "max_new_misses": 0.0, "max_ndcg_drop": 0.05, "max_precision_drop": 0.05, "min_flipped": 1.0, "min_segment_queries": 5.0}
	for k, v := range want {
		if got, ok := rep.Thresholds[k]; !ok || got != v {
			t.Errorf("thresholds.%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if len(rep.Rules) < 4 {
		t.Fatalf("rules %+v", rep.Rules)
	}
	for _, r := range rep.Rules {
		if v, ok := rep.Thresholds[r.Name]; r.Segment == "" && ok && r.Limit != nil && v != r.Limit {
			t.Errorf("rule %s: limit %v, thresholds say %v", r.Name, r.Limit, v)
		}
	}
}
