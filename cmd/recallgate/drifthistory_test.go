package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// driftHTTPRepo is a git repository whose one retriever is a search
// service (searchServer) and whose baseline, written while the service
// answered, is committed.
func driftHTTPRepo(t *testing.T, url string) *fixture {
	t.Helper()
	f := emptyRepo(t)
	f.put("set.jsonl", setJSONL)
	f.put("recallgate.toml", `set = "set.jsonl"
[depth]
candidates = 3
context = 2
[retriever]
type = "http"
url = "`+url+`"
body = '{"query": {{query}}, "k": {{k}}}'
hits = "results"
doc = "doc"
score = "score"
retries = 1
`)
	f.put("NOTES.md", "tracked, not an input\n")
	f.commit("the set and the service")
	if code, out, errs := rg(t, "gate", "--config", filepath.Join(f.dir, "recallgate.toml"), "--allow-identical", "--no-cache", "--write-baseline", filepath.Join(f.dir, "baselines/head.jsonl")); code != 0 {
		t.Fatalf("write the baseline: exit %d\n%s\n%s", code, out, errs)
	}
	f.commit("baseline after review")
	return f
}

// historyEntries reads a history file's lines as loose maps.
func historyEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the history: %v", err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("history line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestDriftHistoryRecordsEveryNight (#50 items 1 and 2): `recallgate drift
// --history` adds its night whatever the outcome, each tied to the
// checkout's HEAD: a passing night with its commit, the night the service
// is down (exit 3) as an error entry with its commit (created when the
// history does not exist yet), and a night on a checkout with uncommitted
// changes with no commit and a note saying why.
func TestDriftHistoryRecordsEveryNight(t *testing.T) {
	srv := searchServer(t, 0, nil)
	f := driftHTTPRepo(t, srv.URL+"/search")
	head := f.git("rev-parse", "HEAD")
	hist := filepath.Join(f.dir, "h.jsonl")

	// The service down on the first night: the history is created.
	srv.Close()
	code, out, errs := f.drift("--history", hist)
	if code != 3 {
		t.Fatalf("service down: exit %d, want 3\n%s\n%s", code, out, errs)
	}
	es := historyEntries(t, hist)
	if len(es) != 1 || es[0]["verdict"] != "error" || es[0]["commit"] != head {
		t.Fatalf("the error night is not in the history with commit %s: %v\n%s", head, es, errs)
	}
	if e, _ := es[0]["error"].(map[string]any); e == nil || e["exit_code"] != 3.0 {
		t.Errorf("the error entry lacks exit code 3: %v", es[0])
	}

	// The service back: a passing night with its commit, added.
	srv2 := searchServer(t, 0, nil)
	f.edit("recallgate.toml", srv.URL, srv2.URL)
	head = f.commit("the service moved")
	if code, out, errs := f.drift("--history", hist); code != 0 {
		t.Fatalf("service up: exit %d\n%s\n%s", code, out, errs)
	}
	es = historyEntries(t, hist)
	if len(es) != 2 || es[1]["verdict"] != "pass" || es[1]["commit"] != head {
		t.Fatalf("the passing night is not added with commit %s: %v", head, es)
	}

	// Uncommitted changes to a tracked file: no commit, and a note.
	f.put("NOTES.md", "edited, not committed\n")
	code, out, errs = f.drift("--history", hist)
	if code != 0 {
		t.Fatalf("dirty checkout: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "the checkout at "+head[:7]) || !strings.Contains(out, "uncommitted changes, so no head commit is recorded") {
		t.Errorf("no note says why no commit is recorded:\n%s", out)
	}
	es = historyEntries(t, hist)
	if len(es) != 3 || es[2]["commit"] != nil {
		t.Errorf("the dirty night: want a third entry with commit null, got %v", es)
	}
}
