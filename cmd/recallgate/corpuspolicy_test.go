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
// config. Whether a corpus judges is the base's policy: the made-up ids
// still fail precision@1 and nDCG@1 (exit 1), never read as documents
// nobody judged (exit 0).
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
	f.put("head.jsonl", string(headRun))
	f.put("recallgate.toml", files) // the corpus key dropped
	var out, errb bytes.Buffer
	env := map[string]string{"RUNNER_TEMP": t.TempDir()}
	code := run(context.Background(), []string{"gate", "--config", filepath.Join(dir, "recallgate.toml"), "--base-ref", base}, func(k string) string { return env[k] }, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "mean precision@1 dropped by 1.000") || strings.Contains(out.String(), "nobody judged") {
		t.Errorf("the corpus key dropped: exit %d, want 1 (the base's corpus judges the made-up ids)\n%s%s", code, out.String(), errb.String())
	}
}
