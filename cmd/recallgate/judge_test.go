package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/mddoc"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// judgeWorld writes the acceptance's world into a new folder: four queries
// judged by one person, alice (one relevant, one not, each), a base run
// returning those two, a head run bringing two documents nobody judged
// into its top 2 in every query (8 in all), and a corpus whose tags make
// the judge (testdata/judge/judge.py: grade = the "[gN]" tag of the text)
// agree with alice on 6 of her 8 documents: q1's relevant one gets 0 and
// q1's other one 2. gateKeys go into [gate], mode is the judge's argument.
//
// Hand-computed: people 2,0 ×4; judge q1: 0,2, q2–q4: 2,0. Relevant or
// not: observed 6/8, both say relevant 4 of 8 times, so chance is
// 0.5·0.5+0.5·0.5 = 0.5 and kappa = (0.75−0.5)/(1−0.5) = 0.50.
func judgeWorld(t *testing.T, gateKeys, mode, timeout string) (dir string) {
	t.Helper()
	dir = judgeDir(t)
	var set, corpus, base, head strings.Builder
	for i := 1; i <= 4; i++ {
		q := fmt.Sprintf("q%d", i)
		fmt.Fprintf(&set, `{"id":%q,"query":"question %d","gold":{"%srel":2},"judgments":{"alice":{"%srel":2,"%snon":0}}}`+"\n", q, i, q, q, q)
		relTag, nonTag := "[g2]", ""
		if i == 1 {
			relTag, nonTag = "", "[g2]"
		}
		fmt.Fprintf(&corpus, `{"id":"%srel","title":"%s relevant","text":"the answer to question %d %s"}`+"\n", q, q, i, relTag)
		fmt.Fprintf(&corpus, `{"id":"%snon","title":"%s other","text":"something else %s"}`+"\n", q, q, nonTag)
		fmt.Fprintf(&corpus, `{"id":"%sa","title":"%s new a","text":"a fresh page [g3]"}`+"\n", q, q)
		fmt.Fprintf(&corpus, `{"id":"%sb","title":"%s new b","text":"a fresh page without a tag"}`+"\n", q, q)
		fmt.Fprintf(&base, `{"id":%q,"hits":[{"doc":"%srel"},{"doc":"%snon"}]}`+"\n", q, q, q)
		fmt.Fprintf(&head, `{"id":%q,"hits":[{"doc":"%sa"},{"doc":"%sb"}]}`+"\n", q, q, q)
	}
	write(t, dir, "set.jsonl", set.String())
	write(t, dir, "corpus.jsonl", corpus.String())
	write(t, dir, "base.jsonl", base.String())
	write(t, dir, "head.jsonl", head.String())
	writeJudgeConfig(t, dir, gateKeys, mode, timeout)
	return dir
}

// judgeDir is a new folder holding testdata/judge/judge.py.
func judgeDir(t *testing.T) string {
	t.Helper()
	needTool(t, "python3")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "judge", "judge.py"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "judge.py", string(src))
	return dir
}

// writeJudgeConfig (re)writes the world's recallgate.toml.
func writeJudgeConfig(t *testing.T, dir, gateKeys, mode, timeout string) {
	t.Helper()
	write(t, dir, "recallgate.toml", fmt.Sprintf(`set = "set.jsonl"
corpus = "corpus.jsonl"
[depth]
candidates = 2
context = 2
[gate]
max_recall_drop = 1.0
max_new_misses = 100
%s
[judge]
name = "tagger"
type = "command"
command = ["python3", "judge.py", %q]
guideline = "grade by the tag"
timeout = %q
[base.retriever]
type = "file"
path = "base.jsonl"
[head.retriever]
type = "file"
path = "head.jsonl"
`, gateKeys, mode, timeout))
}

// judgeReport is what the tests read of a JSON report.
type judgeReport struct {
	Judge *struct {
		Name          string  `json:"name"`
		Fingerprint   string  `json:"fingerprint"`
		Kappa         float64 `json:"kappa"`
		WeightedKappa float64 `json:"weighted_kappa"`
		Overlap       int     `json:"overlap"`
		Used          bool    `json:"used"`
		DocumentsUsed int     `json:"documents_used"`
		Other         int     `json:"other_fingerprint"`
	} `json:"judge"`
	Unjudged struct {
		LabelDebt *struct {
			Documents int `json:"documents"`
		} `json:"label_debt"`
	} `json:"unjudged"`
	Health []string `json:"health"`
}

