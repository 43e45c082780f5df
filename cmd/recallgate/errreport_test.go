package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/mddoc"
)

// errorDoc is the part of a JSON error report the tests read.
type errorDoc struct {
	Verdict  string   `json:"verdict"`
	Command  string   `json:"command"`
	ExitCode int      `json:"exit_code"`
	Stage    string   `json:"stage"`
	Side     string   `json:"side"`
	Queries  []string `json:"queries"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

func readErrorDoc(t *testing.T, path string) errorDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d errorDoc
	if v := (struct{ Verdict string }{}); json.Unmarshal(data, &v) == nil && v.Verdict != "error" {
		return errorDoc{Verdict: v.Verdict}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return d
}

// TestErrorReportReplacesReports: a passing gate writes report.json, the
// text report and the JUnit file; the same commands with the retriever
// down (exit 3), then with a broken config (exit 2), replace all three
// with error reports, and `report --in` renders the error report.
func TestErrorReportReplacesReports(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	srv := searchServer(t, 0, nil)
	cfg := write(t, dir, "rg.toml", httpConfig(srv.URL+"/search", ""))
	jsonOut, textOut, junitOut := filepath.Join(dir, "report.json"), filepath.Join(dir, "report.txt"), filepath.Join(dir, "recallgate.xml")
	gateRuns := func(want int) {
		t.Helper()
		if code, _, errs := rg(t, "gate", "--config", cfg, "--out", textOut, "--json-out", jsonOut); code != want {
			t.Fatalf("gate --out text --json-out: exit %d, want %d\n%s", code, want, errs)
		}
		if code, _, errs := rg(t, "gate", "--config", cfg, "--format", "junit", "--out", junitOut); code != want {
			t.Fatalf("gate --format junit: exit %d, want %d\n%s", code, want, errs)
		}
	}
	gateRuns(0)
	if d := readErrorDoc(t, jsonOut); d.Verdict != "pass" {
		t.Fatalf("the passing run's report says %q", d.Verdict)
	}

	// The retriever is down: exit 3, and no file keeps the pass.
	write(t, dir, "rg.toml", httpConfig("http://127.0.0.1:1/search", ""))
	gateRuns(3)
	d := readErrorDoc(t, jsonOut)
	if d.Verdict != "error" || d.Command != "gate" || d.ExitCode != 3 || d.Stage != "retrieve" || d.Side != "base" || !strings.Contains(d.Message, "preflight") || d.Fix == "" {
		t.Errorf("exit 3 error report: %+v", d)
	}
	text, _ := os.ReadFile(textOut)
	if !strings.HasPrefix(string(text), "recallgate could not run: error") || !strings.Contains(string(text), "exit 3 · stage retrieve · base side") || strings.Contains(string(text), "PASS") {
		t.Errorf("text report after exit 3:\n%s", text)
	}
	junit, _ := os.ReadFile(junitOut)
	if !bytes.Contains(junit, []byte(`<error message="exit 3 · stage retrieve · base side: `)) || !bytes.Contains(junit, []byte(`errors="1"`)) || bytes.Contains(junit, []byte(`"pass"`)) {
		t.Errorf("JUnit after exit 3:\n%s", junit)
	}
	code, out, errs := rg(t, "report", "--in", jsonOut, "--format", "markdown")
	if code != 0 || !strings.HasPrefix(out, "### ⚠️ recallgate could not run") || !strings.Contains(out, "**fix:**") {
		t.Errorf("report --in an error report: exit %d\n%s\n%s", code, out, errs)
	}

	// A broken config: exit 2, the same.
	write(t, dir, "rg.toml", "set = [\n")
	gateRuns(2)
	if d := readErrorDoc(t, jsonOut); d.ExitCode != 2 || d.Stage != "config" || d.Side != "none" || !strings.Contains(d.Message, "rg.toml") {
		t.Errorf("exit 2 error report: %+v", d)
	}
	if junit, _ := os.ReadFile(junitOut); !bytes.Contains(junit, []byte(`<error message="exit 2 · stage config: `)) {
		t.Errorf("JUnit after exit 2:\n%s", junit)
	}

	// compare's run file that is not there: exit 2 naming the side.
	code, _, _ = rg(t, "compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", filepath.Join(dir, "run.jsonl"), "--head", filepath.Join(dir, "missing.jsonl"), "--json-out", jsonOut)
	if d := readErrorDoc(t, jsonOut); code != 2 || d.Command != "compare" || d.Stage != "run file" || d.Side != "head" {
		t.Errorf("compare: exit %d, %+v", code, d)
	}
}

