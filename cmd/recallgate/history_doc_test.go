package main

import (
	"os"
	"strings"
	"testing"
)

// TestHistoryDocExampleRunsOnAnInitConfig runs docs/history.md's own
// example, line by line as written, in a repository `init` made with a
// second commit on main: the gate runs (not refused as a gate that
// cannot fail), `history add` records the commit the gate tested (the
// checkout's HEAD, never "—"), and render shows it, with n/a for the
// facts of a set that names none.
func TestHistoryDocExampleRunsOnAnInitConfig(t *testing.T) {
	sh := blockOf(t, docSection(t, "## `history add`"), "sh")
	f := &fixture{t: t, dir: gitDir(t)}
	f.git("init", "-q", "-b", "main")
	t.Chdir(f.dir)
	if code, out, errs := rg(t, "init"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	f.commit("recallgate init")
	f.put("eval/corpus/billing/invoices.md", "# Invoices\n\nDownload invoices from the billing page, monthly.\n")
	head := f.commit("say how often invoices come")
	when := f.git("show", "-s", "--format=%cI")
	ran := 0
	for _, line := range strings.Split(strings.TrimSpace(sh.Text), "\n") {
		line = strings.ReplaceAll(line, `"$(git show -s --format=%cI)"`, when)
		words := shellWords(line)
		if len(words) == 0 || words[0] != "recallgate" {
			t.Fatalf("%s:%d: not a recallgate line: %s", sh.Path, sh.Line, line)
		}
		code, out, errs := rg(t, words[1:]...)
		if code > 1 || (words[1] != "gate" && code != 0) {
			t.Fatalf("%s:%d: %q exits %d on an init config\n%s%s", sh.Path, sh.Line, line, code, out, errs)
		}
		ran++
	}
	hist := string(must(os.ReadFile("history.jsonl")))
	if ran < 3 || !strings.Contains(hist, `"commit":"`+head+`"`) {
		t.Errorf("the history does not record the commit the gate tested (%s):\n%s", head, hist)
	}
	md := string(must(os.ReadFile("history.md")))
	if !strings.Contains(md, "| `"+head[:12]+"` |") || strings.Contains(md, "0 of 0") || !strings.Contains(md, "| n/a |") {
		t.Errorf("history render: want commit %s and facts n/a:\n%s", head[:12], md)
	}
}
