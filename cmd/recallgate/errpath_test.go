package main

import (
	"strings"
	"testing"
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