// judgedCompare runs compare on the world and reads its JSON report back
// (through the strict reader: `recallgate report` renders it again).
func judgedCompare(t *testing.T, dir string) (judgeReport, string) {
	t.Helper()
	out := filepath.Join(dir, "report.json")
	code, _, errs := rg(t, "compare", "--config", filepath.Join(dir, "recallgate.toml"), "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, "head.jsonl"), "--format", "json", "--out", out)
	if code > 1 {
		t.Fatalf("compare: exit %d\n%s", code, errs)
	}
	if code, _, errs := rg(t, "report", "--in", out, "--format", "text"); code != 0 {
		t.Fatalf("the strict reader refused the report: exit %d\n%s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r judgeReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r, out
}

// setLines reads the world's set back as raw JSON lines.
func setLines(t *testing.T, dir string) []map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "set.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// TestJudgeAcceptance is the acceptance row through the CLI.
func TestJudgeAcceptance(t *testing.T) {
	dir := judgeWorld(t, "", "good", "10s")
	cfg := filepath.Join(dir, "recallgate.toml")
	before := setLines(t, dir)
	r, report := judgedCompare(t, dir)
	if r.Unjudged.LabelDebt == nil || r.Unjudged.LabelDebt.Documents != 8 {
		t.Fatalf("label debt before judging: %+v, want 8", r.Unjudged.LabelDebt)
	}
	code, out, errs := rg(t, "judge", "--config", cfg, "--from-report", report)
	if code != 0 || !strings.Contains(out, "graded 16 pairs in 4 queries (8 label debt, 8 calibration)") {
		t.Fatalf("judge: exit %d\n%s%s", code, out, errs)
	}
	after := setLines(t, dir)
	graded := 0
	for i, line := range after {
		var judgments map[string]map[string]int
		if err := json.Unmarshal(line["judgments"], &judgments); err != nil {
			t.Fatal(err)
		}
		graded += len(judgments["judge:tagger"])
		var was map[string]map[string]int
		_ = json.Unmarshal(before[i]["judgments"], &was)
		if fmt.Sprint(judgments["alice"]) != fmt.Sprint(was["alice"]) || string(line["gold"]) != string(before[i]["gold"]) {
			t.Errorf("query %d: the person's grades or gold changed: %s / %s", i+1, line["judgments"], line["gold"])
		}
	}
	if graded != 16 {
		t.Errorf("%d judge grades written, want 16", graded)
	}
	setBytes, _ := os.ReadFile(filepath.Join(dir, "set.jsonl"))
	// A second run skips every pair graded under the same fingerprint.
	code, out, errs = rg(t, "judge", "--config", cfg, "--from-report", report)
	if again, _ := os.ReadFile(filepath.Join(dir, "set.jsonl")); code != 0 || !strings.Contains(out, "nothing to grade (16 pairs already graded") || string(again) != string(setBytes) {
		t.Errorf("second judge run: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = rg(t, "validate", "--config", cfg)
	if code != 0 || !strings.Contains(out, "Cohen's kappa 0.50 relevant or not") || !strings.Contains(out, "judge relevant where people said not: 1, people relevant where the judge said not: 1") {
		t.Errorf("validate: exit %d\n%s%s", code, out, errs)
	}

	for _, c := range []struct {
		keys       string
		used       bool
		debt, rest int
	}{
		{"min_judge_agreement = 0.4\nmin_judge_overlap = 8", true, 0, 8},
		{"min_judge_agreement = 0.7\nmin_judge_overlap = 8", false, 8, 0},
		{"min_judge_agreement = 0.4", false, 8, 0}, // overlap 8 under the default 30
		{"", false, 8, 0},
	} {
		writeJudgeConfig(t, dir, c.keys, "good", "10s")
		r, _ := judgedCompare(t, dir)
		if r.Judge == nil || r.Judge.Used != c.used || r.Unjudged.LabelDebt == nil || r.Unjudged.LabelDebt.Documents != c.debt || r.Judge.DocumentsUsed != c.rest ||
			r.Judge.Kappa != 0.5 || r.Judge.Overlap != 8 || r.Judge.Name != "tagger" {
			t.Errorf("%q: judge %+v, debt %+v; want used %v, debt %d, %d resting on the judge", c.keys, r.Judge, r.Unjudged.LabelDebt, c.used, c.debt, c.rest)
		}
	}

	// A changed guideline is another judge: the 16 grades are kept, not
	// used, and the report says so.
	writeJudgeConfig(t, dir, "min_judge_agreement = 0.4\nmin_judge_overlap = 8", "good", "10s")
	cfgText, _ := os.ReadFile(cfg)
	write(t, dir, "recallgate.toml", strings.Replace(string(cfgText), "grade by the tag", "grade by the tag, strictly", 1))
	r, _ = judgedCompare(t, dir)
	if r.Judge == nil || r.Judge.Used || r.Judge.Other != 16 || r.Judge.Overlap != 0 || r.Unjudged.LabelDebt.Documents != 8 ||
		!strings.Contains(strings.Join(r.Health, "\n"), "judge grades: 16 under another judge or fingerprint (a changed model, prompt or guideline) are kept in the set and not used") {
		t.Errorf("another fingerprint: judge %+v, debt %+v, health %q", r.Judge, r.Unjudged.LabelDebt, r.Health)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "set.jsonl")); string(again) != string(setBytes) {
		t.Error("comparing changed the set")
	}
}

// TestJudgeSendsOnlyWhatHasText: a document the corpus lacks is named and
// not sent; a person may not label under a judge's name.
func TestJudgeSendsOnlyWhatHasText(t *testing.T) {
	dir := judgeWorld(t, "", "good", "10s")
	_, report := judgedCompare(t, dir)
	corpus, _ := os.ReadFile(filepath.Join(dir, "corpus.jsonl"))
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(string(corpus)), "\n") {
		if !strings.Contains(l, `"id":"q2b"`) {
			kept = append(kept, l)
		}
	}
	write(t, dir, "corpus.jsonl", strings.Join(kept, "\n")+"\n")
	// q3b is not in the corpus either, but the head's hit carries its text.
	headRun, _ := os.ReadFile(filepath.Join(dir, "head.jsonl"))
	write(t, dir, "head.jsonl", strings.Replace(string(headRun), `{"doc":"q3b"}`, `{"doc":"q3b","text":"the hit's own text [g1]"}`, 1))
	write(t, dir, "corpus.jsonl", strings.Replace(strings.Join(kept, "\n")+"\n", `{"id":"q3b","title":"q3 new b","text":"a fresh page without a tag"}`+"\n", "", 1))
	code, out, errs := rg(t, "judge", "--config", filepath.Join(dir, "recallgate.toml"), "--from-report", report)
	if code != 0 || !strings.Contains(errs, `warning: judge: no text for "q2/q2b" in`) || strings.Contains(errs, "q3/q3b") || !strings.Contains(out, "graded 15 pairs in 4 queries (7 label debt, 8 calibration)") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	var judged map[string]map[string]int
	if err := json.Unmarshal(setLines(t, dir)[2]["judgments"], &judged); err != nil || judged["judge:tagger"]["q3b"] != 1 {
		t.Errorf("q3b graded from the hit's text: %v %v", judged, err)
	}
	// Bounded: a page that serves instead of refusing ends with the context.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var lout, lerr strings.Builder
	code = run(ctx, []string{"label", "--config", filepath.Join(dir, "recallgate.toml"), "--labeller", "judge:tagger", "--adjudicate"}, func(string) string { return "" }, &lout, &lerr)
	if code != 2 || !strings.Contains(lerr.String(), `a name starting "judge:" is a judge program's`) {
		t.Errorf("label as judge:tagger: exit %d\n%s%s", code, lout.String(), lerr.String())
	}
}

// TestJudgeBadAnswersWriteNothing: every kind of bad answer is exit 3
// naming the pair, and the set file is left byte for byte.
func TestJudgeBadAnswersWriteNothing(t *testing.T) {
	for _, c := range []struct{ mode, says string }{
		{"grade7", "grade 7 is off the scale"},
		{"notjson", "not an answer to q1/q1a"},
		{"otherdoc", `an answer for "q1/q1a-other"`},
		{"sleep", "no answer to q1/q1a in time"},
		{"crash", "exited before its first answer"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			dir := judgeWorld(t, "", "good", "10s")
			_, report := judgedCompare(t, dir)
			writeJudgeConfig(t, dir, "", c.mode, "5s") // 5 s: a Python start on a loaded machine took over 1 s
			before, _ := os.ReadFile(filepath.Join(dir, "set.jsonl"))
			code, out, errs := rg(t, "judge", "--config", filepath.Join(dir, "recallgate.toml"), "--from-report", report)
			after, _ := os.ReadFile(filepath.Join(dir, "set.jsonl"))
			if code != 3 || !strings.Contains(errs, "query q1, document q1a") || !strings.Contains(errs, c.says) || !strings.Contains(errs, "nothing of this run was written") {
				t.Errorf("exit %d, want 3 naming the pair and %q\n%s%s", code, c.says, out, errs)
			}
			if string(after) != string(before) {
				t.Errorf("the set file changed:\n%s", after)
			}
		})
	}
}

// judgeHostile is the reason testdata/judge/judge.py gives in its
// hostile mode, as the script writes it.
const judgeHostile = "<script>alert(1)</script> ::set-output name=x::y\n::error::forged *bold* [link](javascript:alert(1)) \u202eevil"

// hostileWorld is the world after a judge whose reasons are hostile text
// (markup, workflow commands, a line break, a bidi override) graded it:
// it reads q1's two documents apart from alice, so both reasons show.
func hostileWorld(t *testing.T) (dir, report string) {
	t.Helper()
	dir = judgeWorld(t, "", "hostile", "10s")
	_, report = judgedCompare(t, dir)
	if code, out, errs := rg(t, "judge", "--config", filepath.Join(dir, "recallgate.toml"), "--from-report", report); code != 0 {
		t.Fatalf("judge: exit %d\n%s%s", code, out, errs)
	}
	return dir, report
}

// TestJudgeReasonInertInEveryReport: the judge's reason is shown in every
// format's health, as text: never markup, a link or a workflow command.
func TestJudgeReasonInertInEveryReport(t *testing.T) {
	dir, _ := hostileWorld(t)
	for _, f := range []string{"text", "markdown", "html", "json", "junit"} {
		code, out, errs := rg(t, "compare", "--config", filepath.Join(dir, "recallgate.toml"), "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, "head.jsonl"), "--format", f)
		if code > 1 {
			t.Fatalf("%s: exit %d\n%s", f, code, errs)
		}
		checkNoInjectedCommands(t, f, out+"\n"+errs)
		if f == "markdown" {
			t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, out, judgeHostile) })
		}
		if !strings.Contains(out, "q1/q1non: people 0, judge 2") || !strings.Contains(out, "set-output name=x") {
			t.Errorf("%s: the disagreement and its reason are not shown:\n%s", f, out)
		}
		// What would act in each format: a bidi override turns a line
		// around where text is read as it is; markup where it is parsed.
		// JSON and the HTML page's embedded model are data (the page
		// draws it with textContent and marks bidi controls).
		raws := map[string][]string{"text": {"\u202e"}, "markdown": {"\u202e", "<script>alert", "](javascript:"},
			"html": {"<script>alert"}, "junit": {"\u202e", "<script>"}}[f]
		for _, raw := range raws {
			if strings.Contains(out, raw) {
				t.Errorf("%s: the reason's %q is shown raw", f, raw)
			}
		}
	}
}

