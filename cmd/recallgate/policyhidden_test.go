package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// strictWorkflow is a base workflow whose gate names rag/recallgate.toml,
// with a looser rag/recallgate-nightly.toml beside it.
func strictWorkflow(f *fixture) {
	f.put("rag/recallgate-nightly.toml", builtinConfig+looseGate)
	f.put(".github/workflows/retrieval.yml", "on: pull_request\njobs:\n  gate:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: recallgate/recallgate@v1\n        with:\n          working-directory: rag\n          config: recallgate.toml\n")
}

// looseNew puts a new loose config at rag/loose.toml and names it.
func looseNew(f *fixture) string {
	f.put("rag/loose.toml", builtinConfig+looseGate)
	return "rag/loose.toml"
}

// TestPolicyDodgesHiddenBaseConfig: the base commit's strict config is
// where no workflow line names it (a Makefile, a GitLab include, a flow
// map), spelled in a way a line search misses (an inline or quoted
// retriever table), larger than a config may be, or beside a looser one
// the change moves instead; the change regresses q26 and names a loose
// config. None passes: the base's config judges (exit 1, its 0.02), or the
// gate refuses (exit 2) when which base config is the policy cannot be
// told or the base's own config is refused; a new config beside the
// base's untouched one (named by a Makefile, an include, a flow map) is
// refused as well, since a second gate cannot be told from a dodge. The
// last rows are link and path tricks that were already refused; they
// stay judged by the base.
func TestPolicyDodgesHiddenBaseConfig(t *testing.T) {
	inline := strings.Replace(builtinConfig, "[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n", "", 1)
	inline = strings.Replace(inline, "[depth]", "retriever = { type = \"builtin\", corpus = \"corpus\", title_boost = 2.0 }\n[depth]", 1)
	nothing := func(*fixture) {}
	removeAndAdd := func(f *fixture) string {
		f.git("rm", "-q", "rag/recallgate.toml")
		f.put("rag/gate.toml", builtinConfig+looseGate)
		return "rag/gate.toml"
	}
	for _, tc := range []struct {
		name   string
		config string
		base   func(f *fixture)
		dodge  func(f *fixture) string
		want   int    // 1: judged by the base's rag/recallgate.toml; 2: refused
		errors string // with 2, what stderr says
	}{
		{"the change moves the base's loose nightly config and names it", builtinConfig, strictWorkflow, func(f *fixture) string {
			f.git("mv", "rag/recallgate-nightly.toml", "rag/new.toml")
			return "rag/new.toml"
		}, 2, "has no config at rag/new.toml but has recallgate configs at rag/recallgate-nightly.toml, rag/recallgate.toml: which one is this gate's policy cannot be told"},
		{"an inline retriever table, named by the workflow, removed", inline, strictWorkflow, removeAndAdd, 1, ""},
		{"a quoted retriever table, removed", strings.Replace(builtinConfig, "[retriever]", `["retriever"]`, 1), nothing, removeAndAdd, 1, ""},
		{"an upper-case retriever table, removed", strings.Replace(builtinConfig, "[retriever]", "[RETRIEVER]", 1), nothing, removeAndAdd, 1, ""},
		{"named by a Makefile only", builtinConfig, func(f *fixture) {
			f.put("Makefile", "gate:\n\trecallgate gate --config rag/recallgate.toml --base-ref origin/main\n")
		}, looseNew, 2, "has no config at rag/loose.toml, and this change moves, removes or links none of its recallgate configs (rag/recallgate.toml)"},
		{"named by a GitLab include only", builtinConfig, func(f *fixture) {
			f.put(".gitlab-ci.yml", "include:\n  - local: ci/gate.yml\n")
			f.put("ci/gate.yml", "retrieval-gate:\n  script: recallgate ci\n  variables:\n    RECALLGATE_CONFIG: rag/recallgate.toml\n")
		}, looseNew, 2, "has no config at rag/loose.toml, and this change moves, removes or links none of its recallgate configs (rag/recallgate.toml)"},
		{"named in a flow map of the workflow", builtinConfig, func(f *fixture) {
			f.put(".github/workflows/retrieval.yml", "on: pull_request\njobs:\n  gate:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: recallgate/recallgate@v1\n        with: { working-directory: rag, config: recallgate.toml }\n")
		}, looseNew, 2, "has no config at rag/loose.toml, and this change moves, removes or links none of its recallgate configs (rag/recallgate.toml)"},
		{"a base config over 1 MiB, removed", builtinConfig + strings.Repeat("# padding\n", 110000), nothing, removeAndAdd, 2, "rag/recallgate.toml@"},
		{"already refused: the config's folder replaced by a link", builtinConfig, nothing, func(f *fixture) string {
			f.git("mv", "rag", "rag2")
			f.link("rag2", "rag")
			f.put("rag2/recallgate.toml", builtinConfig+looseGate)
			return "rag/recallgate.toml"
		}, 1, ""},
		{"a new link to the top, a loose top-level config named through it", builtinConfig, nothing, func(f *fixture) string {
			f.link("..", "rag/up")
			f.put("recallgate.toml", strings.NewReplacer(`"queries.jsonl"`, `"rag/queries.jsonl"`, `"corpus"`, `"rag/corpus"`).Replace(builtinConfig)+looseGate)
			return "rag/up/recallgate.toml"
		}, 1, ""},
		{"already refused: .. through a new link", builtinConfig, nothing, func(f *fixture) string {
			if err := os.MkdirAll(filepath.Join(f.dir, "evil/deep"), 0o755); err != nil {
				t.Fatal(err)
			}
			f.put("evil/deep/x", "")
			f.put("evil/recallgate.toml", strings.NewReplacer(`"queries.jsonl"`, `"../rag/queries.jsonl"`, `"corpus"`, `"../rag/corpus"`).Replace(builtinConfig)+looseGate)
			f.link("../evil/deep", "rag/sub")
			return "rag/sub/../recallgate.toml"
		}, 1, ""},
	} {
		f := newFixture(t, tc.config)
		tc.base(f)
		f.git("add", "-A")
		f.git("commit", "-q", "--allow-empty", "-m", "the base's gate")
		f.base = f.git("rev-parse", "HEAD")
		regressCorpus(f)
		named := tc.dodge(f)
		f.commit("regress and dodge the gate")
		code, text, rep, errs := f.policyGate(t, "--config", filepath.Join(f.dir, named), "--base-ref", f.base)
		switch {
		case code != tc.want:
			t.Errorf("%s: exit %d, want %d\n%s\n%s", tc.name, code, tc.want, headlineOf(text), errs)
		case code == 1 && (!contains(rep.Regressed, "q26") || rep.Thresholds.MaxRecallDrop != 0.02 || rep.Policy == nil || rep.Policy.Source != "base-commit"):
			t.Errorf("%s: max_recall_drop %v policy %+v, want the base's 0.02\n%s", tc.name, rep.Thresholds.MaxRecallDrop, rep.Policy, headlineOf(text))
		case code == 1 && strings.Contains(headlineOf(text), "has no recallgate.toml"):
			t.Errorf("%s: headline %q", tc.name, headlineOf(text))
		case code == 2 && !strings.Contains(errs, tc.errors):
			t.Errorf("%s: stderr lacks %q\n%s", tc.name, tc.errors, errs)
		}
	}
}
