package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// runsOnlyConfig is a config for run files alone: the set and the gate,
// no retriever table (the runs come from an earlier step).
const runsOnlyConfig = "set = \"queries.jsonl\"\n\n[depth]\ncandidates = 5\ncontext = 3\n\n[gate]\nmax_recall_drop = 0.02\nmax_new_misses = 0\n"

// runsOnlyAction runs the action on run files for a pull request whose
// base commit gates them with runsOnlyConfig at frozen-set/recallgate.toml
// and whose head does change (a git command) and loosens the config it
// names, frozen-set/gate.toml.
func runsOnlyAction(t *testing.T, baseConfig string, change ...string) (code int, base string, ae *actionEnv, out, errs string) {
	t.Helper()
	ws, _ := frozenRunsRepo(t)
	f := &fixture{t: t, dir: ws}
	f.put("frozen-set/recallgate.toml", baseConfig)
	f.git("rm", "-q", "rag/recallgate.toml") // the one gate is the run files'
	f.git("add", "-A")
	base = f.commit("the gate compares run files")
	if len(change) > 0 {
		f.git(change...)
	} else {
		f.put("frozen-set/gate.toml", runsOnlyConfig)
	}
	f.put("frozen-set/gate.toml", strings.Replace(runsOnlyConfig, "max_recall_drop = 0.02\nmax_new_misses = 0", "max_recall_drop = 1.0\nmax_new_misses = 30\nmax_facts_lost = 30", 1))
	f.git("add", "-A")
	f.commit("a gate config of the change's own, loose")
	g := &fakeGitHub{}
	srv := g.server(t)
	ae = newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{
		"working-directory": filepath.Join(ws, "frozen-set"), "config": "gate.toml",
		"base-results": "runs/base.jsonl", "head-results": "runs/head.jsonl", "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = ws
	code, out, errs = ae.run(t)
	return code, base, ae, out, errs
}

// TestActionRunFilesRunsOnlyConfigIsBasePolicy: a base commit whose gate
// compares run files with a config that has no retriever table (only
// [gate]). A pull request that moves that config (git mv) and loosens it
// is judged by the moved config; one that adds a config of its own beside
// it is refused as a second gate. Neither reads as "the base commit has no
// recallgate config", which let the PR's own loose config judge its run
// files: exit 0 with q26 newly missing.
func TestActionRunFilesRunsOnlyConfigIsBasePolicy(t *testing.T) {
	code, base, ae, out, errs := runsOnlyAction(t, runsOnlyConfig, "mv", "frozen-set/recallgate.toml", "frozen-set/gate.toml")
	if o := ae.outputs(t); code != 1 || o["verdict"] != "fail" {
		t.Fatalf("moved: exit %d verdict %q, want 1 and fail (the base's moved config: max_recall_drop 0.02, max_new_misses 0)\n%s\n%s", code, o["verdict"], out, errs)
	}
	if rep := readRunFilesReport(t, ae.outputs(t)["report"]); rep.Policy == nil || rep.Policy.Source != "base-commit" || rep.Policy.Commit != base {
		t.Errorf("moved: policy %+v, want the base commit's", rep.Policy)
	}
	code, _, ae, out, errs = runsOnlyAction(t, runsOnlyConfig)
	if code != 2 || !strings.Contains(errs+out, "is new beside them") {
		t.Errorf("a config beside the base's: exit %d, want 2 (a second gate)\n%s\n%s", code, out, errs)
	}
	// The base's policy is the defaults (max_recall_drop 0.02,
	// max_new_misses 0): a config of the set alone.
	code, _, ae, out, errs = runsOnlyAction(t, "set = \"queries.jsonl\"\n", "mv", "frozen-set/recallgate.toml", "frozen-set/gate.toml")
	if o := ae.outputs(t); code != 1 || o["verdict"] != "fail" {
		t.Errorf("a moved config of the set alone: exit %d verdict %q, want 1 and fail (the defaults)\n%s\n%s", code, o["verdict"], out, errs)
	}
}
