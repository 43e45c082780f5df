package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
