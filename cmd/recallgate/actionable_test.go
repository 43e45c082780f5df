package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommentOutsideARunnerNamesVariables: `recallgate comment` on a
// laptop names the environment variables it reads (GITHUB_REPOSITORY,
// GITHUB_TOKEN, GITHUB_EVENT_PATH), not the action's github-token input,
// and exits 2 before asking GitHub anything.
func TestCommentOutsideARunnerNamesVariables(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "report.json")
	if code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl", "--format", "json", "--out", rep); code != 1 {
		t.Fatalf("compare: exit %d\n%s", code, errs)
	}
	for _, tt := range []struct {
		name    string
		env     map[string]string
		pr      bool
		want    []string
		notWant []string
	}{
		{"nothing set", nil, true, []string{"set GITHUB_REPOSITORY to the repository as owner/name (e.g. GITHUB_REPOSITORY=acme/rag), and GITHUB_TOKEN to a token that may write pull-request comments"}, []string{"github-token input", `repository ""`}},
		{"not owner/name", map[string]string{"GITHUB_REPOSITORY": "acme", "GITHUB_TOKEN": "t"}, true, []string{`set GITHUB_REPOSITORY to owner/name (it is "acme")`}, []string{"GITHUB_TOKEN to"}},
		{"no token", map[string]string{"GITHUB_REPOSITORY": "acme/rag"}, true, []string{"set GITHUB_TOKEN to a token", "GITHUB_TOKEN=$(gh auth token)"}, []string{"GITHUB_REPOSITORY to", "github-token input"}},
		{"no --pr", map[string]string{"GITHUB_REPOSITORY": "acme/rag", "GITHUB_TOKEN": "t"}, false, []string{"--pr is required outside a workflow_run job", "GITHUB_EVENT_PATH"}, nil},
		{"workflow_run without its event", map[string]string{"GITHUB_REPOSITORY": "acme/rag", "GITHUB_TOKEN": "t", "GITHUB_EVENT_NAME": "workflow_run"}, false, []string{"GITHUB_EVENT_NAME is workflow_run but GITHUB_EVENT_PATH is not set"}, nil},
	} {
		args := []string{"comment", "--report", rep}
		if tt.pr {
			args = append(args, "--pr", "42")
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), args, func(k string) string { return tt.env[k] }, &out, &errb)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", tt.name, code, errb.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tt.name, w, errb.String())
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(errb.String(), w) {
				t.Errorf("%s: stderr says %q:\n%s", tt.name, w, errb.String())
			}
		}
	}
}

// TestCIOutsideARunnerNamesVariables: `recallgate ci` outside a CI job
// names what each CI sets and what to run instead.
func TestCIOutsideARunnerNamesVariables(t *testing.T) {
	code, _, errs := rg(t, "ci")
	for _, w := range []string{"GITHUB_ACTIONS=true", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "INPUT_*", "GITLAB_CI=true", "CI_API_V4_URL", "CI_PROJECT_ID", "CI_MERGE_REQUEST_IID", "RECALLGATE_GITLAB_TOKEN", "run recallgate gate, then recallgate comment with GITHUB_REPOSITORY and GITHUB_TOKEN set"} {
		if code != 2 || !strings.Contains(errs, w) {
			t.Errorf("exit %d (want 2), stderr lacks %q:\n%s", code, w, errs)
		}
	}
}

// TestInputErrorsSayWhatToDo: a string command is exit 2 naming the file,
// line, key, "array" and the value as given; a set line's "text" suggests
// "query"; a grade given as the string "1" is quoted as given.
func TestInputErrorsSayWhatToDo(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	for _, tt := range []struct{ name, config, set, want string }{
		{"string command", "set = \"set.jsonl\"\n[retriever]\ntype = \"command\"\ncommand = \"python3 r.py\"\n", "", `recallgate.toml:4: retriever.command: must be an array of strings, e.g. ["python3", "retriever.py"]; got the string "python3 r.py"`},
		{"text for query", "set = \"bad.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", `{"id":"q1","text":"first","gold":{"a":1}}` + "\n", `bad.jsonl:1: text: unknown field; did you mean "query"?`},
		{"grade as a string", "set = \"bad.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", `{"id":"q1","query":"first","gold":{"a":"1"}}` + "\n", `grade must be a number 0–3, got "1"`},
	} {
		cfg := write(t, dir, "recallgate.toml", tt.config)
		if tt.set != "" {
			write(t, dir, "bad.jsonl", tt.set)
		}
		code, _, errs := rg(t, "validate", "--config", cfg)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d (want 2), stderr lacks %q:\n%s", tt.name, code, tt.want, errs)
		}
	}
}

// TestNeverRetrievedWarned: compared without a corpus, a gold document no
// side returned for any query ("ghost") is named once, in the text and
// the JSON report, and the verdict stays pass; with --corpus the check is
// the corpus's, and the warning goes.
func TestNeverRetrievedWarned(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"first","gold":{"a":2,"ghost":1}}`+"\n"+`{"id":"q2","query":"second","gold":{"ghost":1,"b":1}}`+"\n")
	runFile := write(t, dir, "run.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}`+"\n"+`{"id":"q2","hits":[{"doc":"b"},{"doc":"a"}]}`+"\n")
	code, out, errs := rg(t, "compare", "--set", set, "--base", runFile, "--head", runFile)
	if code != 0 || strings.Count(out, "never retrieved") != 1 || !strings.Contains(out, "never retrieved: 1 gold document that neither side returned for any query, at any depth: ghost — is it indexed? set corpus to check") {
		t.Errorf("text: exit %d (want 0, pass), never retrieved once naming ghost:\n%s%s", code, out, errs)
	}
	code, out, _ = rg(t, "compare", "--set", set, "--base", runFile, "--head", runFile, "--format", "json")
	if code != 0 || !strings.Contains(out, "\"never_retrieved\": [\n    \"ghost\"\n  ]") {
		t.Errorf("json: exit %d, no never_retrieved [ghost]:\n%s", code, out)
	}
	write(t, dir, "corpus/a.md", "a")
	write(t, dir, "corpus/b.md", "b")
	code, out, errs = rg(t, "compare", "--set", set, "--base", runFile, "--head", runFile, "--corpus", filepath.Join(dir, "corpus"))
	if code != 0 || strings.Contains(out, "never retrieved") {
		t.Errorf("with a corpus: exit %d, still warns:\n%s%s", code, out, errs)
	}
}
