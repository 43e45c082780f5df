package main

import (
	"bytes"
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
	"syscall"
	"testing"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// TestOutageIsNotGreen: an index that answers 200 with no hits on both
// sides (a broken ingestion job) exits 3 naming the side in gate, compare
// and action; it never passes as 0.000 → 0.000.
func TestOutageIsNotGreen(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"hits":[]}`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	side := func(name string) string {
		return fmt.Sprintf("[%s.retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"q\": {{query}}, \"n\": %q}'\nhits = \"hits\"\ndoc = \"doc\"\n", name, srv.URL, name)
	}
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n"+side("base")+side("head"))
	code, out, errs := rg(t, "gate", "--config", cfg)
	if code != 3 || out != "" || !strings.Contains(errs, "base: every one of the 3 queries came back with no hits") {
		t.Errorf("gate: exit %d, want 3\n%s%s", code, out, errs)
	}
	empty := write(t, dir, "empty.jsonl", `{"id":"q1","hits":[]}`+"\n"+`{"id":"q2","hits":[]}`+"\n"+`{"id":"q3","hits":[]}`+"\n")
	code, out, errs = rg(t, "compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", filepath.Join(dir, "run.jsonl"), "--head", empty)
	if code != 2 { // run.jsonl does not exist yet: a plain input error first
		t.Fatalf("compare with a missing run: exit %d %s", code, errs)
	}
	write(t, dir, "run.jsonl", runJSONL)
	code, out, errs = rg(t, "compare", "--set", filepath.Join(dir, "set.jsonl"), "--base", filepath.Join(dir, "run.jsonl"), "--head", empty)
	if code != 3 || !strings.Contains(errs, "head: every one of the 3 queries came back with no hits") {
		t.Errorf("compare: exit %d, want 3\n%s%s", code, out, errs)
	}
	ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `{}`, map[string]string{
		"working-directory": dir, "config": "rg.toml", "base-results": "empty.jsonl", "head-results": "empty.jsonl", "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs = ae.run(t)
	if code != 3 || !strings.Contains(out+errs, "every one of the 3 queries came back with no hits") {
		t.Errorf("action: exit %d, want 3\n%s%s", code, out, errs)
	}
}

// ownCommand reports whether a log line is a workflow command recallgate
// writes itself: its annotations, the token mask and its stop-commands
// fence.
var ownCommand = regexp.MustCompile(`^(::add-mask::ghs_secret123|::(error|warning|notice)( [^:]*)?::.*|::stop-commands::recallgate-[0-9a-f]{32}|::recallgate-[0-9a-f]{32}::)$`)

// checkNoInjectedCommands fails on any line of out that the runner would
// parse as a workflow command recallgate did not write.
func checkNoInjectedCommands(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r", "\n"), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		// recallgate's own annotations never carry the hostile marker at the
		// start of a command: the injected ones do.
		own := ownCommand.MatchString(trimmed) && !strings.HasPrefix(trimmed, "::error::INJECTED")
		if (strings.HasPrefix(trimmed, "::") && !own) || strings.Contains(line, "##[") {
			t.Errorf("%s: a line the runner would parse as a command: %q", what, line)
		}
	}
}

// TestNoWorkflowCommandInjection feeds hostile text through every path
// that prints what recallgate did not write: run ids in warnings, an HTTP
// error body, a command retriever's stderr (in action mode), segment names
// in the text report.
func TestNoWorkflowCommandInjection(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"first","gold":{"a":1},"segments":["::error::INJECTED seg"]}
{"id":"q2","query":"second","gold":{"b":1},"segments":["::error::INJECTED seg"]}
`)
	run := write(t, dir, "run.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}
{"id":"q2","hits":[{"doc":"b"}]}
{"id":"x\n::error::INJECTED","hits":[{"doc":"a"}]}
{"id":"y\n::set-output name=verdict::pass","hits":[{"doc":"a"}]}
`)
	code, out, errs := rg(t, "score", "--set", set, "--results", run)
	checkNoInjectedCommands(t, "score", out+"\n"+errs)
	if code != 0 || !strings.Contains(errs, "INJECTED") {
		t.Errorf("score: exit %d (the hostile ids should be named in a warning)\n%s", code, errs)
	}
	code, out, errs = rg(t, "compare", "--set", set, "--base", run, "--head", run)
	checkNoInjectedCommands(t, "compare", out+"\n"+errs)
	if code != 0 || !strings.Contains(out, "INJECTED seg") {
		t.Errorf("compare: exit %d\n%s%s", code, out, errs)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprint(w, "boom\n::error::INJECTED\n::add-mask::zzz\n##[set-output name=verdict;]pass")
	}))
	t.Cleanup(srv.Close)
	cfg := write(t, dir, "http.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"http\"\nurl = %q\nretries = 0\nhits = \"hits\"\ndoc = \"doc\"\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", srv.URL))
	code, out, errs = rg(t, "gate", "--config", cfg)
	checkNoInjectedCommands(t, "gate with an HTTP 500 body", out+"\n"+errs)
	if code != 3 || !strings.Contains(errs, "boom") {
		t.Errorf("gate: exit %d\n%s", code, errs)
	}

	needTool(t, "python3") // the rest runs a command retriever
	write(t, dir, "noisy.py", `import json, sys
print("::error::INJECTED from the retriever", file=sys.stderr, flush=True)
print("::set-output name=verdict::pass", file=sys.stderr, flush=True)
print("  ::add-mask::zzz", file=sys.stderr, flush=True)
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps({"id": req["id"], "hits": [{"doc": "a"}, {"doc": "b"}]}), flush=True)
`)
	write(t, dir, "noisy.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"noisy.py\"]\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `{}`, map[string]string{"working-directory": dir, "config": "noisy.toml", "comment": "never"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs = ae.run(t)
	checkNoInjectedCommands(t, "action with a noisy command retriever", out+"\n"+errs)
	if code > 1 || !strings.Contains(errs, "INJECTED from the retriever") {
		t.Errorf("action: exit %d\n%s\n%s", code, out, errs)
	}
	open := regexp.MustCompile(`(?m)^::stop-commands::(recallgate-[0-9a-f]{32})$`).FindStringSubmatch(errs)
	if open == nil || !strings.Contains(errs, "::"+open[1]+"::\n") || strings.Index(errs, open[0]) > strings.Index(errs, "INJECTED from the retriever") {
		t.Errorf("the retriever's stderr is not fenced in a stop-commands block:\n%s", errs)
	}
}

// TestTokenOutOfReach: the job token is in the runner's environment, and
// the pull request's config must not be able to read it: not through a
// command retriever's environment, not through an http header, not
// through a corpus file that links to the process's environment.
func TestTokenOutOfReach(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	envOut := filepath.Join(dir, "child-env.txt")
	write(t, dir, "spy.py", `import json, os, sys
