package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// erosionConfig gates twelve queries, each with one gold document, with
// room for one lost query per change (1/12 = 0.083 of recall@5, nDCG@3)
// and max_baseline_drop 0.15 against the committed baseline.
const erosionConfig = `set = "queries.jsonl"
baseline = "baselines/head.jsonl"
[depth]
candidates = 5
context = 3
[gate]
max_recall_drop = 0.10
max_new_misses = 2
max_ndcg_drop = 0.10
max_precision_drop = 0.10
max_baseline_drop = 0.15
[retriever]
type = "builtin"
corpus = "corpus"
`

// erosionWords give each query and its document their own word; every
// document also says "report", so a query whose document lost its word
// still gets hits (other documents), never an empty answer.
var erosionWords = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}

// erosionRepo is a git repository with twelve queries and their twelve
// documents under rag/, the config config and, when baseline is set, the
// reviewed baseline: the head side retrieved by `recallgate retrieve`,
// committed with the config as the base.
func erosionRepo(t *testing.T, config string, baseline bool) *fixture {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	f := &fixture{t: t, dir: dir}
	f.git("init", "-q", "-b", "main")
	var set strings.Builder
	for i, w := range erosionWords {
		f.put(fmt.Sprintf("rag/corpus/d%02d.md", i+1), fmt.Sprintf("# %s\n\nThe %s report: what %s covers.\n", w, w, w))
		fmt.Fprintf(&set, `{"id":"q%02d","query":"%s report","gold":{"d%02d":1}}`+"\n", i+1, w, i+1)
	}
	f.put("rag/queries.jsonl", set.String())
	f.put("rag/recallgate.toml", config)
	if baseline {
		f.writeBaseline()
	}
	f.base = f.commit("base: twelve queries and the reviewed baseline")
	return f
}

// writeBaseline writes rag/baselines/head.jsonl from the checkout as it is.
func (f *fixture) writeBaseline() {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Join(f.dir, "rag/baselines"), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if code, out, errs := rg(f.t, "retrieve", "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--side", "head", "--out", filepath.Join(f.dir, "rag/baselines/head.jsonl")); code != 0 {
		f.t.Fatalf("retrieve the baseline: exit %d\n%s\n%s", code, out, errs)
	}
}

// lose makes query i lose its document: rewritten without its word.
func (f *fixture) lose(i int) {
	f.put(fmt.Sprintf("rag/corpus/d%02d.md", i), "# Office plants\n\nWater the ferns on Fridays.\n")
}

// erosionJSON is the part of the JSON report the erosion tests read.
type erosionJSON struct {
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons"`
	Notes   []string `json:"notes"`
	Rules   []struct {
		Name, Outcome string
		Value, Limit  float64
	} `json:"rules"`
	BaselineDistance *struct {
		Run                  string
		Queries              int
		Baseline, Head, Drop float64
		Limit                float64
		NotInBaseline        []string `json:"not_in_baseline"`
	} `json:"baseline_distance"`
	Policy *struct {
		Changes []struct{ Key, Base, Head string } `json:"changes"`
	} `json:"policy"`
}

// rule is the named rule's outcome and value, "" when it was not applied.
func (r erosionJSON) rule(name string) (string, float64) {
	for _, ru := range r.Rules {
		if ru.Name == name {
			return ru.Outcome, ru.Value
		}
	}
	return "", 0
}

// erosionGate runs `recallgate gate --base-ref base` on the fixture's
// checkout: the text report, the JSON one decoded, stderr.
func (f *fixture) erosionGate(base string) (int, string, erosionJSON, string) {
	f.t.Helper()
	jsonOut := filepath.Join(f.t.TempDir(), "report.json")
	tmp := f.t.TempDir()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"gate", "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", base, "--json-out", jsonOut},
		func(k string) string { return map[string]string{"RUNNER_TEMP": tmp}[k] }, &out, &errb)
	var rep erosionJSON
	if code < 2 {
		data, err := os.ReadFile(jsonOut)
		if err != nil || json.Unmarshal(data, &rep) != nil {
			f.t.Fatalf("report: %v\n%s\n%s", err, data, errb.String())
		}
	}
	return code, out.String(), rep, errb.String()
}

