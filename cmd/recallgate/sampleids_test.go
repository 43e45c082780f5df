package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// draftIDs reads a draft's query ids by text.
func draftIDs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var q struct{ ID, Query string }
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out[q.Query] = q.ID
	}
	return out
}

// TestSampleKeepsTheLogsIDs: a JSONL log whose lines carry an id keeps
// them as the draft's ids (the first line's, for a query asked twice);
// a line with none, an id a set cannot hold (a line break in it) and one
// already given to another query get the hash of their text, and the
// account says so; --hash-ids hashes all; --id-field names another key;
// a CSV log's id column is found by its header; the draft is a set
// validate reads.
func TestSampleKeepsTheLogsIDs(t *testing.T) {
	dir := t.TempDir()
	log := write(t, dir, "log.jsonl", strings.Join([]string{
		`{"id":"man-ls","query":"list files"}`,
		`{"id":"man-ls-again","query":"List files"}`,
		`{"id":"man-cp","query":"copy a file"}`,
		`{"query":"move a file"}`,
		`{"id":"bad\nid","query":"remove a folder"}`,
		`{"id":"man-cp","query":"change owner"}`,
		`{"id":42,"query":"show disk usage"}`,
	}, "\n")+"\n")
	out := filepath.Join(dir, "draft.jsonl")
	code, _, errs := rg(t, "sample", "--log", log, "--size", "10", "--out", out)
	if code != 0 {
		t.Fatalf("sample: exit %d\n%s", code, errs)
	}
	ids := draftIDs(t, out)
	for text, want := range map[string]string{"list files": "man-ls", "copy a file": "man-cp", "show disk usage": "42"} {
		if ids[text] != want {
			t.Errorf("%q: id %q, want the log's %q (all: %v)", text, ids[text], want, ids)
		}
	}
	for _, text := range []string{"move a file", "remove a folder", "change owner"} {
		if !strings.HasPrefix(ids[text], "q-") || len(ids[text]) != 10 {
			t.Errorf("%q: id %q, want the hash of its text", text, ids[text])
		}
	}
	if !strings.Contains(errs, `kept the log's own query ids for 3 queries; hashed 1 a set cannot hold (blank, too long, or a control or invisible character): "bad\nid"; hashed 1 already given to another query: "man-cp"`) {
		t.Errorf("the account does not say what became of the ids:\n%s", errs)
	}
	if code, _, errs := rg(t, "validate", "--set", out); code != 2 || !strings.Contains(errs, "gold") {
		t.Errorf("validate on the draft: exit %d (want the draft's unlabelled gold named)\n%s", code, errs)
	}

	// --append: a log id the set gives another question takes the hash of
	// its text; a question the set holds is not added again.
	more := write(t, dir, "more.jsonl", `{"id":"man-cp","query":"archive a folder"}`+"\n"+`{"id":"man-ls","query":"list files"}`+"\n")
	if code, _, errs := rg(t, "sample", "--log", more, "--out", out, "--append"); code != 0 {
		t.Fatalf("sample --append: exit %d\n%s", code, errs)
	}
	if after := draftIDs(t, out); len(after) != len(ids)+1 || after["copy a file"] != "man-cp" || !strings.HasPrefix(after["archive a folder"], "q-") {
		t.Errorf("append: ids %v", after)
	}

	if code, _, errs := rg(t, "sample", "--log", log, "--size", "10", "--out", out, "--force", "--hash-ids"); code != 0 || strings.Contains(errs, "kept the log's") {
		t.Fatalf("sample --hash-ids: exit %d\n%s", code, errs)
	}
	for text, id := range draftIDs(t, out) {
		if !strings.HasPrefix(id, "q-") {
			t.Errorf("--hash-ids: %q kept %q", text, id)
		}
	}

	other := write(t, dir, "other.jsonl", `{"id":"row-1","request":"r-7","query":"list files"}`+"\n")
	if code, _, errs := rg(t, "sample", "--log", other, "--out", out, "--force", "--id-field", "request"); code != 0 || draftIDs(t, out)["list files"] != "r-7" {
		t.Errorf("--id-field request: exit %d, ids %v\n%s", code, draftIDs(t, out), errs)
	}
	csv := write(t, dir, "log.csv", "query_id,query\nc-1,list files\nc-2,copy a file\n")
	if code, _, errs := rg(t, "sample", "--log", csv, "--out", out, "--force"); code != 0 {
		t.Fatalf("sample a CSV: exit %d\n%s", code, errs)
	}
	var got []string
	for _, id := range draftIDs(t, out) {
		got = append(got, id)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != "c-1,c-2" {
		t.Errorf("CSV ids %v, want c-1, c-2", got)
	}
	if code, _, errs := rg(t, "sample", "--log", csv, "--out", out, "--force", "--id-field", "ticket"); code != 2 || !strings.Contains(errs, `no id column "ticket"`) {
		t.Errorf("--id-field the CSV lacks: exit %d\n%s", code, errs)
	}
}