// TestAdjudicationShowsTheJudgeInChromium: label --adjudicate lists the
// documents the judge reads apart from people, its grade labelled as a
// program's, the hostile reason drawn as text; the decision is a person's.
func TestAdjudicationShowsTheJudgeInChromium(t *testing.T) {
	dir, _ := hostileWorld(t)
	browser := needChromium(t, "")
	base, stop := startLabel(t, "--config", filepath.Join(dir, "recallgate.toml"), "--labeller", "cara", "--adjudicate")
	d := startDevtools(t, browser, filepath.Join(dir, "profile"))
	d.navigate(t, base)
	d.waitFor(t, `document.querySelectorAll(".card .judge").length === 2`)
	v, err := d.eval(`Array.from(document.querySelectorAll(".card")).map(function(c){ var j=c.querySelector(".judge"); return c.dataset.doc + "=" + (j ? j.textContent : ""); }).join("|")`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`q1non=judge:tagger (a program, not a person; `, `) grades it 2: <script>alert(1)</script> ::set-output`, `q1rel=judge:tagger (a program, not a person; `, `) grades it 0: `, `\u27e8U+202E\u27e9evil`} { // the bidi override marked, as JSON gives it
		if !strings.Contains(v, want) {
			t.Errorf("the cards read %s; want %q", v, want)
		}
	}
	if n, _ := d.eval(`document.querySelectorAll(".judge *").length`); n != "0" {
		t.Errorf("the reason made %s elements on the page", n)
	}
	focused := `(document.querySelector(".card.focus")||{dataset:{}}).dataset`
	d.press(t, "1")
	d.waitFor(t, focused+`.grade === "1"`)
	stop()
	lines := setLines(t, dir)
	var adj map[string]struct {
		Grade int    `json:"grade"`
		By    string `json:"by"`
	}
	if err := json.Unmarshal(lines[0]["adjudicated"], &adj); err != nil || len(adj) != 1 {
		t.Fatalf("adjudicated %s: %v", lines[0]["adjudicated"], err)
	}
	for doc, a := range adj {
		if a.By != "cara" || a.Grade != 1 || !strings.HasPrefix(doc, "q1") {
			t.Errorf("decision %s %+v: want cara's grade 1", doc, a)
		}
	}
	var judgments map[string]map[string]int
	if err := json.Unmarshal(lines[0]["judgments"], &judgments); err != nil || len(judgments["judge:tagger"]) != 4 || !strings.Contains(string(lines[0]["labellers"]), `"judge:tagger":{"fingerprint":"sha256:`) {
		t.Errorf("the page's write lost the judge's grades: %s %s", lines[0]["judgments"], lines[0]["labellers"])
	}
}

