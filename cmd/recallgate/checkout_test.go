package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const lfsPointerFile = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"

// TestLFSPointersAndEmptySubmodules: a corpus document, a set or a run
// that is a Git LFS pointer, or a corpus folder left empty by a submodule
// that was not checked out, stops the gate with exit 3 and the checkout
// fix: scoring pointer files would be silently wrong.
func TestLFSPointersAndEmptySubmodules(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.put("rag/corpus/security/audit-log.md", lfsPointerFile)
	f.commit("the corpus in LFS, checked out without it")
	code, _, errs := f.gate(t.TempDir())
	if code != 3 || !strings.Contains(errs, "audit-log.md is a Git LFS pointer, not the file") || !strings.Contains(errs, "lfs: true") {
		t.Errorf("a pointer in the corpus: exit %d\n%s", code, errs)
	}

	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", lfsPointerFile)
	run := write(t, dir, "run.jsonl", runJSONL)
	if code, _, errs := rg(t, "score", "--set", set, "--results", run); code != 3 || !strings.Contains(errs, "set.jsonl is a Git LFS pointer") {
		t.Errorf("a pointer as the set: exit %d %s", code, errs)
	}
	write(t, dir, "real.jsonl", setJSONL)
	lfsRun := write(t, dir, "lfs-run.jsonl", lfsPointerFile)
	if code, _, errs := rg(t, "score", "--set", filepath.Join(dir, "real.jsonl"), "--results", lfsRun); code != 3 || !strings.Contains(errs, "lfs-run.jsonl is a Git LFS pointer") {
		t.Errorf("a pointer as the run: exit %d %s", code, errs)
	}

	empty := filepath.Join(dir, "docs")
	os.MkdirAll(empty, 0o755)
	cfg := write(t, dir, "rg.toml", "set = \"real.jsonl\"\n[base.retriever]\ntype = \"builtin\"\ncorpus = \"docs\"\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	if code, _, errs := rg(t, "gate", "--config", cfg); code != 3 || !strings.Contains(errs, "is empty (a git submodule not checked out?)") {
		t.Errorf("an empty corpus folder: exit %d %s", code, errs)
	}
}
