package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// policyReport is the part of the JSON report the policy tests read.
type policyReport struct {
	Verdict   string   `json:"verdict"`
	Regressed []string `json:"regressed"`
	Improved  []string `json:"improved"`
	Notes     []string `json:"notes"`
	Depth     struct {
		Candidates int `json:"candidates"`
	} `json:"depth"`
	Thresholds struct {
		MaxRecallDrop float64 `json:"max_recall_drop"`
	} `json:"thresholds"`
	Waived []struct {
		ID string `json:"id"`
	} `json:"waived"`
	Policy *struct {
		Source  string `json:"source"`
		Commit  string `json:"commit"`
		Changes []struct {
			Key, Base, Head string
		} `json:"changes"`
		WaiversAdded []struct {
			ID, Reason, Expires string
		} `json:"waivers_added"`
	} `json:"policy"`
}

// policyToday is the policy tests' clock.
var policyToday = time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)

// policyGate runs `gate --base-ref` on the fixture at policyToday, with the
// text report on stdout and the JSON one decoded.
func (f *fixture) policyGate(t *testing.T, extra ...string) (int, string, policyReport, string) {
	t.Helper()
	jsonOut := filepath.Join(t.TempDir(), "report.json")
	args := append([]string{"--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--json-out", jsonOut}, extra...)
	var out, errb bytes.Buffer
	tmp := t.TempDir()
	e := &env{getenv: func(k string) string { return map[string]string{"RUNNER_TEMP": tmp}[k] }, stdout: &out, stderr: &errb, now: func() time.Time { return policyToday }}
	runner, rest, err := gateCommand.Parse(args)
	if err == nil {
		err = runner(context.Background(), e, rest)
	}
	if err != nil {
		fmt.Fprintln(&errb, err)
	}
	var rep policyReport
	if code := exitCode(err); code < 2 {
		data, rerr := os.ReadFile(jsonOut)
		if rerr != nil || json.Unmarshal(data, &rep) != nil {
			t.Fatalf("report: %v\n%s\n%s", rerr, data, errb.String())
		}
	}
	return exitCode(err), out.String(), rep, errb.String()
}

// headlineOf is the first line of a text report.
func headlineOf(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	return line
}

// regressCorpus is a change that makes q26 lose its only gold document.
func regressCorpus(f *fixture) {
	f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
}

// TestPolicyThresholdsFromBase: a PR that regresses and raises its own
// max_recall_drop and max_new_misses is judged by the base commit's
// thresholds, and the headline says what it changes.
func TestPolicyThresholdsFromBase(t *testing.T) {
	f := newFixture(t, builtinConfig)
	regressCorpus(f)
	f.put("rag/recallgate.toml", builtinConfig+"[gate]\nmax_recall_drop = 1.0\nmax_new_misses = 30\n")
	f.commit("regress and loosen the gate")
	code, text, rep, errs := f.policyGate(t, "--base-ref", f.base)
	if code != 1 || !contains(rep.Regressed, "q26") {
		t.Fatalf("exit %d, want 1 (the base's max_recall_drop 0.02 and max_new_misses 0)\n%s\n%s", code, text, errs)
	}
	want := " · this PR changes the gate: max_recall_drop 0.02 → 1.00; max_new_misses 0 → 30: takes effect after merge"
	if h := headlineOf(text); !strings.HasPrefix(h, "FAIL  mean recall@5") || !strings.HasSuffix(h, want) {
		t.Errorf("headline %q lacks %q", h, want)
	}
	if rep.Thresholds.MaxRecallDrop != 0.02 || rep.Policy == nil || rep.Policy.Source != "base-commit" || rep.Policy.Commit != f.base || len(rep.Policy.Changes) != 2 ||
		rep.Policy.Changes[0].Key != "max_recall_drop" || rep.Policy.Changes[0].Base != "0.02" || rep.Policy.Changes[0].Head != "1.00" {
		t.Errorf("thresholds %+v policy %+v", rep.Thresholds, rep.Policy)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "policy: the base commit's config ("+f.base[:12]+") judged both sides") {
		t.Errorf("notes %q", rep.Notes)
	}
	// A flag is the caller's, not the PR's: it still wins over the base's.
	if code, text, _, errs := f.policyGate(t, "--base-ref", f.base, "--max-recall-drop", "1", "--max-new-misses", "5"); code != 0 {
		t.Errorf("flags over the base's thresholds: exit %d\n%s\n%s", code, text, errs)
	}
}

// TestPolicyDepthFromBase: a PR that raises [depth] candidates to the
// whole corpus is judged at the base's depth.
func TestPolicyDepthFromBase(t *testing.T) {
	f := newFixture(t, builtinConfig)
	regressCorpus(f)
	f.edit("rag/recallgate.toml", "candidates = 5", "candidates = 62")
	f.commit("regress and deepen")
	code, text, rep, errs := f.policyGate(t, "--base-ref", f.base)
	if code != 1 || rep.Depth.Candidates != 5 || !contains(rep.Regressed, "q26") {
		t.Fatalf("exit %d depth %d, want 1 at the base's depth 5\n%s\n%s", code, rep.Depth.Candidates, text, errs)
	}
	if h := headlineOf(text); !strings.Contains(h, "this PR changes the gate: depth.candidates 5 → 62: takes effect after merge") {
		t.Errorf("headline %q", h)
	}
}