// TestJudgePolicyIsTheBases: a pull request that lowers
// min_judge_agreement is judged by the base commit's: its judge grades do
// not count under the base's 0.7, whatever the change says; under the
// base's 0.4 they do, and the report names the change to the key.
func TestJudgePolicyIsTheBases(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, c := range []struct {
		base, head string
		used       bool
		debt       int
	}{{"0.7", "0.4", false, 8}, {"0.4", "0.7", true, 0}} {
		dir := judgeWorld(t, "min_judge_agreement = "+c.base+"\nmin_judge_overlap = 8", "good", "10s")
		cfg := filepath.Join(dir, "recallgate.toml")
		_, report := judgedCompare(t, dir)
		if code, out, errs := rg(t, "judge", "--config", cfg, "--from-report", report); code != 0 {
			t.Fatalf("judge: exit %d\n%s%s", code, out, errs)
		}
		git := func(args ...string) string {
			cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		git("init", "-q", "-b", "main")
		git("add", "-A")
		git("commit", "-qm", "base")
		sha := git("rev-parse", "HEAD")
		writeJudgeConfig(t, dir, "min_judge_agreement = "+c.head+"\nmin_judge_overlap = 8", "good", "10s")
		out := filepath.Join(dir, "gate.json")
		code, _, errs := rg(t, "gate", "--config", cfg, "--base-ref", sha, "--json-out", out)
		if code > 1 {
			t.Fatalf("gate: exit %d\n%s", code, errs)
		}
		b, _ := os.ReadFile(out)
		var r struct {
			judgeReport
			Policy struct {
				Source  string `json:"source"`
				Changes []struct{ Key, Base, Head string }
			} `json:"policy"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Judge == nil || r.Judge.Used != c.used || r.Unjudged.LabelDebt == nil || r.Unjudged.LabelDebt.Documents != c.debt || r.Policy.Source != "base-commit" ||
			!strings.Contains(fmt.Sprint(r.Policy.Changes), "{min_judge_agreement "+c.base+"0 "+c.head+"0}") {
			t.Errorf("base %s, head %s: judge %+v, debt %+v, policy %+v; want used %v, debt %d", c.base, c.head, r.Judge, r.Unjudged.LabelDebt, r.Policy, c.used, c.debt)
		}
	}
}

// TestDocsJudgeConfigParses keeps docs/judge.md true: its config is one
// the reader takes, with the keys it says, and its example judge for an
// LLM API is Python that compiles (its call to a model is not run here).
func TestDocsJudgeConfigParses(t *testing.T) {
	blocks, err := mddoc.Under("../..", "## The [judge] table", "toml")
	if err != nil || len(blocks) != 1 {
		t.Fatalf("docs/judge.md's config: %v (%d blocks)", err, len(blocks))
	}
	c, err := config.Parse([]byte(blocks[0].Text), "judge.toml")
	if err != nil {
		t.Fatalf("%s:%d: %v", blocks[0].Path, blocks[0].Line, err)
	}
	if c.Judge == nil || c.Judge.Name != "llm" || c.Judge.RateLimit != 2 || c.Thresholds.MinJudgeAgreement == nil || *c.Thresholds.MinJudgeAgreement != 0.6 || c.Thresholds.MinJudgeOverlap != 30 {
		t.Errorf("the documented config reads as judge %+v, thresholds %+v", c.Judge, c.Thresholds)
	}
	needTool(t, "python3")
	py, err := mddoc.Under("../..", "## An example judge for an LLM API", "python")
	if err != nil || len(py) != 1 {
		t.Fatalf("docs/judge.md's example judge: %v (%d blocks)", err, len(py))
	}
	p := write(t, t.TempDir(), "judge.py", py[0].Text)
	if out, err := exec.Command("python3", "-m", "py_compile", p).CombinedOutput(); err != nil {
		t.Errorf("%s:%d: the example judge does not compile: %v\n%s", py[0].Path, py[0].Line, err, out)
	}
}

// TestJudgeOverHTTP: an http judge through the CLI, its key read from
// the environment into a header and never printed.
func TestJudgeOverHTTP(t *testing.T) {
	const key = "judge-key-98765"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Doc, Text string }
		if r.Header.Get("Authorization") != "Bearer "+key || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(401)
			return
		}
		grade := 0
		if m := regexp.MustCompile(`\[g([0-3])\]`).FindStringSubmatch(req.Text); m != nil {
			grade = int(m[1][0] - '0')
		}
		if req.Doc == "q4b" && r.URL.Query().Get("fail") == "1" {
			w.WriteHeader(500)
			fmt.Fprint(w, "upstream rejected "+key)
			return
		}
		fmt.Fprintf(w, `{"result":{"grade":%d,"why":"tag"},"usage":{"tokens":5}}`, grade)
	}))
	defer srv.Close()
	for _, fail := range []bool{false, true} {
		dir := judgeWorld(t, "", "good", "10s")
		_, report := judgedCompare(t, dir)
		cfgText, _ := os.ReadFile(filepath.Join(dir, "recallgate.toml"))
		head, _, _ := strings.Cut(string(cfgText), "[judge]")
		_, rest, _ := strings.Cut(string(cfgText), "[base.retriever]")
		u := srv.URL + "/grade"
		if fail {
			u += "?fail=1"
		}
		write(t, dir, "recallgate.toml", head+fmt.Sprintf(`[judge]
name = "api"
type = "http"
url = %q
body = '{"doc": {{doc}}, "text": {{text}}, "query": {{query}}}'
headers = { Authorization = "Bearer ${JUDGE_KEY}" }
grade = "result.grade"
reason = "result.why"
tokens = "usage.tokens"
retries = 0
[base.retriever]`, u)+rest)
		var out, errb strings.Builder
		code := run(context.Background(), []string{"judge", "--config", filepath.Join(dir, "recallgate.toml"), "--from-report", report},
			func(k string) string { return map[string]string{"JUDGE_KEY": key}[k] }, &out, &errb)
		switch {
		case strings.Contains(out.String()+errb.String(), key):
			t.Errorf("the key was printed:\n%s%s", out.String(), errb.String())
		case !fail && (code != 0 || !strings.Contains(out.String(), "graded 16 pairs") || !strings.Contains(out.String(), "judge api: 80 tokens")):
			t.Errorf("exit %d\n%s%s", code, out.String(), errb.String())
		case fail && (code != 3 || !strings.Contains(errb.String(), "query q4, document q4b: HTTP 500")):
			t.Errorf("a failing service: exit %d\n%s", code, errb.String())
		}
	}
}

// manyPairsWorld is one query, q1, that alice judged (q1rel 2, q1non 0),
// whose head brings n documents nobody judged into its top n: n pairs of
// label debt (and alice's two for calibration), graded by judge.py in
// mode.
func manyPairsWorld(t *testing.T, n int, mode string) (dir, report string) {
	t.Helper()
	dir = judgeDir(t)
	write(t, dir, "set.jsonl", `{"id":"q1","query":"question 1","gold":{"q1rel":2},"judgments":{"alice":{"q1rel":2,"q1non":0}}}`+"\n")
	var corpus, head strings.Builder
	corpus.WriteString(`{"id":"q1rel","title":"relevant","text":"the answer [g2]"}` + "\n" + `{"id":"q1non","title":"other","text":"something else"}` + "\n")
	head.WriteString(`{"id":"q1","hits":[`)
	for i := range n {
		fmt.Fprintf(&corpus, `{"id":"q1n%03d","title":"new %d","text":"a fresh page [g1]"}`+"\n", i, i)
		if i > 0 {
			head.WriteString(",")
		}
		fmt.Fprintf(&head, `{"doc":"q1n%03d"}`, i)
	}
	head.WriteString("]}\n")
	write(t, dir, "corpus.jsonl", corpus.String())
	write(t, dir, "base.jsonl", `{"id":"q1","hits":[{"doc":"q1rel"},{"doc":"q1non"}]}`+"\n")
	write(t, dir, "head.jsonl", head.String())
	writeJudgeConfig(t, dir, "", mode, "10s")
	cfg, _ := os.ReadFile(filepath.Join(dir, "recallgate.toml"))
	write(t, dir, "recallgate.toml", strings.Replace(string(cfg), "candidates = 2\ncontext = 2\n", fmt.Sprintf("candidates = %d\ncontext = %d\n", n, n), 1))
	_, report = judgedCompare(t, dir)
	return dir, report
}

// TestJudgeReasonsKeepTheSetReadable: reasons of 2,000 ESC bytes on 121
// pairs of one query (the set line was 1.46 MB, refused by every reader
// after `judge` exited 0) lose their control characters: the set reads
// back. Reasons that, cut to MaxReasonBytes, still make the line too long
// (2,000 double quotes, each escaped, on 600 pairs) are exit 3 naming the
// query, the set left byte for byte.
func TestJudgeReasonsKeepTheSetReadable(t *testing.T) {
	dir, report := manyPairsWorld(t, 121, "esc")
	cfg := filepath.Join(dir, "recallgate.toml")
	if code, out, errs := rg(t, "judge", "--config", cfg, "--from-report", report); code != 0 || !strings.Contains(out, "graded 123 pairs in 1 queries") {
		t.Fatalf("judge: exit %d\n%s%s", code, out, errs)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "set.jsonl"))
	if len(data) > 64<<10 || strings.Contains(string(data), `\u001b`) || strings.Contains(string(data), "\x1b") {
		t.Errorf("the set is %d bytes, ESC in it: %t", len(data), strings.Contains(string(data), `\u001b`))
	}
	if code, out, errs := rg(t, "validate", "--config", cfg); code != 0 {
		t.Errorf("the set written does not read back: exit %d\n%s%s", code, out, errs)
	}
	var judgments map[string]map[string]int
	if err := json.Unmarshal(setLines(t, dir)[0]["judgments"], &judgments); err != nil || len(judgments["judge:tagger"]) != 123 {
		t.Errorf("judge grades %d, want 123 (%v)", len(judgments["judge:tagger"]), err)
	}

	dir, report = manyPairsWorld(t, 600, "quotes")
	before, _ := os.ReadFile(filepath.Join(dir, "set.jsonl"))
	code, out, errs := rg(t, "judge", "--config", filepath.Join(dir, "recallgate.toml"), "--from-report", report)
	after, _ := os.ReadFile(filepath.Join(dir, "set.jsonl"))
	const want = "judge tagger: query q1: its line in "
	if code != 3 || !strings.Contains(errs, want) || !strings.Contains(errs, "over the 1 MiB a set line may hold; nothing of this run was written") {
		t.Errorf("exit %d, want 3 saying %q\n%s%s", code, want, out, errs)
	}
	if string(after) != string(before) {
		t.Errorf("the set file changed (%d bytes, was %d)", len(after), len(before))
	}
}
