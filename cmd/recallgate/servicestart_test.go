package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// gateWithEnv runs `gate --base-ref` on the fixture with env as the whole
// environment (RUNNER_TEMP and PATH added), returning the exit code and
// stdout and stderr together.
func (f *fixture) gateWithEnv(env map[string]string, extra ...string) (int, string) {
	f.t.Helper()
	all := map[string]string{"RUNNER_TEMP": f.t.TempDir(), "PATH": os.Getenv("PATH")}
	for k, v := range env {
		all[k] = v
	}
	args := append([]string{"gate", "--config", filepath.Join(f.dir, "recallgate.toml"), "--base-ref", f.base, "--no-cache"}, extra...)
	var out, errb bytes.Buffer
	code := run(context.Background(), args, func(k string) string { return all[k] }, &out, &errb)
	return code, out.String() + errb.String()
}

// TestServiceStartReadsEnv: start reads ${VAR} as url does: the script
// named by a variable of the job's environment starts and the gate
// passes; a runner credential named there is refused (exit 2) naming the
// variable and never its value, and so is a variable that is not set.
func TestServiceStartReadsEnv(t *testing.T) {
	f, _ := serviceRepo(t, "start = [\"python3\", \"${SEARCH_SCRIPT}\", \"--port\", \"{port}\"]\n")
	f.put("README.md", "# our search, changed\n")
	f.commit("docs")
	if code, out := f.gateWithEnv(map[string]string{"SEARCH_SCRIPT": "service.py"}); code != 0 {
		t.Errorf("start naming ${SEARCH_SCRIPT}=service.py: exit %d, want 0\n%s", code, out)
	}
	code, out := f.gateWithEnv(map[string]string{})
	if want := ".retriever.start: start reads unset environment variable SEARCH_SCRIPT"; code != 2 || !strings.Contains(out, want) {
		t.Errorf("SEARCH_SCRIPT unset: exit %d, want 2 and %q\n%s", code, want, out)
	}

	f.edit("recallgate.toml", "${SEARCH_SCRIPT}", "${GITHUB_TOKEN}")
	f.base = f.commit("start reads the token")
	f.put("README.md", "# our search, changed again\n")
	f.commit("docs")
	code, out = f.gateWithEnv(map[string]string{"GITHUB_TOKEN": serviceToken})
	if want := "start reads GITHUB_TOKEN: the runner's credentials are never sent to a retriever"; code != 2 || !strings.Contains(out, want) || strings.Contains(out, serviceToken) {
		t.Errorf("start naming ${GITHUB_TOKEN}: exit %d, want 2 and %q, the token's value never shown\n%s", code, want, out)
	}
	if code, out, errs := rg(t, "validate", "--config", filepath.Join(f.dir, "recallgate.toml"), "--offline"); code != 2 || !strings.Contains(errs, "start reads GITHUB_TOKEN") {
		t.Errorf("validate --offline with start naming ${GITHUB_TOKEN}: exit %d, want 2\n%s\n%s", code, out, errs)
	}
}

// TestServiceOutputLabelled: each line a started service writes reaches
// the log with the side it belongs to, "base: " or "head: ", whole; none
// passes unlabelled.
func TestServiceOutputLabelled(t *testing.T) {
	f, _ := serviceRepo(t, "start = [\"python3\", \"service.py\", \"--port\", \"{port}\"]\n")
	f.put("README.md", "# our search, changed\n")
	f.commit("docs")
	code, _, errs := f.gateService(context.Background())
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, errs)
	}
	for _, side := range []string{"base", "head"} {
		if !regexp.MustCompile(`(?m)^`+side+`: indexed 12 documents$`).MatchString(errs) || !regexp.MustCompile(`(?m)^`+side+`: listening on 127\.0\.0\.1:\d+$`).MatchString(errs) {
			t.Errorf("the %s side's service's lines are not labelled %q:\n%s", side, side+": ", errs)
		}
	}
	if m := regexp.MustCompile(`(?m)^(indexed|listening) .*$`).FindString(errs); m != "" {
		t.Errorf("a service's line passed unlabelled: %q\n%s", m, errs)
	}
}

// TestMarkdownCommitsCopyExactly: the comment's set note names the base
// commit's set as path@commit. A reader copies it, or the commit alone,
// from the rendered comment: it must be those bytes, with no zero-width
// space inside the commit or after the @ (inert as a code span instead).
func TestMarkdownCommitsCopyExactly(t *testing.T) {
	f := newFixture(t, builtinConfig)
	data := string(must(os.ReadFile(filepath.Join(f.dir, "rag/queries.jsonl"))))
	f.put("rag/queries.jsonl", strings.Replace(data, q26Line+"\n", "", 1))
	f.commit("drop q26 from the set")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"gate", "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", f.base, "--format", "markdown"},
		func(k string) string { return map[string]string{"RUNNER_TEMP": t.TempDir()}[k] }, &out, &errb)
	md := out.String()
	ref := "rag/queries.jsonl@" + f.base[:12]
	if code != 0 || !strings.Contains(md, "`"+ref+"`") {
		t.Errorf("exit %d, want 0 and the set note naming `%s` as a code span:\n%s\n%s", code, ref, md, errb.String())
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.Contains(line, f.base[:6]) && strings.ContainsRune(line, '\u200b') {
			t.Errorf("a line naming the base commit carries a zero-width space: %q", line)
		}
	}
	// As GitHub renders it: inert, and the code a reader copies is the
	// path at the commit, byte for byte.
	htm := cmarkgfm.AssertInert(t, md)
	if !slices.Contains(cmarkgfm.Codes(htm), ref) {
		t.Errorf("no code element of the rendered comment is %q: %q", ref, cmarkgfm.Codes(htm))
	}
}