with open(sys.argv[1], "w") as f:
    for k, v in sorted(os.environ.items()):
        f.write(k + "=" + v + "\n")
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps({"id": req["id"], "hits": [{"doc": "a"}, {"doc": "c"}]}), flush=True)
`)
	write(t, dir, "spy.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"spy.py\", %q]\nenv = [\"EMBEDDER_KEY\"]\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", envOut))
	ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `{}`, map[string]string{"working-directory": dir, "config": "spy.toml", "comment": "never"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	ae.vars["PATH"] = os.Getenv("PATH")
	ae.vars["GITHUB_TOKEN"] = "ghs_secret123"
	ae.vars["ACTIONS_RUNTIME_TOKEN"] = "runtime-secret"
	ae.vars["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] = "oidc-secret"
	ae.vars["EMBEDDER_KEY"] = "the-embedder-key"
	ae.vars["UNLISTED_SECRET"] = "not-asked-for"
	if code, out, errs := ae.run(t); code > 1 {
		t.Fatalf("action: exit %d\n%s\n%s", code, out, errs)
	}
	child := string(must(os.ReadFile(envOut)))
	for _, leaked := range []string{"ghs_secret123", "runtime-secret", "oidc-secret", "not-asked-for", "INPUT_", "GITHUB_TOKEN"} {
		if strings.Contains(child, leaked) {
			t.Errorf("the command retriever's environment holds %q:\n%s", leaked, child)
		}
	}
	if !strings.Contains(child, "EMBEDDER_KEY=the-embedder-key\n") || !strings.Contains(child, "PATH=") {
		t.Errorf("the command retriever lacks PATH or the variable its config names:\n%s", child)
	}
	bad := write(t, dir, "bad-env.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"spy.py\"]\nenv = [\"INPUT_GITHUB-TOKEN\"]\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	if code, _, errs := rg(t, "gate", "--config", bad); code != 2 || !strings.Contains(errs, "base.retriever.env: INPUT_GITHUB-TOKEN is one of the runner's credentials") {
		t.Errorf("env naming the token: exit %d %s", code, errs)
	}

	// An http header that reads the token: refused before any request.
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		fmt.Fprint(w, `{"hits":[{"doc":"a"}]}`)
	}))
	t.Cleanup(srv.Close)
	for _, v := range []string{"${INPUT_GITHUB-TOKEN}", "Bearer ${GITHUB_TOKEN}", "${ACTIONS_RUNTIME_TOKEN}"} {
		cfg := write(t, dir, "hdr.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"http\"\nurl = %q\nheaders = { Authorization = %q }\nhits = \"hits\"\ndoc = \"doc\"\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", srv.URL, v))
		var out, errb bytes.Buffer
		env := map[string]string{"GITHUB_TOKEN": "ghs_secret123", "INPUT_GITHUB-TOKEN": "ghs_secret123", "ACTIONS_RUNTIME_TOKEN": "runtime-secret"}
		code := run(context.Background(), []string{"gate", "--config", cfg}, func(k string) string { return env[k] }, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "base.retriever: header Authorization reads") || !strings.Contains(errb.String(), "never sent to a retriever") {
			t.Errorf("header %s: exit %d %s", v, code, errb.String())
		}
	}
	if len(got) != 0 {
		t.Errorf("the service was called with %q", got)
	}

	// Corpus files that link to the process's environment or out of the
	// corpus folder are refused, naming the file.
	for name, target := range map[string]string{"env.md": "/proc/self/environ", "outside.md": filepath.Join(dir, "set.jsonl")} {
		c := filepath.Join(dir, "corpus-"+name)
		write(t, c, "ok.md", "# ok\n\nfine\n")
		if err := os.Symlink(target, filepath.Join(c, name)); err != nil {
			t.Fatal(err)
		}
		cfg := write(t, dir, "corpus.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"builtin\"\ncorpus = %q\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", c))
		code, _, errs := rg(t, "gate", "--config", cfg)
		if code != 2 || !strings.Contains(errs, filepath.Join(c, name)+": corpus document refused") {
			t.Errorf("corpus link %s → %s: exit %d %s", name, target, code, errs)
		}
	}
	// A set that is a FIFO would hang the run: refused at once.
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		if code, _, errs := rg(t, "score", "--set", fifo, "--results", filepath.Join(dir, "run.jsonl")); code != 2 || !strings.Contains(errs, "not a regular file") {
			t.Errorf("a FIFO set: exit %d %s", code, errs)
		}
	}
}

// TestCommentFromWorkflowRun: the privileged workflow_run job finds the PR
// by the run's head commit (pull_requests is empty for forks) and refuses
// a report made on another commit, or a --pr that names another PR.
func TestCommentFromWorkflowRun(t *testing.T) {
	const head = "abc1234def567890abc1234def567890abc12345"
	g := &fakeGitHub{pulls: map[int]string{42: head, 7: "0000000111111122222223333333444444455555"}}
	srv := g.server(t)
	dir := t.TempDir()
	rep := filepath.Join(dir, "report.json")
	if code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl", "--format", "json", "--out", rep); code != 1 {
		t.Fatalf("compare: %d %s", code, errs)
	}
	stamped := func(sha string) string {
		var m map[string]any
		json.Unmarshal(must(os.ReadFile(rep)), &m)
		if sha != "" {
			m["head_sha"] = sha
		}
		b, _ := json.Marshal(m)
		return write(t, dir, "r-"+sha+".json", string(b))
	}
	event := write(t, dir, "event.json", fmt.Sprintf(`{"workflow_run":{"head_sha":%q,"head_branch":"fix-typo","event":"pull_request","head_repository":{"owner":{"login":"forker"}},"pull_requests":[]}}`, head))
	comment := func(args ...string) (int, string) {
		env := map[string]string{"GITHUB_TOKEN": "ghs_secret123", "GITHUB_REPOSITORY": "acme/rag", "GITHUB_API_URL": srv.URL, "GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": event}
		var out, eb bytes.Buffer
		code := run(context.Background(), append([]string{"comment"}, args...), func(k string) string { return env[k] }, &out, &eb)
		return code, out.String() + eb.String()
	}
	code, out := comment("--report", stamped(head))
	if code != 0 || len(g.comments) != 1 || strings.Join(g.pullLists, ";") != "open forker:fix-typo" {
		t.Fatalf("matching report: exit %d, %d comments, list calls %q\n%s", code, len(g.comments), g.pullLists, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--report", stamped("0123456789abcdef0123456789abcdef01234567")}, "the report was made on commit 0123456789abcdef0123456789abcdef01234567 but the workflow run tested " + head + ": refused"},
		{[]string{"--report", stamped("")}, "head_sha: the report records no head commit"},
		{[]string{"--report", stamped(head), "--pr", "7"}, "--pr: pull request 7 has head 0000000111111122222223333333444444455555, not the run's"},
	} {
		code, out := comment(tt.args...)
		if code != 2 || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tt.args, code, tt.want, out)
		}
	}
	if len(g.comments) != 1 || len(g.edits) != 0 {
		t.Errorf("a refused report still wrote: %d comments, %d edits", len(g.comments), len(g.edits))
	}
}

// TestCommentReadsTrue: the privileged comment job renders a report.json
// an untrusted job wrote; what a reviewer reads must be what it holds.
// Bidi controls and zero-width characters show as marks, and no link,
// reference or mention in it is live.
func TestCommentReadsTrue(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	dir := t.TempDir()
	m := frozenReport(t, dir)
	// Two regressed queries' texts (a table cell keeps 80 characters).
	texts := map[string]string{
		"q10": "ok\u202e \u2066x\u2069 q1\u200b see https://evil.example www.evil.example",
		"q16": "owner/repo#1 GH-2 owner/repo@0123abc 4f2a9c1 é@octocat",
	}
	for _, q := range m["queries"].([]any) {
		q := q.(map[string]any)
		if s, ok := texts[q["id"].(string)]; ok {
			q["query"] = s
		}
	}
	hostile := write(t, dir, "hostile.json", string(must(json.Marshal(m))))
	env := map[string]string{"GITHUB_TOKEN": "ghs_secret123", "GITHUB_REPOSITORY": "acme/rag", "GITHUB_API_URL": srv.URL}
	var out, eb bytes.Buffer
	if code := run(context.Background(), []string{"comment", "--report", hostile, "--pr", "42"}, func(k string) string { return env[k] }, &out, &eb); code != 0 || len(g.comments) != 1 {
		t.Fatalf("exit %d, %d comments\n%s%s", code, len(g.comments), out.String(), eb.String())
	}
	const z = "\u200b"
	body := g.comments[0]
	for _, want := range []string{
		"| `q10` | ok⟨U+202E⟩ ⟨U+2066⟩x⟨U+2069⟩ q1⟨U+200B⟩ see https" + z + "://evil.example www" + z + ".evil.example |",
		"| `q16` | owner/repo#" + z + "1 GH-" + z + "2 owner/repo@" + z + "0123ab" + z + "c 4f2a9c" + z + "1 é@" + z + "octocat |",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the comment lacks\n%q\n%s", want, body)
		}
	}
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, body, texts["q10"], texts["q16"]) })
	for _, raw := range []string{"\u202e", "\u2066", "\u2069", "https://", "www.", "repo#1", "GH-2", "@0123abc", "4f2a9c1", "é@octocat"} {
		if strings.Contains(body, raw) {
			t.Errorf("the comment carries %q live", raw)
		}
	}
}

// TestValidateRefusesIdsThatReadAlike: two query ids a reviewer cannot
// tell apart are refused (exit 2), naming the file, line and field and
// showing both ids.
func TestValidateRefusesIdsThatReadAlike(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ set, want string }{
		{"{\"id\":\"q1\",\"query\":\"x\",\"gold\":{\"a\":1}}\n{\"id\":\"q1\\u200b\",\"query\":\"y\",\"gold\":{\"b\":1}}\n",
			`zw.jsonl:2: id: query id "q1⟨U+200B⟩" (q1\u200b) has an invisible character (U+200B at byte 2)`},
		{"{\"id\":\"ｑ1\",\"query\":\"x\",\"gold\":{\"a\":1}}\n{\"id\":\"q1\",\"query\":\"y\",\"gold\":{\"b\":1}}\n",
			`wide.jsonl:2: id: query id "q1" reads the same as "ｑ1" (\uff511) (line 1): they differ only by invisible or full-width characters`},
	} {
		name := strings.SplitN(tt.want, ":", 2)[0]
		code, out, errs := rg(t, "validate", "--set", write(t, dir, name, tt.set))
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s%s", name, code, tt.want, out, errs)
		}
	}
}

// TestActionErrorShowsHiddenCharacters: an error carrying a retriever's
// words reaches the run's annotations with its bidi controls shown.
func TestActionErrorShowsHiddenCharacters(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprint(w, "all fine\u202e lortnoc\u200b")
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", `{"id":"q1","query":"first","gold":{"a":1}}`+"\n")
	write(t, dir, "run.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}`+"\n")
	write(t, dir, "http.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"http\"\nurl = %q\nretries = 0\nhits = \"hits\"\ndoc = \"doc\"\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", srv.URL))
	ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `{}`, map[string]string{"working-directory": dir, "config": "http.toml", "comment": "never"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	code, out, errs := ae.run(t)
	line := regexp.MustCompile(`(?m)^::error::.*all fine.*$`).FindString(out)
	if code != 3 || !strings.Contains(line, "all fine⟨U+202E⟩ lortnoc⟨U+200B⟩") {
		t.Errorf("exit %d, annotation %q\n%s\n%s", code, line, out, errs)
	}
}
