package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// looseConfig is a nightly config of the base branch: the same retriever
// as builtinConfig, a gate that lets everything pass.
const looseConfig = "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[gate]\nmax_recall_drop = 1.0\nmax_new_misses = 60\nmax_ndcg_drop = 1.0\nmax_precision_drop = 1.0\nmax_facts_lost = 60\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n"

// TestDeletingALooseConfigPicksNoJudge: the base branch gates with
// rag/recallgate.toml (the defaults: strict), named where its workflows do
// not say (a Makefile), and keeps a loose rag/nightly.toml. A pull request
// that deletes the nightly config and names a new config of its own (whose
// retriever makes q20 and q26 miss) was judged by the deleted nightly one,
// "this PR moves/links the gate's config", and passed. Which config was
// the gate's cannot be told: exit 2 naming both. Moving the gate's config
// with a link left at its old path is judged by the base's config.
func TestDeletingALooseConfigPicksNoJudge(t *testing.T) {
	gateAt := func(f *fixture, cfg string) (int, string) {
		var out, errb bytes.Buffer
		env := map[string]string{"RUNNER_TEMP": t.TempDir()}
		code := run(context.Background(), []string{"gate", "--config", filepath.Join(f.dir, cfg), "--base-ref", f.base}, func(k string) string { return env[k] }, &out, &errb)
		return code, out.String() + errb.String()
	}
	f := newFixture(t, builtinConfig)
	f.put("rag/nightly.toml", looseConfig)
	f.base = f.commit("a loose nightly config")
	f.git("rm", "-q", "rag/nightly.toml")
	f.put("rag/pr.toml", looseConfig+"chunk_words = 2\n")
	f.commit("drop the nightly, a config of the PR's own")
	if code, out := gateAt(f, "rag/pr.toml"); code != 2 || !strings.Contains(out, "removes or moves its recallgate config rag/nightly.toml but leaves rag/recallgate.toml untouched") {
		t.Errorf("the nightly deleted: exit %d, want 2 naming both configs\n%s", code, out)
	}

	g := newFixture(t, builtinConfig)
	g.put("rag/nightly.toml", looseConfig)
	g.base = g.commit("a loose nightly config")
	g.git("mv", "rag/recallgate.toml", "rag/gate.toml")
	g.edit("rag/gate.toml", "title_boost = 2.0\n", "chunk_words = 2\n")
	g.link("gate.toml", "rag/recallgate.toml")
	g.commit("move the gate's config, a link at its old path")
	if code, out := gateAt(g, "rag/recallgate.toml"); code != 1 {
		t.Errorf("moved with a link: exit %d, want 1 (the base's rag/recallgate.toml judges the new misses)\n%s", code, out)
	}
}
