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
	var b strings.Builder
	b.WriteString(`{"hits":[{"doc":"a"}],"context":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"doc":"%x"}`, i%16)
	}
	b.WriteString("]}")
	body := b.String()
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
		fmt.Fprintf(&b, `{"id":%q,"hits":[{"doc":"a"}],"context":[`, id)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"doc":"%x"}`, i%16)
		}
		b.WriteString("]}\n")
	}
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	run := write(t, dir, "run.jsonl", b.String())
	code, errs, rss := rgChild(t, "score", "--set", set, "--results", run)
	checkBounded(t, code, errs, rss, 2, `run.jsonl:1: context[10000]: query "q1": the context holds more than 10000 passages`)
}