// TestErosionRuleAcrossPRs is the acceptance of the erosion rule: two
// changes each lose one of twelve queries, each within max_recall_drop
// (0.10) of its own base; against the committed baseline the first is
// 0.083 below (within max_baseline_drop 0.15) and passes, the second,
// after the first merged, is 0.167 below and fails naming the rule. A
// change that rewrites the baseline, raises max_baseline_drop or points
// its config at another baseline is still judged by the base's.
func TestErosionRuleAcrossPRs(t *testing.T) {
	f := erosionRepo(t, erosionConfig, true)
	f.git("checkout", "-q", "-b", "pr1")
	f.lose(1)
	f.commit("pr1: q01 loses its document")
	code, text, rep, errs := f.erosionGate(f.base)
	line := "Distance to the baseline: head mean recall@5 0.917 is 0.083 below the reviewed baseline's 1.000 (rag/baselines/head.jsonl@" + f.base[:12] + ", 12 queries; limit 0.150, max_baseline_drop)\n"
	if code != 0 || !strings.Contains(text, "\n"+line) {
		t.Fatalf("first change: exit %d, want 0 with the line %q\n%s\n%s", code, line, text, errs)
	}
	if o, v := rep.rule("max_baseline_drop"); o != "pass" || fmt.Sprintf("%.4f", v) != "0.0833" || rep.BaselineDistance == nil || rep.BaselineDistance.Queries != 12 || rep.BaselineDistance.Run != "rag/baselines/head.jsonl@"+f.base[:12] {
		t.Errorf("first change: rule %s %v, distance %+v", o, v, rep.BaselineDistance)
	}

	// The first change merges; the second is judged against main now.
	f.git("checkout", "-q", "main")
	f.git("merge", "-q", "--ff-only", "pr1")
	main := f.git("rev-parse", "HEAD")
	f.git("checkout", "-q", "-b", "pr2")
	f.lose(2)
	f.commit("pr2: q02 loses its document")
	fail := "head mean recall@5 0.833 is 0.167 below the reviewed baseline's 1.000 (rag/baselines/head.jsonl@" + main[:12] + ", 12 queries; limit 0.150, max_baseline_drop)"
	code, text, rep, errs = f.erosionGate(main)
	if code != 1 || len(rep.Reasons) != 1 || rep.Reasons[0] != fail || !strings.Contains(text, "\nDistance to the baseline: "+fail+"\n") {
		t.Fatalf("second change: exit %d reasons %q, want 1 with %q\n%s\n%s", code, rep.Reasons, fail, text, errs)
	}
	if o, v := rep.rule("max_recall_drop"); o != "pass" || fmt.Sprintf("%.4f", v) != "0.0833" {
		t.Errorf("second change: its own drop %s %v must pass max_recall_drop 0.10", o, v)
	}

	// The same change, with the baseline rewritten from its own head (0
	// below it) and max_baseline_drop raised in its own config.
	f.writeBaseline()
	f.edit("rag/recallgate.toml", "max_baseline_drop = 0.15", "max_baseline_drop = 0.5")
	f.commit("pr2: rewrite the baseline, loosen the rule")
	code, text, rep, errs = f.erosionGate(main)
	if code != 1 || len(rep.Reasons) != 1 || rep.Reasons[0] != fail {
		t.Fatalf("a change that rewrites the baseline and raises the limit: exit %d reasons %q, want 1 with %q\n%s\n%s", code, rep.Reasons, fail, text, errs)
	}
	if rep.Policy == nil || len(rep.Policy.Changes) != 1 || rep.Policy.Changes[0] != (struct{ Key, Base, Head string }{"max_baseline_drop", "0.15", "0.50"}) {
		t.Errorf("policy changes %+v", rep.Policy)
	}
	if note := "baseline: this change rewrites the baseline run rag/baselines/head.jsonl; the base commit's (" + main[:12] + ") judged it, the change's takes effect after merge"; !contains(rep.Notes, note) {
		t.Errorf("notes %q lack %q", rep.Notes, note)
	}

	// Pointing its config at another baseline moves nothing either.
	f.git("mv", "rag/baselines/head.jsonl", "rag/mine.jsonl")
	f.edit("rag/recallgate.toml", `baseline = "baselines/head.jsonl"`, `baseline = "mine.jsonl"`)
	f.commit("pr2: a baseline of its own")
	code, text, rep, errs = f.erosionGate(main)
	if code != 1 || len(rep.Reasons) != 1 || rep.Reasons[0] != fail {
		t.Fatalf("a change that names another baseline: exit %d reasons %q\n%s\n%s", code, rep.Reasons, text, errs)
	}
	if rep.Policy == nil || len(rep.Policy.Changes) != 2 || rep.Policy.Changes[1] != (struct{ Key, Base, Head string }{"baseline", "baselines/head.jsonl", "mine.jsonl"}) {
		t.Errorf("policy changes %+v", rep.Policy)
	}
}