// downConfig is a two-table config whose base retriever is down.
func downConfig(t *testing.T, dir string) {
	t.Helper()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	write(t, dir, "recallgate.toml", httpConfig("http://127.0.0.1:1/search", ""))
}

const prNoBase = `{"number":42,"pull_request":{"number":42,"base":{"sha":"","ref":"main"},"head":{"sha":"0123456789abcdef"}}}`

// TestActionErrorEditsStickyComment: the PR's sticky comment says pass;
// a push whose run ends in exit 3 edits it to the error, writes the job
// summary, sets verdict=error and report=<the error report>.
func TestActionErrorEditsStickyComment(t *testing.T) {
	g := &fakeGitHub{existing: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass — recall@3 1.000 → 1.000"}
	srv := g.server(t)
	dir := t.TempDir()
	downConfig(t, dir)
	ae := newActionEnv(t, srv.URL, "pull_request", prNoBase, map[string]string{"working-directory": dir})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs := ae.run(t)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if len(g.comments) != 0 || len(g.edits) != 1 || !strings.HasPrefix(g.edits[0], "<!-- recallgate: recallgate.toml -->\n### ⚠️ recallgate could not run") ||
		!strings.Contains(g.edits[0], "**cause:**") || !strings.Contains(g.edits[0], "**fix:** check that the base side's retriever is up") {
		t.Errorf("comments %q, edits %q", g.comments, g.edits)
	}
	summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	if !bytes.Contains(summary, []byte("### ⚠️ recallgate could not run")) || !bytes.Contains(summary, []byte("JSON report:")) {
		t.Errorf("summary:\n%s", summary)
	}
	o := ae.outputs(t)
	if o["verdict"] != "error" || o["report"] == "" || o["recall-base"] != "" {
		t.Errorf("outputs %v", o)
	}
	if d := readErrorDoc(t, o["report"]); d.Verdict != "error" || d.Command != "action" || d.ExitCode != 3 || d.Stage != "retrieve" {
		t.Errorf("report output %s: %+v", o["report"], d)
	}

	// A broken config (exit 2) does the same.
	write(t, dir, "recallgate.toml", "set = [\n")
	code, _, _ = ae.run(t)
	if code != 2 || len(g.edits) != 2 || !strings.Contains(g.edits[1], "exit 2") || !strings.Contains(g.edits[1], "stage config") {
		t.Errorf("exit %d, edits %q", code, g.edits)
	}
}

// TestActionErrorCommentPolicy: with no comment yet, the error is posted
// (never a stale pass, and never nothing when a pass may follow); with
// comment: never, nothing is created.
func TestActionErrorCommentPolicy(t *testing.T) {
	for _, tt := range []struct {
		when     string
		comments int
	}{{"never", 0}, {"on-change", 1}, {"always", 1}} {
		g := &fakeGitHub{}
		srv := g.server(t)
		dir := t.TempDir()
		downConfig(t, dir)
		ae := newActionEnv(t, srv.URL, "pull_request", prNoBase, map[string]string{"working-directory": dir, "comment": tt.when})
		ae.vars["GITHUB_WORKSPACE"] = dir
		code, out, _ := ae.run(t)
		if code != 3 || len(g.comments) != tt.comments || len(g.edits) != 0 || ae.outputs(t)["verdict"] != "error" {
			t.Errorf("comment: %s: exit %d, %d comments, %d edits, outputs %v\n%s", tt.when, code, len(g.comments), len(g.edits), ae.outputs(t), out)
		}
	}
}

// TestCommentCommandErrorReport: `comment --report` posts an error report.
func TestCommentCommandErrorReport(t *testing.T) {
	g := &fakeGitHub{existing: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass"}
	srv := g.server(t)
	dir := t.TempDir()
	downConfig(t, dir)
	rep := filepath.Join(dir, "report.json")
	if code, _, errs := rg(t, "gate", "--config", filepath.Join(dir, "recallgate.toml"), "--json-out", rep); code != 3 {
		t.Fatalf("gate: exit %d\n%s", code, errs)
	}
	env := map[string]string{"GITHUB_TOKEN": "ghs_secret123", "GITHUB_REPOSITORY": "acme/rag", "GITHUB_API_URL": srv.URL}
	var out, eb bytes.Buffer
	code := run(context.Background(), []string{"comment", "--report", rep, "--pr", "42"}, func(k string) string { return env[k] }, &out, &eb)
	if code != 0 || len(g.edits) != 1 || !strings.Contains(g.edits[0], "### ⚠️ recallgate could not run") || !strings.Contains(g.edits[0], "exit 3") {
		t.Errorf("exit %d %s %s edits %q", code, out.String(), eb.String(), g.edits)
	}
}

// TestActionPushSaysWhatItCompared: on a push (no pull request) the log
// and the summary say what was compared, and that identical tables are
// refused when there is no base commit.
func TestActionPushSaysWhatItCompared(t *testing.T) {
	srv := (&fakeGitHub{}).server(t)
	frozen, _ := filepath.Abs("../../frozen-set")
	ae := newActionEnv(t, srv.URL, "push", `{}`, map[string]string{"working-directory": frozen, "base-results": "runs/base.jsonl", "head-results": "runs/head.jsonl"})
	code, out, _ := ae.run(t)
	summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	want := "compared: the run files " + filepath.Join(frozen, "runs/base.jsonl") + " → " + filepath.Join(frozen, "runs/head.jsonl")
	if code != 1 || !strings.Contains(out, want) || !bytes.Contains(summary, []byte(want)) {
		t.Errorf("run files: exit %d\n%s\nsummary:\n%s", code, out, summary)
	}

	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\n")
	write(t, dir, "corpus/a.md", "first\n")
	ae = newActionEnv(t, srv.URL, "push", `{}`, map[string]string{"working-directory": dir})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, _ = ae.run(t)
	summary, _ = os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	want = "compared: nothing — no base commit (a push, not a pull request), and the head commit headsha00000 has one retriever configuration: identical tables refused"
	if code != 2 || !strings.Contains(out, want) || !bytes.Contains(summary, []byte(want)) || ae.outputs(t)["verdict"] != "error" {
		t.Errorf("one table on a push: exit %d\n%s\nsummary:\n%s", code, out, summary)
	}
}

// TestREADMEGitLabSnippetTurnsExit3IntoJUnitError runs the script lines
// of the merge request job of the documented .gitlab-ci.yml with the real binary
// on PATH, in a git repository with an origin, with a merge request
// pipeline's variables (no token), against a retriever that is down: the
// step exits 3 and the JUnit file its artifacts:reports:junit names holds
// an <error>. (test/gitlab runs the whole file under gitlab-ci-local.)
func TestREADMEGitLabSnippetTurnsExit3IntoJUnitError(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, p := range []string{"git", "sh"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	script := gitlabScript(t)
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "recallgate"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// origin holds main; the job's checkout is a clone of it.
	origin := t.TempDir()
	f := &fixture{t: t, dir: origin}
	f.git("init", "-q", "-b", "main")
	f.put("set.jsonl", setJSONL)
	// Each side its own deployment (one URL for both is refused, exit 2),
	// neither up.
	f.put("recallgate.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"http\"\nurl = \"http://127.0.0.1:1/search\"\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\n"+
		"[head.retriever]\ntype = \"http\"\nurl = \"http://127.0.0.1:1/preview/search\"\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\n")
	f.commit("base")
	work := filepath.Join(t.TempDir(), "work")
	if out, err := exec.Command("git", "clone", "-q", origin, work).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	// The merge request's branch changes the set's text, not the retriever.
	w := &fixture{t: t, dir: work}
	w.git("checkout", "-q", "-b", "change")
	w.put("README.md", "the change\n")
	w.commit("change")
	cmd := exec.Command("sh", "-e", "-c", strings.Join(script, "\n"))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITLAB_CI=true", "CI_PIPELINE_SOURCE=merge_request_event", "CI_MERGE_REQUEST_IID=7", "CI_PROJECT_ID=42",
		"CI_API_V4_URL=http://127.0.0.1:1/api/v4", "CI_PROJECT_DIR="+work, "CI_JOB_NAME=retrieval-gate",
		"CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main", "CI_MERGE_REQUEST_DIFF_BASE_SHA="+f.git("rev-parse", "HEAD"),
		"CI_COMMIT_SHA="+w.git("rev-parse", "HEAD"))
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	junit, jerr := os.ReadFile(filepath.Join(work, "recallgate-junit.xml"))
	if code != 3 || jerr != nil || !bytes.Contains(junit, []byte("<error ")) || !bytes.Contains(junit, []byte("exit 3 · stage retrieve")) {
		t.Errorf("the snippet exited %d (want 3); JUnit %v:\n%s\nscript:\n%s\noutput:\n%s", code, jerr, junit, strings.Join(script, "\n"), out)
	}
}

// gitlabScript is the script of the retrieval-gate job of the
// .gitlab-ci.yml the documentation shows first under "# GitLab CI"
// (docs/gitlab-ci.md).
func gitlabScript(t *testing.T) []string {
	t.Helper()
	blocks, err := mddoc.Under("../..", "# GitLab CI", "yaml")
	if err != nil || len(blocks) == 0 {
		t.Fatalf("no .gitlab-ci.yml under \"# GitLab CI\": %v", err)
	}
	_, after, ok := strings.Cut(blocks[0].Text, "\nretrieval-gate:\n")
	if !ok {
		t.Fatalf("%s:%d: the .gitlab-ci.yml has no retrieval-gate job", blocks[0].Path, blocks[0].Line)
	}
	block, _, _ := strings.Cut(after, "\n\n")
	var script []string
	in := false
	for _, line := range strings.Split(block, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "script:":
			in = true
		case in && strings.HasPrefix(trimmed, "- "):
			if cmd := strings.TrimPrefix(trimmed, "- "); !strings.HasPrefix(cmd, "go install ") {
				script = append(script, cmd)
			}
		case in:
			in = false
		}
	}
	if len(script) == 0 {
		t.Fatalf("no script lines in the retrieval-gate job:\n%s", block)
	}
	return script
}

// TestReportCommandErrorReport: `report --in` of a report that is not
// there (the step before it never ran) replaces an earlier JUnit file at
// --out with the error report (exit 2), so a stale pass cannot be shown;
// --out naming the --in file is refused and the input left as it was.
func TestReportCommandErrorReportAtOut(t *testing.T) {
	dir := t.TempDir()
	junitOut := write(t, dir, "recallgate.xml", `<testsuites name="recallgate"><testsuite name="pass"></testsuite></testsuites>`)
	code, _, errs := rg(t, "report", "--in", filepath.Join(dir, "missing.json"), "--format", "junit", "--out", junitOut)
	junit, _ := os.ReadFile(junitOut)
	if code != 2 || !bytes.Contains(junit, []byte(`<error message="exit 2 · stage input: `)) || !bytes.Contains(junit, []byte(`name="recallgate report"`)) || bytes.Contains(junit, []byte(`"pass"`)) {
		t.Errorf("report --in missing: exit %d\n%s\n%s", code, junit, errs)
	}
	in := write(t, dir, "report.json", "{broken")
	if code, _, errs := rg(t, "report", "--in", in, "--format", "json", "--out", in); code != 2 || !strings.Contains(errs, "--out is the --in file") {
		t.Errorf("--out = --in: exit %d %s", code, errs)
	}
	if b, _ := os.ReadFile(in); string(b) != "{broken" {
		t.Errorf("the input was replaced: %s", b)
	}
}
