package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportBoundedInMemory: a run of 10 lines, each with one final
// context passage of 15 MB (under the 16 MiB line limit), exports in
// both formats with every passage whole while the child's peak RSS stays
// under the suite's limit: the contexts are parked one query at a time.
func TestExportBoundedInMemory(t *testing.T) {
	const size = 15 << 20
	dir := t.TempDir()
	var set, run strings.Builder
	text := strings.Repeat("x", size)
	ids := []string{"q00", "q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08", "q09"}
	for _, id := range ids {
		set.WriteString(`{"id":"` + id + `","query":"where is ` + id + `","gold":{"a":1}}` + "\n")
		run.WriteString(`{"id":"` + id + `","hits":[{"doc":"a"}],"context":[{"doc":"a","text":"` + text + `"}]}` + "\n")
	}
	setPath := write(t, dir, "set.jsonl", set.String())
	runPath := write(t, dir, "run.jsonl", run.String())
	run.Reset()
	for _, format := range []string{"ragas", "deepeval"} {
		out := filepath.Join(dir, format+".out")
		code, errs, rss := rgChild(t, "export", "--run", runPath, "--set", setPath, "--format", format, "--out", out)
		checkBounded(t, code, errs, rss, 0, "")
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), text); n != len(ids) || !strings.Contains(string(data), `"where is q09"`) {
			t.Errorf("%s: %d whole passages of 15 MB in %d bytes, want %d", format, n, len(data), len(ids))
		}
	}
}

// TestExportRefusesRunOfAnotherSet: a run none of whose ids is in the set
// is refused (exit 2, naming the run and the ids), as compare refuses it,
// also when the run has no metadata line to say which set it was made on;
// no file is written.
func TestExportRefusesRunOfAnotherSet(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	run := write(t, dir, "other.jsonl", `{"id":"zz1","hits":[{"doc":"a","text":"alpha"}]}`+"\n"+`{"id":"zz2","hits":[{"doc":"b","text":"beta"}]}`+"\n")
	out := filepath.Join(dir, "export.jsonl")
	for _, format := range []string{"ragas", "deepeval"} {
		code, stdout, errs := rg(t, "export", "--run", run, "--set", set, "--format", format, "--out", out)
		want := "other.jsonl: no query of the set " + set + " is in the run (2 other ids, e.g. zz1, zz2): wrong file?"
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s%s", format, code, want, stdout, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s was written", format, out)
		}
	}
}
