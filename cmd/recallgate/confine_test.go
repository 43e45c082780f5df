package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusedPathShowsNoContent: a pull request can link its config (or a
// run file) to a file outside the workspace (another job's secrets, the
// runner's files). In action mode the path is refused, and it is refused
// before the file is read: no part of the file reaches the log, the
// annotation, the summary or the outputs, whatever the parser would have
// said of it.
func TestRefusedPathShowsNoContent(t *testing.T) {
	outside := t.TempDir()
	for i, content := range []string{
		"aws_secret_access_key = \"SECRET-1-value\"\n",                                     // valid TOML: an unknown key
		"root:x:0:0:SECRET-2-gecos:/root:/bin/bash\n",                                      // a syntax error at the first line
		"set = \"q.jsonl\"\ntoken=SECRET-3-bare\n",                                         // a syntax error quoting a value
		"[depth]\ncandidates = \"SECRET-4-string\"\n",                                      // a type error
		"[retriever]\ntype = \"SECRET-5-kind\"\n",                                          // a bad value
		"set = \"SECRET-6-set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"r.jsonl\"\n", // a path in it
	} {
		target := write(t, outside, fmt.Sprintf("secret-%d.toml", i+1), content)
		ws := t.TempDir()
		write(t, ws, "set.jsonl", setJSONL)
		write(t, ws, "run.jsonl", runJSONL)
		os.Symlink(target, filepath.Join(ws, "recallgate.toml"))
		os.Symlink(outside, filepath.Join(ws, "cfg"))
		for _, tt := range []struct{ name, config string }{
			{"a config linked out", "recallgate.toml"},
			{"a config in a folder linked out", "cfg/" + filepath.Base(target)},
		} {
			ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `{}`, map[string]string{"working-directory": ws, "config": tt.config, "comment": "never"})
			ae.vars["GITHUB_WORKSPACE"] = ws
			code, out, errs := ae.run(t)
			summary := string(must(os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])))
			outputs := string(must(os.ReadFile(ae.vars["GITHUB_OUTPUT"])))
			if code != 2 || !strings.Contains(errs, "outside the workspace") {
				t.Errorf("%s (%s): exit %d, want 2 and the path refused\n%s%s", tt.name, strings.TrimSpace(content), code, out, errs)
			}
			for what, text := range map[string]string{"stdout": out, "stderr": errs, "the summary": summary, "the outputs": outputs} {
				if strings.Contains(text, "SECRET") || strings.Contains(text, "aws_secret") {
					t.Errorf("%s (%s): %s shows the file's content:\n%s", tt.name, strings.TrimSpace(content), what, text)
				}
			}
		}
	}
	// A run file linked out is refused the same way, its lines unread.
	ws := t.TempDir()
	write(t, ws, "set.jsonl", setJSONL)
	write(t, ws, "rg.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	os.Symlink(write(t, outside, "run.jsonl", "SECRET-RUN line one\n"), filepath.Join(ws, "base.jsonl"))
	ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `{}`, map[string]string{"working-directory": ws, "config": "rg.toml", "comment": "never", "base-results": "base.jsonl", "head-results": "base.jsonl"})
	ae.vars["GITHUB_WORKSPACE"] = ws
	if code, out, errs := ae.run(t); code != 2 || !strings.Contains(errs, "outside the workspace") || strings.Contains(out+errs, "SECRET-RUN") {
		t.Errorf("a run linked out: exit %d\n%s%s", code, out, errs)
	}
}