// TestErosionBaselineRefusals: a baseline the base commit's config names
// but cannot be read is exit 2 naming it, never a skipped rule: missing
// from the base tree (though the change adds it), a link out of the tree,
// a path out of the repository, a broken run (file and line), a run of no
// query of the set. A base commit without a config of its own skips the
// rule, saying why.
func TestErosionBaselineRefusals(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	if err := os.WriteFile(outside, []byte(`{"id":"q01","hits":[{"doc":"d01"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		setup func(f *fixture) // the base commit's tree, before it is committed
		want  string
	}{
		{"missing from the base tree", func(f *fixture) {}, ":2: baseline: the base commit's config names the baseline run rag/baselines/head.jsonl, which the base commit's tree does not hold"},
		{"a link out of the tree", func(f *fixture) {
			if err := os.MkdirAll(filepath.Join(f.dir, "rag/baselines"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(f.dir, "rag/baselines/head.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, ":2: baseline: the baseline run rag/baselines/head.jsonl is a link out of the base commit's tree: refused"},
		{"a path out of the repository", func(f *fixture) {
			f.edit("rag/recallgate.toml", `baseline = "baselines/head.jsonl"`, `baseline = "../../elsewhere.jsonl"`)
		}, ":2: baseline: the baseline run must be a path inside the repository: refused"},
		{"a broken run", func(f *fixture) {
			f.writeBaseline()
			data, _ := os.ReadFile(filepath.Join(f.dir, "rag/baselines/head.jsonl"))
			lines := strings.SplitAfter(string(data), "\n")
			f.put("rag/baselines/head.jsonl", lines[0]+lines[1]+"{\"id\": \"q02\", \"hits\": [\n")
		}, "rag/baselines/head.jsonl (base commit {base}):3: invalid JSON: the line ends inside the object"},
		{"no query of the set", func(f *fixture) {
			f.put("rag/baselines/head.jsonl", `{"id":"gone","hits":[{"doc":"d01"}]}`+"\n")
		}, "rag/baselines/head.jsonl@{base}: baseline: the baseline run names no query of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := erosionRepo(t, erosionConfig, false)
			tc.setup(f)
			f.git("add", "-A")
			f.git("commit", "-q", "--allow-empty", "-m", "base: "+tc.name)
			f.base = f.git("rev-parse", "HEAD")
			want := strings.ReplaceAll(tc.want, "{base}", f.base[:12])
			f.git("checkout", "-q", "-b", "pr")
			f.writeBaseline() // the change brings a baseline of its own: never read
			f.lose(1)
			f.commit("pr")
			code, text, _, errs := f.erosionGate(f.base)
			if code != 2 || !strings.Contains(errs, want) {
				t.Errorf("exit %d, want 2 saying %q\n%s\n%s", code, want, text, errs)
			}
		})
	}

	// The change that turns the rule on (key and baseline) is judged by
	// the base's policy, which has no such rule: even at 0.05, its own
	// value, it applies only from the next change on.
	f := erosionRepo(t, strings.NewReplacer("baseline = \"baselines/head.jsonl\"\n", "", "max_baseline_drop = 0.15\n", "").Replace(erosionConfig), false)
	f.git("checkout", "-q", "-b", "pr")
	f.writeBaseline()
	f.put("rag/recallgate.toml", strings.Replace(erosionConfig, "max_baseline_drop = 0.15", "max_baseline_drop = 0.05", 1))
	f.lose(1)
	f.commit("pr: the erosion rule and its baseline")
	code, text, rep, errs := f.erosionGate(f.base)
	if o, _ := rep.rule("max_baseline_drop"); code != 0 || o != "" || rep.BaselineDistance != nil {
		t.Errorf("turning the rule on: exit %d rule %q distance %+v\n%s\n%s", code, o, rep.BaselineDistance, text, errs)
	}

	// Adopting recallgate: the base commit has no config, so no reviewed
	// baseline; the rule is skipped with the reason, the rest applies.
	f = erosionRepo(t, erosionConfig, true)
	f.git("rm", "-q", "rag/recallgate.toml")
	f.base = f.commit("base: before recallgate")
	f.git("checkout", "-q", "-b", "pr")
	f.put("rag/recallgate.toml", erosionConfig)
	f.commit("pr: adopt recallgate")
	code, text, rep, errs = f.erosionGate(f.base)
	if o, _ := rep.rule("max_baseline_drop"); code != 0 || o != "skipped" || rep.BaselineDistance != nil || strings.Contains(text, "Distance to the baseline") {
		t.Errorf("adoption: exit %d rule %q distance %+v\n%s\n%s", code, o, rep.BaselineDistance, text, errs)
	}
}

// TestErosionOnGitHubAndGitLab: the pull request's comment (the action,
// through the fake API) and the merge request's note (`recallgate ci`)
// carry the distance to the baseline in one line, and the JUnit report
// its properties.
func TestErosionOnGitHubAndGitLab(t *testing.T) {
	f := erosionRepo(t, erosionConfig, true)
	f.git("checkout", "-q", "-b", "pr1")
	f.lose(1)
	f.commit("pr1: q01 loses its document")
	const line = "**Distance to the baseline:** head mean recall@5 0.917 is 0.083 below the reviewed baseline's 1.000 (`rag/baselines/head.jsonl@"

	pr := prOnGitHubAndGitLab(t, f)
	if pr.github.code != 0 || len(pr.comments) != 1 || strings.Count(pr.comments[0], line+f.base[:12]+"`, 12 queries; limit 0.150, max_baseline_drop)\n") != 1 {
		t.Errorf("GitHub: exit %d, comments:\n%q\n%s\n%s", pr.github.code, pr.comments, pr.github.out, pr.github.errs)
	}
	if pr.gitlab.code != 0 || len(pr.notes) != 1 {
		t.Fatalf("GitLab: exit %d, %d notes\n%s\n%s", pr.gitlab.code, len(pr.notes), pr.gitlab.out, pr.gitlab.errs)
	}
	if note := pr.notes[0]; strings.Count(note, line+f.base[:12]+"`, 12 queries; limit 0.150, max_baseline_drop)\n") != 1 {
		t.Errorf("GitLab note lacks the baseline line:\n%s", note)
	}
	if x, err := os.ReadFile(pr.junit); err != nil || !bytes.Contains(x, []byte(`<property name="recall_baseline" value="1.0000">`)) || !bytes.Contains(x, []byte(`<property name="baseline_distance" value="Distance to the baseline: head mean recall@5 0.917 is 0.083 below`)) {
		t.Errorf("JUnit: %v\n%.1500s", err, x)
	}
}

// TestErosionSetGrown: a query a change adds is its proposal, listed and
// out of the erosion rule; the base commit's twelve are compared.
func TestErosionSetGrown(t *testing.T) {
	f := erosionRepo(t, erosionConfig, true)
	f.git("checkout", "-q", "-b", "pr")
	f.put("rag/corpus/d13.md", "# mike\n\nThe mike report: what mike covers.\n")
	data, err := os.ReadFile(filepath.Join(f.dir, "rag/queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.put("rag/queries.jsonl", string(data)+`{"id":"q13","query":"mike report","gold":{"d13":1}}`+"\n")
	f.lose(1)
	f.commit("pr: a thirteenth query; q01 loses its document")
	code, text, rep, errs := f.erosionGate(f.base)
	// q13 is the change's proposal: the base commit's twelve queries are
	// the set the baseline distance is measured on.
	line := "\nDistance to the baseline: head mean recall@5 0.917 is 0.083 below the reviewed baseline's 1.000 (rag/baselines/head.jsonl@" + f.base[:12] + ", 12 queries; limit 0.150, max_baseline_drop)\n"
	if code != 0 || !strings.Contains(text, line) || rep.BaselineDistance == nil || len(rep.BaselineDistance.NotInBaseline) != 0 || !strings.Contains(text, "\nproposal: added (retrieved on both sides and listed, not gating until merged): q13\n") {
		t.Errorf("exit %d, want 0 with %q\n%s\n%s", code, line, text, errs)
	}
}

// TestErosionRunFilesOnAMergeRequest: run files an earlier step made are
// judged by the base commit's policy, the erosion rule with it: the base
// run already lost q01, the head run q01 and q02 (0.083 from its base,
// within max_recall_drop), 0.167 below the base commit's baseline. The
// merge request rewrites the baseline and raises the limit; neither moves.
func TestErosionRunFilesOnAMergeRequest(t *testing.T) {
	f := erosionRepo(t, erosionConfig, true)
	f.git("checkout", "-q", "-b", "mr")
	runs := filepath.Join(f.dir, "rag", "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(f.dir, "rag", "recallgate.toml")
	for i, side := range []string{"base", "head"} {
		f.lose(i + 1)
		if code, out, errs := rg(t, "retrieve", "--config", cfg, "--side", "head", "--out", filepath.Join(runs, side+".jsonl")); code != 0 {
			t.Fatalf("retrieve %s: exit %d\n%s\n%s", side, code, out, errs)
		}
	}
	f.writeBaseline()
	f.edit("rag/recallgate.toml", "max_baseline_drop = 0.15", "max_baseline_drop = 0.5")
	f.commit("mr: run files, a baseline of its own, a looser rule")

	g := &fakeGitLab{}
	srv := g.server(t)
	vars := glJob(srv.URL, f.dir, f.base)
	vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = filepath.Join(f.dir, "rag"), ""
	vars["RECALLGATE_BASE_RESULTS"], vars["RECALLGATE_HEAD_RESULTS"] = "runs/base.jsonl", "runs/head.jsonl"
	code, out, errs := runCI(t, vars)
	if code != 1 || len(g.notes) != 1 {
		t.Fatalf("exit %d, %d notes, want 1 failing note\n%s\n%s", code, len(g.notes), out, errs)
	}
	note := g.notes[0]["body"].(string)
	for _, want := range []string{
		"**Distance to the baseline:** head mean recall@5 0.833 is 0.167 below the reviewed baseline's 1.000 (`rag/baselines/head.jsonl@" + f.base[:12] + "`, 12 queries; limit 0.150, max_baseline_drop)\n",
		"this change rewrites the baseline run rag/baselines/head.jsonl",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("the note lacks %q:\n%s", want, note)
		}
	}
}

// TestErosionActionBaselineMissing: on GitHub, a base commit whose config
// names a baseline its tree lacks is exit 2, and the sticky comment says
// the gate could not run, naming the file and the fix (commit it on the
// base branch), never a pass.
func TestErosionActionBaselineMissing(t *testing.T) {
	f := erosionRepo(t, erosionConfig, false)
	f.git("checkout", "-q", "-b", "pr")
	f.writeBaseline() // the change's own: not the base's
	f.lose(1)
	f.commit("pr: a baseline of its own")
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"working-directory": filepath.Join(f.dir, "rag"), "config": "recallgate.toml"})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	if code != 2 || len(g.comments) != 1 {
		t.Fatalf("exit %d, %d comments, want 2 and one\n%s\n%s", code, len(g.comments), out, errs)
	}
	for _, want := range []string{"could not run", "which the base commit", "- **fix:** the reviewed baseline is the base commit's, like the rest of the policy"} {
		if !strings.Contains(g.comments[0], want) {
			t.Errorf("the comment lacks %q:\n%s", want, g.comments[0])
		}
	}
}

// prRuns is what the Action on a pull request and the GitLab job on a
// merge request made of the fixture's checkout against its base commit.
type prRuns struct {
	github, gitlab struct {
		code      int
		out, errs string
	}
	comments []string // the sticky comments posted to the fake GitHub
	notes    []string // the notes posted to the fake GitLab
	junit    string   // the GitLab job's JUnit file
}

// prOnGitHubAndGitLab runs the Action (pull_request) and the GitLab job
// (merge request, JUnit on) on f's rag/recallgate.toml against f.base.
func prOnGitHubAndGitLab(t *testing.T, f *fixture) prRuns {
	t.Helper()
	var pr prRuns
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"working-directory": filepath.Join(f.dir, "rag"), "config": "recallgate.toml"})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	pr.github.code, pr.github.out, pr.github.errs = ae.run(t)
	pr.comments = g.comments

	gl := &fakeGitLab{}
	glSrv := gl.server(t)
	pr.junit = filepath.Join(t.TempDir(), "junit.xml")
	vars := glJob(glSrv.URL, f.dir, f.base)
	vars["RECALLGATE_CONFIG"] = filepath.Join(f.dir, "rag", "recallgate.toml")
	vars["RECALLGATE_JUNIT"] = pr.junit
	pr.gitlab.code, pr.gitlab.out, pr.gitlab.errs = runCI(t, vars)
	for _, n := range gl.notes {
		pr.notes = append(pr.notes, n["body"].(string))
	}
	return pr
}
