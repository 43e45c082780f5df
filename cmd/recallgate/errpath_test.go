package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// TestActionBadInputEditsStickyComment: a step whose inputs are wrong (a
// typo in mode, comment, fail-on-regression, allow-identical, name, or
// one run file without the other) ends in exit 2, and the PR's sticky
// pass comment of the previous push is edited to the error: it never
// stays up beside a red check.
func TestActionBadInputEditsStickyComment(t *testing.T) {
	for _, in := range []struct{ key, value, mode string }{
		{"mode", "pull_request", ""}, {"comment", "sometimes", ""}, {"fail-on-regression", "yes please", ""},
		{"allow-identical", "maybe", ""}, {"name", "bad\tname", ""}, {"base-results", "base.jsonl", ""},
		{"comment", "sometimes", "Pull-Request"}, // the first error returned, the next input read all the same
	} {
		g := &fakeGitHub{existing: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass — recall@3 1.000 → 1.000"}
		srv := g.server(t)
		dir := t.TempDir()
		downConfig(t, dir)
		ae := newActionEnv(t, srv.URL, "pull_request", prNoBase, map[string]string{"working-directory": dir, in.key: in.value})
		if in.mode != "" {
			ae.vars["INPUT_MODE"] = in.mode
		}
		ae.vars["GITHUB_WORKSPACE"] = dir
		code, out, errs := ae.run(t)
		if code != 2 {
			t.Errorf("%s: %q: exit %d, want 2\n%s%s", in.key, in.value, code, out, errs)
		}
		// An invalid name is no gate's name: the comment and the report
		// are the config's (a report naming it would be refused when read).
		if len(g.edits) != 1 || !strings.HasPrefix(g.edits[0], "<!-- recallgate: recallgate.toml -->\n### ⚠️ recallgate could not run") || !strings.Contains(g.edits[0], "stage usage") || len(g.comments) != 0 {
			t.Errorf("%s: %q: the pass comment stays: edits %q, comments %q\n%s", in.key, in.value, g.edits, g.comments, out)
		}
		o := ae.outputs(t)
		if o["verdict"] != "error" {
			t.Errorf("%s: %q: outputs %v", in.key, in.value, o)
		}
		if code, _, errs := rg(t, "report", "--in", o["report"], "--format", "text"); code != 0 {
			t.Errorf("%s: %q: report --in the action's error report: exit %d\n%s", in.key, in.value, code, errs)
		}
	}
}

// TestLongErrorMessageIsBounded: a run file (the PR's output) whose line
// holds a key of 900 KB makes an error that quotes it. The error report
// keeps a bounded message: the sticky comment edited from pass still says
// the cause (a comment cut to GitHub's limit would drop that line), and
// the JSON, JUnit and text reports stay small and read back.
func TestLongErrorMessageIsBounded(t *testing.T) {
	g := &fakeGitHub{existing: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass — recall@3 1.000 → 1.000"}
	srv := g.server(t)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	write(t, dir, "head.jsonl", `{"id":"q1","hits":[],"`+strings.Repeat("x", 900_000)+`":1}`+"\n")
	ae := newActionEnv(t, srv.URL, "pull_request", prNoBase, map[string]string{"working-directory": dir, "base-results": "run.jsonl", "head-results": "head.jsonl"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs := ae.run(t)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%.500s\n%.500s", code, out, errs)
	}
	if len(g.edits) != 1 || !strings.Contains(g.edits[0], "could not run") || !strings.Contains(g.edits[0], "**cause:** score head run: ") || len(g.edits[0]) > 8000 {
		t.Errorf("the edited comment lacks the cause or is long: %.600q", g.edits)
	}
	summary := must(os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"]))
	if len(summary) > 8000 || !bytes.Contains(summary, []byte("**cause:** score head run: ")) {
		t.Errorf("summary of %d bytes: %.600s", len(summary), summary)
	}
	o := ae.outputs(t)
	if d := readErrorDoc(t, o["report"]); d.Verdict != "error" || d.Side != "head" || len(d.Message) > 4100 || !strings.HasSuffix(d.Message, "…") {
		t.Errorf("report message of %d bytes: %.300q", len(d.Message), d.Message)
	}

	// The command line's reports, each format.
	for _, f := range []string{"json", "junit", "text", "markdown", "html"} {
		p := filepath.Join(dir, "report."+f)
		code, _, _ := rg(t, "compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", filepath.Join(dir, "run.jsonl"), "--head", filepath.Join(dir, "head.jsonl"), "--format", f, "--out", p)
		if data := must(os.ReadFile(p)); code != 2 || len(data) > 12000 {
			t.Errorf("compare --format %s: exit %d, a report of %d bytes", f, code, len(data))
		}
	}
	if code, _, errs := rg(t, "report", "--in", filepath.Join(dir, "report.json"), "--format", "markdown"); code != 0 {
		t.Errorf("report --in: exit %d\n%.300s", code, errs)
	}
}

// TestReportCommandErrorReport: the GitLab snippet's second step renders
// report.json into recallgate.xml. When report.json cannot be read (not
// there, or refused), the JUnit file left by an earlier run must not stay:
// it becomes an error report.
func TestReportCommandErrorReport(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "recallgate.xml")
	good := filepath.Join(dir, "good.json")
	if code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/base.jsonl", "--json-out", good); code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errs)
	}
	forged := write(t, dir, "forged.json", `{"tool":"recallgate","command":"gate","verdict":"pass"}`)
	for _, in := range []string{filepath.Join(dir, "missing.json"), forged} {
		if code, _, errs := rg(t, "report", "--in", good, "--format", "junit", "--out", junit); code != 0 || strings.Contains(string(must(os.ReadFile(junit))), "<error") {
			t.Fatalf("a passing report: exit %d\n%s", code, errs)
		}
		code, _, _ := rg(t, "report", "--in", in, "--format", "junit", "--out", junit)
		data := string(must(os.ReadFile(junit)))
		if code != 2 || !strings.Contains(data, `<error message="exit 2 · stage input: `) || !strings.Contains(data, filepath.Base(in)) {
			t.Errorf("report --in %s: exit %d, JUnit:\n%s", filepath.Base(in), code, data)
		}
	}
}

// TestBaseConfigErrorNamesTheConfig: the base commit is there, but its
// config is refused (a key this release does not take, a syntax error).
// The error report names the config stage and the base side, and its fix
// is about that config, not "make the base commit reachable".
func TestBaseConfigErrorNamesTheConfig(t *testing.T) {
	for _, tt := range []struct{ name, base string }{
		{"unknown key", builtinConfig + "old_key = 1\n"},
		{"not TOML", builtinConfig + "[retriever\n"},
	} {
		f := newFixture(t, tt.base)
		f.put("rag/recallgate.toml", builtinConfig)
		f.commit("head")
		rep := filepath.Join(t.TempDir(), "report.json")
		code, _, errs := f.gate(t.TempDir(), "--json-out", rep)
		d := readErrorDoc(t, rep)
		// The file is named as the reader knows it, never the job's temporary tree.
		at := filepath.Join(f.dir, "rag/recallgate.toml") + "@" + f.base[:12] + ":"
		if code != 2 || d.Verdict != "error" || d.Stage != "config" || d.Side != "base" || strings.Contains(d.Fix, "reachable") || !strings.Contains(d.Fix, "base commit's config") ||
			!strings.Contains(d.Message, at) || strings.Contains(d.Message, "recallgate-base-") {
			t.Errorf("%s: exit %d, %+v\n%s", tt.name, code, d, errs)
		}
	}
}

// TestActionInterruptEditsStickyComment: a job cancelled mid-retrieval
// (a new push with cancel-in-progress, timeout-minutes: SIGINT, then
// SIGTERM) exits 3 with the error report, and the PR's pass comment is
// edited to it: the cancelled context must not also cancel the edit.
func TestActionInterruptEditsStickyComment(t *testing.T) {
	g := &fakeGitHub{existing: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass — recall@3 1.000 → 1.000"}
	api := g.server(t)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	srv := hangingSearch(t)
	side := func(name string) string {
		return fmt.Sprintf("[%s.retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\n", name, srv.URL)
	}
	write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n"+side("base")+side("head"))
	ae := newActionEnv(t, api.URL, "pull_request", prNoBase, map[string]string{"working-directory": dir, "allow-identical": "true"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	code := run(ctx, []string{"action"}, func(k string) string { return ae.vars[k] }, &out, &errb)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, out.String(), errb.String())
	}
	if len(g.edits) != 1 || !strings.Contains(g.edits[0], "could not run") || !strings.Contains(g.edits[0], "stage interrupted") {
		t.Errorf("the pass comment stays after an interrupted run: edits %q\n%s", g.edits, out.String())
	}
	if o := ae.outputs(t); o["verdict"] != "error" {
		t.Errorf("outputs %v", o)
	}
}

// TestBothSidesFailNamesBoth: the base side's retriever fails one query
// and the head side's every query. The error report names no single side
// (it said "base side" and only the base's query, hiding that the head
// was down) and lists every query that failed on either side.
func TestBothSidesFailNamesBoth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Query string }
		json.NewDecoder(r.Body).Decode(&req)
		if req.Query == "recallgate preflight" || (r.URL.Path == "/base" && req.Query != "second") {
			fmt.Fprint(w, `{"results":[{"doc":"a"}]}`)
			return
		}
		w.WriteHeader(500)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	side := func(name string) string {
		return fmt.Sprintf("[%s.retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\nretries = 0\n", name, srv.URL+"/"+name)
	}
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n"+side("base")+side("head"))
	js, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
	code, _, errs := rg(t, "gate", "--config", cfg, "--json-out", js, "--format", "markdown", "--out", md)
	d := readErrorDoc(t, js)
	if code != 3 || d.Side != "none" || strings.Join(d.Queries, ",") != "q1,q2,q3" || strings.Contains(d.Fix, "base side") {
		t.Errorf("exit %d, %+v\n%s", code, d, errs)
	}
	if data := string(must(os.ReadFile(md))); strings.Contains(data, "base side") || !strings.Contains(data, "queries `q1`, `q2`, `q3`") {
		t.Errorf("markdown:\n%s", data)
	}
}

// TestEmptySideNamesItsSide: a head retriever whose index is empty
// answers every query with no hits, an outage (exit 3). The error report
// names the head side and its fix the head side's retriever, not "none".
func TestEmptySideNamesItsSide(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	write(t, dir, "empty.jsonl", "{\"id\":\"q1\",\"hits\":[]}\n{\"id\":\"q2\",\"hits\":[]}\n{\"id\":\"q3\",\"hits\":[]}\n")
	js := filepath.Join(dir, "r.json")
	code, _, errs := rg(t, "compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", filepath.Join(dir, "run.jsonl"), "--head", filepath.Join(dir, "empty.jsonl"), "--json-out", js)
	if d := readErrorDoc(t, js); code != 3 || d.Stage != "retrieve" || d.Side != "head" || !strings.Contains(d.Fix, "head side's retriever") {
		t.Errorf("exit %d, %+v\n%s", code, d, errs)
	}
}

// TestMissingProgramFix: the head side's command retriever runs a program
// that is not installed. The error report names the head side, and its
// fix is to install the program, not "check that the retriever is up".
func TestMissingProgramFix(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n[head.retriever]\ntype = \"command\"\ncommand = [\"recallgate-no-such-program\", \"x.py\"]\n")
	js := filepath.Join(dir, "r.json")
	code, _, errs := rg(t, "gate", "--config", cfg, "--json-out", js)
	if d := readErrorDoc(t, js); code != 3 || d.Stage != "retrieve" || d.Side != "head" || !strings.HasPrefix(d.Fix, "install recallgate-no-such-program") {
		t.Errorf("exit %d, %+v\n%s", code, d, errs)
	}
	// The action checks the programs before anything runs: the same.
	ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", prNoBase, map[string]string{"working-directory": dir, "config": "rg.toml", "comment": "never"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs := ae.run(t)
	if d := readErrorDoc(t, ae.outputs(t)["report"]); code != 3 || d.Stage != "retrieve" || d.Side != "head" || !strings.HasPrefix(d.Fix, "install recallgate-no-such-program") {
		t.Errorf("action: exit %d, %+v\n%s%s", code, d, out, errs)
	}
}

