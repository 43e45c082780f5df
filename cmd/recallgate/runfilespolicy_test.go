package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runFilesRepo is a real repository whose base commit gates frozen-set/
// strictly (max_recall_drop 0.02, max_new_misses 0) and whose head commit
// adds the two run files (the head's loses recall and makes q26 miss) and
// loosens only frozen-set/recallgate.toml (by the head's own config the
// runs pass).
func runFilesRepo(t *testing.T) (ws, base string) {
	t.Helper()
	ws, base = frozenRunsRepo(t)
	f := &fixture{t: t, dir: ws}
	f.edit("frozen-set/recallgate.toml", "max_recall_drop = 0.02\nmax_new_misses = 0", "max_recall_drop = 1.0\nmax_new_misses = 30\nmax_facts_lost = 30")
	f.commit("loosen the gate, with run files")
	return ws, base
}

// frozenRunsRepo is frozenSetRepo with the project's two run files in the
// checkout's frozen-set/runs: run files on a pull request whose base
// commit gates the same set by the same policy.
func frozenRunsRepo(t *testing.T) (ws, base string) {
	t.Helper()
	ws, base = frozenSetRepo(t)
	src, _ := filepath.Abs("../../frozen-set/runs")
	for _, name := range []string{"base.jsonl", "head.jsonl"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, ws, filepath.Join("frozen-set", "runs", name), string(data))
	}
	return ws, base
}

// runFilesAction is the action's step comparing the checkout's
// frozen-set/runs on pull request 42, whose base commit is base.
func runFilesAction(t *testing.T, api, ws, base string) *actionEnv {
	t.Helper()
	ae := newActionEnv(t, api, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{
		"working-directory": filepath.Join(ws, "frozen-set"), "config": "recallgate.toml",
		"base-results": "runs/base.jsonl", "head-results": "runs/head.jsonl", "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = ws
	return ae
}

// glRunFilesJob is the same for merge request !7's GitLab job.
func glRunFilesJob(api, ws, base string) map[string]string {
	vars := glJob(api, ws, base)
	vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = filepath.Join(ws, "frozen-set"), ""
	vars["RECALLGATE_BASE_RESULTS"], vars["RECALLGATE_HEAD_RESULTS"] = "runs/base.jsonl", "runs/head.jsonl"
	return vars
}

// runFilesReport is what these tests read of the JSON report.
type runFilesReport struct {
	Verdict string   `json:"verdict"`
	Notes   []string `json:"notes"`
	Policy  *struct {
		Source, Commit string
	} `json:"policy"`
	Thresholds struct {
		MaxRecallDrop float64 `json:"max_recall_drop"`
	} `json:"thresholds"`
}

func readRunFilesReport(t *testing.T, path string) runFilesReport {
	t.Helper()
	data, err := os.ReadFile(path)
	var rep runFilesReport
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	return rep
}

// TestActionRunFilesTakeBasePolicy: run files on a pull request whose only
// change to the gate is loosening recallgate.toml are judged by the base
// commit's config, and the report says so.
func TestActionRunFilesTakeBasePolicy(t *testing.T) {
	ws, base := runFilesRepo(t)
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := runFilesAction(t, srv.URL, ws, base)
	code, out, errs := ae.run(t)
	o := ae.outputs(t)
	if code != 1 || o["verdict"] != "fail" {
		t.Fatalf("exit %d verdict %q, want 1 and fail (the base's max_recall_drop 0.02 and max_new_misses 0)\n%s\n%s", code, o["verdict"], out, errs)
	}
	rep := readRunFilesReport(t, o["report"])
	if rep.Policy == nil || rep.Policy.Source != "base-commit" || rep.Policy.Commit != base || rep.Thresholds.MaxRecallDrop != 0.02 {
		t.Errorf("policy %+v thresholds %+v", rep.Policy, rep.Thresholds)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "policy: the base commit's config ("+base[:12]+") judged both sides") {
		t.Errorf("no policy line in the notes %q", rep.Notes)
	}
	summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	if s := strings.ReplaceAll(string(summary), "\u200b", ""); !strings.Contains(s, "this PR changes the gate: max&#95;recall&#95;drop 0.02 → 1.00") {
		t.Errorf("the summary does not say the PR loosens the gate:\n%.2000s", s)
	}
	// A base commit neither the clone nor the archive has: the policy is
	// unknown, so the job fails closed (exit 3), never judges by the PR's.
	ae = runFilesAction(t, srv.URL, ws, "0123456789abcdef0123456789abcdef01234567")
	if code, out, errs := ae.run(t); code != 3 || ae.outputs(t)["verdict"] != "error" {
		t.Errorf("unreachable base commit: exit %d verdict %q, want 3 and error\n%s\n%s", code, ae.outputs(t)["verdict"], out, errs)
	}
}

// TestCIGitLabRunFilesTakeBasePolicy: the same on a merge request pipeline.
func TestCIGitLabRunFilesTakeBasePolicy(t *testing.T) {
	ws, base := runFilesRepo(t)
	g := &fakeGitLab{}
	srv := g.server(t)
	vars := glRunFilesJob(srv.URL, ws, base)
	code, out, errs := runCI(t, vars)
	if code != 1 || len(g.notes) != 1 {
		t.Fatalf("exit %d, %d notes, want 1 (the base's policy)\n%s\n%s", code, len(g.notes), out, errs)
	}
	if note := g.notes[0]["body"].(string); !strings.Contains(note, "this merge request changes the gate: max&#95;recall&#95;drop 0.02 → 1.00") || !strings.Contains(note, "judged both sides") {
		t.Errorf("the note does not say the base's policy judged:\n%.3000s", note)
	}
	rep := readRunFilesReport(t, filepath.Join(ws, ".recallgate", "recallgate-report-retrieval-gate-frozen-set.json"))
	if rep.Policy == nil || rep.Policy.Source != "base-commit" || rep.Verdict != "fail" {
		t.Errorf("verdict %s policy %+v", rep.Verdict, rep.Policy)
	}
}
