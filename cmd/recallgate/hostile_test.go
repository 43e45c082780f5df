package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