// TestUnreadableEventSaysNothingCompared: a pull_request step whose event
// payload cannot be read ends in exit 2 before anything runs. Its summary
// says why, and never "compared: … (a push, not a pull request)": it was
// a pull request, and nothing was compared.
func TestUnreadableEventSaysNothingCompared(t *testing.T) {
	dir := t.TempDir()
	downConfig(t, dir)
	ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `[]`, map[string]string{"working-directory": dir, "comment": "never"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs := ae.run(t)
	summary := string(must(os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])))
	if code != 2 || !strings.Contains(summary, "could not run") || !strings.Contains(summary, "event payload") || strings.Contains(summary+out, "compared:") {
		t.Errorf("exit %d\nsummary:\n%s\n%s%s", code, summary, out, errs)
	}
}

// TestHostileErrorBodyStaysInert: the head's search service (the pull
// request's) answers 500 with a body built to break every report: an open
// <details>, a mention, an image, a link, workflow commands, a forged
// output heredoc, "]]>", control characters. The error report carries it
// everywhere, inert: the comment and summary have no live markup, the
// outputs are exactly the action's, the JUnit file parses, the log has no
// workflow command but recallgate's own.
func TestHostileErrorBodyStaysInert(t *testing.T) {
	body := "<details><summary>x</summary>\n@octocat ![i](https://evil.example/p.png) [l](https://evil.example)\n" +
		"::error::forged\n::set-output name=verdict::pass\nverdict<<_GitHubActionsFileCommandDelimeter_\npass\n_GitHubActionsFileCommandDelimeter_\n]]> \x01\x1b[31m"
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(svc.Close)
	g := &fakeGitHub{existing: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass"}
	api := g.server(t)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	write(t, dir, "recallgate.toml", httpConfig(svc.URL+"/search", ""))
	ae := newActionEnv(t, api.URL, "pull_request", prNoBase, map[string]string{"working-directory": dir})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs := ae.run(t)
	if code != 3 || len(g.edits) != 1 {
		t.Fatalf("exit %d, edits %q\n%s%s", code, g.edits, out, errs)
	}
	summary := string(must(os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])))
	for what, md := range map[string]string{"comment": g.edits[0], "summary": summary} {
		t.Run(what, func(t *testing.T) { cmarkgfm.AssertInert(t, md, body) })
		if !strings.Contains(md, "&lt;details&gt;") || strings.Contains(md, "<details>") || strings.Contains(md, "![") || strings.Contains(md, "](http") ||
			strings.Contains(md, " @octocat") || strings.ContainsAny(md, "\x01\x1b") || strings.Contains(md, "\n::") {
			t.Errorf("%s is not inert:\n%s", what, md)
		}
	}
	if o := ae.outputs(t); len(o) != 7 || o["verdict"] != "error" {
		t.Errorf("outputs %v", o)
	}
	for _, l := range strings.Split(out+errs, "\n") {
		if strings.HasPrefix(l, "::") && !strings.HasPrefix(l, "::add-mask::") && !strings.HasPrefix(l, "::error::retrieval failed: base: preflight") {
			t.Errorf("a workflow command in the log: %q", l)
		}
	}
	junit := filepath.Join(dir, "r.xml")
	rg(t, "gate", "--config", filepath.Join(dir, "recallgate.toml"), "--format", "junit", "--out", junit)
	var doc struct {
		Suite struct {
			Case struct {
				Error struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(must(os.ReadFile(junit)), &doc); err != nil || !strings.Contains(doc.Suite.Case.Error.Message, "<details><summary>x</summary> @octocat") {
		t.Errorf("JUnit: %v %+v", err, doc)
	}
}
