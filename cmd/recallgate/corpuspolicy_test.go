package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMadeUpIDsCorpusKeyIsBasePolicy: the base commit's config names the
// corpus its gate judges returned ids against; a pull request whose head
// puts made-up ids (zz-q01 …) at the top drops the corpus key from its own
// config (or names another folder). Which corpus judges is the base's
// policy: the made-up ids still fail precision@1 and nDCG@1 (exit 1),
// never read as documents nobody judged (exit 0).
func TestMadeUpIDsCorpusKeyIsBasePolicy(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := madeUpFixture(t, func(i int) string { return "zz-q0" + string(rune('0'+i%10)) })
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	f := &fixture{t: t, dir: dir}
	f.git("init", "-q", "-b", "main")
	files := "set = \"set.jsonl\"\n" + strictGate + "[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n"
	headRun, _ := os.ReadFile(filepath.Join(dir, "head.jsonl"))
	baseRun, _ := os.ReadFile(filepath.Join(dir, "base.jsonl"))
	f.put("head.jsonl", string(baseRun))
	f.put("recallgate.toml", "corpus = \"corpus\"\n"+files)
	base := f.commit("the gate judges ids against the corpus")
	for _, cfg := range []string{files, "corpus = \"elsewhere\"\n" + files} {
		f.put("head.jsonl", string(headRun))
		f.put("recallgate.toml", cfg)
		os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755)
		f.put("elsewhere/zz.md", "a folder of the change's own")
		var out, errb bytes.Buffer
		env := map[string]string{"RUNNER_TEMP": t.TempDir()}
		code := run(context.Background(), []string{"gate", "--config", filepath.Join(dir, "recallgate.toml"), "--base-ref", base}, func(k string) string { return env[k] }, &out, &errb)
		first, _, _ := strings.Cut(cfg, "\n")
		if code != 1 || !strings.Contains(out.String(), "mean precision@1 dropped by 1.000") || strings.Contains(out.String(), "nobody judged") {
			t.Errorf("head config starting %q: exit %d, want 1 (the base's corpus judges the made-up ids)\n%s%s", first, code, out.String(), errb.String())
		}
	}
}