// TestPolicyWaiverDays: a PR may waive its own regression for a while,
// named in the headline, but not for longer than max_waiver_days.
func TestPolicyWaiverDays(t *testing.T) {
	f := newFixture(t, builtinConfig)
	regressCorpus(f)
	waiver := func(expires string) string {
		return builtinConfig + "\n[[waiver]]\nquery = \"q26\"\nreason = \"audit doc rewritten\"\nexpires = \"" + expires + "\"\n"
	}
	f.put("rag/recallgate.toml", waiver("9999-12-31"))
	f.commit("regress and waive forever")
	code, text, _, errs := f.policyGate(t, "--base-ref", f.base)
	if code != 2 || !strings.Contains(errs, filepath.Join(f.dir, "rag/recallgate.toml")+":13: waiver[0].expires:") || !strings.Contains(errs, "more than max_waiver_days (90)") {
		t.Fatalf("a waiver to 9999-12-31: exit %d, want 2 naming file:line:key\n%s\n%s", code, text, errs)
	}

	in30 := policyToday.AddDate(0, 0, 30).Format("2006-01-02")
	f.put("rag/recallgate.toml", waiver(in30))
	f.commit("waive for 30 days")
	code, text, rep, errs := f.policyGate(t, "--base-ref", f.base)
	if code != 0 || len(rep.Waived) != 1 || rep.Policy == nil || len(rep.Policy.WaiversAdded) != 1 {
		t.Fatalf("a 30-day waiver: exit %d, want 0\n%s\n%s", code, text, errs)
	}
	if h, want := headlineOf(text), " · 1 regression waived by this PR: q26 — audit doc rewritten, expires "+in30; !strings.HasSuffix(h, want) {
		t.Errorf("headline %q lacks %q", h, want)
	}
}

// TestPolicyBaseWithoutConfigHeadline: when the base commit has no config,
// the headline says the change's own config judged; with no base commit at
// all, that the given config did.
func TestPolicyBaseWithoutConfigHeadline(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.git("rm", "-q", "rag/recallgate.toml")
	base := f.commit("before recallgate")
	f.put("rag/recallgate.toml", builtinConfig+"[gate]\nmax_recall_drop = 0.5\n")
	f.commit("adopt recallgate")
	code, text, rep, errs := f.policyGate(t, "--base-ref", base)
	if code != 0 || !strings.HasSuffix(headlineOf(text), " · policy: this change's config — the base commit has no recallgate.toml") {
		t.Errorf("exit %d\n%s\n%s", code, text, errs)
	}
	if rep.Policy == nil || rep.Policy.Source != "given-config" || rep.Policy.Commit != base || len(rep.Policy.Changes) != 0 {
		t.Errorf("policy %+v", rep.Policy)
	}
	two := strings.Replace(builtinConfig, "[retriever]", "[base.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\n[head.retriever]", 1)
	f.put("rag/recallgate.toml", two)
	code, text, rep, errs = f.policyGate(t)
	if code > 1 || !strings.HasSuffix(headlineOf(text), " · policy: the given config (no base commit)") || rep.Policy == nil || rep.Policy.Commit != "" {
		t.Errorf("no base commit: exit %d\n%s\n%s", code, text, errs)
	}
}

// TestActionPolicyTableSwitch: in a pull request, a switch from one
// [retriever] to [base.retriever] + [head.retriever] with a weak base
// table does not move the base side off the base commit's tree and
// retriever; the comment says what the PR changes.
func TestActionPolicyTableSwitch(t *testing.T) {
	f := newFixture(t, builtinConfig)
	regressCorpus(f)
	f.put("rag/recallgate.toml", strings.Replace(builtinConfig, "[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n",
		"[base.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\nchunk_words = 3\n[head.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n", 1))
	f.commit("regress behind a weak base table")
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{
		"working-directory": filepath.Join(f.dir, "rag"), "config": "recallgate.toml",
	})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	o := ae.outputs(t)
	if code != 1 || !strings.Contains(o["regressed"], "q26") {
		t.Fatalf("exit %d outputs %v, want 1 with q26 regressed\n%s\n%s", code, o, out, errs)
	}
	if len(g.comments) != 1 || !strings.Contains(g.comments[0], "this PR changes the gate: retrievers &#91;retriever&#93; → &#91;base.retriever&#93;+&#91;head.retriever&#93;: takes effect after merge") ||
		!strings.Contains(g.comments[0], "base side: the tree of commit `"+f.base[:12]+"`") {
		t.Errorf("comments %q", g.comments)
	}
}
