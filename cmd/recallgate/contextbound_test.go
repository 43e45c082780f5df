package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTTPContextFloodBoundedInMemory: an HTTP answer whose context holds
// 1,300,000 passages in 15.6 MB (under the 16 MiB body limit) is refused as
// the service's fault, exit 3 naming the query, and the passages past
// the cap are never built: peak RSS stays under the suite's limit.
func TestHTTPContextFloodBoundedInMemory(t *testing.T) {
	const n = 1_300_000 // 12 bytes each
	body := `{"hits":[{"doc":"a"}],"context":` + docArray(n, 16) + "}"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	cfg := write(t, dir, "rg.toml", fmt.Sprintf("set = \"set.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"q\": {{query}}}'\nhits = \"hits\"\ndoc = \"doc\"\ncontext = \"context\"\n", srv.URL))
	code, errs, rss := rgChild(t, "retrieve", "--config", cfg, "--out", filepath.Join(dir, "run.jsonl"))
	checkBounded(t, code, errs, rss, 3, "more than")
	if !strings.Contains(errs, "q1") && !strings.Contains(errs, "q2") && !strings.Contains(errs, "q3") {
		t.Errorf("the error names no query:\n%s", errs)
	}
}

// TestRunContextFloodBoundedInMemory: a saved run whose three lines each
// carry a context of 1,300,000 passages (15.6 MB a line, under the run
// line limit) is refused naming the file, the line and the query, and
// stays under the suite's memory limit.
func TestRunContextFloodBoundedInMemory(t *testing.T) {
	const n = 1_300_000
	var b strings.Builder
	for _, id := range []string{"q1", "q2", "q3"} {
		fmt.Fprintf(&b, `{"id":%q,"hits":[{"doc":"a"}],"context":%s}`+"\n", id, docArray(n, 16))
	}
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	run := write(t, dir, "run.jsonl", b.String())
	code, errs, rss := rgChild(t, "score", "--set", set, "--results", run)
	checkBounded(t, code, errs, rss, 2, `run.jsonl:1: context[10000]: query "q1": the context holds more than 10000 passages`)
}

// hugePassage answers q2 with a final context whose one passage's text is
// 100 MB (written in 1 MB pieces), or whose passage claims 2^63−1 tokens.
const hugePassage = `import json, sys
for line in sys.stdin:
    req = json.loads(line)
    if req["id"] != "q2":
        print(json.dumps({"id": req["id"], "hits": [{"doc": "a"}], "context": [{"doc": "a", "text": "alpha"}]}), flush=True)
        continue
    if sys.argv[1] == "tokens":
        print(json.dumps({"id": "q2", "hits": [{"doc": "a"}], "context": [{"doc": "a", "tokens": 2**63 - 1}]}), flush=True)
        continue
    sys.stdout.write('{"id":"q2","hits":[{"doc":"a"}],"context":[{"doc":"a","text":"')
    piece = "x" * (1 << 20)
    try:
        for _ in range(100):
            sys.stdout.write(piece)
        sys.stdout.write('"}]}\n')
        sys.stdout.flush()
    except BrokenPipeError:
        sys.exit(0)
`

// TestCommandHugePassageBounded: a command retriever's passage text of
// 100 MB is refused at the answer's value limit, and a passage claiming
// 2^63−1 tokens at the token bound: exit 3 naming the query and the
// field, peak RSS under the suite's limit.
func TestCommandHugePassageBounded(t *testing.T) {
	needTool(t, "python3")
	dir := t.TempDir()
	write(t, dir, "set.jsonl", `{"id":"q1","query":"alpha","gold":{"a":1}}`+"\n"+`{"id":"q2","query":"beta","gold":{"a":1}}`+"\n")
	script := write(t, dir, "r.py", hugePassage)
	for fault, want := range map[string]string{"text": "context[0]: longer than 4 MiB", "tokens": "9223372036854775807 is too many tokens for one passage"} {
		cfg := write(t, dir, fault+".toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \""+script+"\", \""+fault+"\"]\n")
		code, errs, rss := rgChild(t, "retrieve", "--config", cfg, "--out", filepath.Join(dir, fault+".jsonl"))
		checkBounded(t, code, errs, rss, 3, want)
		if !strings.Contains(errs, "q2") {
			t.Errorf("%s: the error does not name q2:\n%s", fault, errs)
		}
	}
}
