package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// subsetFixture is the demo project whose eval set lives in a git
// submodule (rag/evals, a repository of its own holding queries.jsonl),
// committed as the base; sub is the submodule's source repository.
func subsetFixture(t *testing.T) (f *fixture, sub *fixture) {
	t.Helper()
	sub = emptyRepo(t)
	f = newFixture(t, strings.Replace(builtinConfig, `set = "queries.jsonl"`, `set = "evals/queries.jsonl"`, 1))
	data, err := os.ReadFile(filepath.Join(f.dir, "rag/queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sub.put("queries.jsonl", string(data))
	sub.commit("the eval set")
	f.git("rm", "-q", "rag/queries.jsonl")
	f.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "rag/evals")
	f.base = f.commit("the eval set in a submodule")
	return f, sub
}

// TestBaseSetInSubmoduleStops: the base config's set is in a submodule,
// which the base commit's tree does not hold (another repository's
// commit). A pull request that breaks q26 and bumps the submodule to a
// set without q26 must not be scored on its own set as if the set were
// new: the gate stops (exit 3) naming the set's path and the submodule,
// and passes nothing.
func TestBaseSetInSubmoduleStops(t *testing.T) {
	f, _ := subsetFixture(t)
	regressCorpus(f)
	evals := &fixture{t: t, dir: filepath.Join(f.dir, "rag/evals")}
	data, err := os.ReadFile(filepath.Join(evals.dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, `"id": "q26"`) {
			kept = append(kept, l)
		}
	}
	evals.put("queries.jsonl", strings.Join(kept, ""))
	evals.commit("drop q26")
	f.commit("break q26, and drop it from the set")
	code, rep, errs := f.gate(t.TempDir())
	want := "rag/evals/queries.jsonl (base commit " + f.base[:12] + ") is inside the submodule rag/evals"
	if code != 3 || !strings.Contains(errs, want) || strings.Contains(errs, "recallgate-base-") {
		t.Errorf("exit %d, verdict %q, notes %q, want exit 3 and %q\n%s", code, rep.Verdict, rep.Notes, want, errs)
	}
}

// TestBaseSetLFSPointerStops: the base commit's set is a Git LFS pointer
// (its checkout fetched no LFS objects): the gate stops (exit 3) with the
// LFS fix, and never scores on the change's set.
func TestBaseSetLFSPointerStops(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := newFixture(t, builtinConfig)
	f.put("rag/queries.jsonl", lfsPointer)
	f.base = f.commit("the set in LFS")
	data, err := os.ReadFile(filepath.Join("../../frozen-set/queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.put("rag/queries.jsonl", string(data))
	regressCorpus(f)
	f.commit("the set, and q26 broken")
	code, rep, errs := f.gate(t.TempDir())
	want := "rag/queries.jsonl (base commit " + f.base[:12] + ") is a Git LFS pointer, not the file"
	if code != 3 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, verdict %q, want exit 3 and %q\n%s", code, rep.Verdict, want, errs)
	}
}
