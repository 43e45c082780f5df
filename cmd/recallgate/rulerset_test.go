package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/report"
)

// q26Line is q26's line of the demo set, the query regressCorpus breaks.
const q26Line = `{"id": "q26", "query": "where can I see who deleted a queue", "gold": {"security/audit-log": 1}, "segments": ["question"], "source": "ticket", "verified": "2026-11-20"}`

// segmentConfig gates the demo with loose set-wide rules and a strict
// rule on the question segment: one question lost fails only that rule.
const segmentConfig = builtinConfig + `[gate]
max_recall_drop = 0.5
max_new_misses = 5
max_ndcg_drop = 0.5
max_precision_drop = 0.5

[[gate.segment]]
name = "question"
max_recall_drop = 0.01
`

// setChangesJSON is the report's set_changes, as gate/report writes it.
type setChangesJSON = report.SetChangesInfo

// rulerGate runs `gate --base-ref` on f: the exit code, the text report,
// the JSON one's regressed queries and set_changes, stderr.
func (f *fixture) rulerGate(t *testing.T) (int, string, []string, *setChangesJSON, string) {
	t.Helper()
	jsonOut := filepath.Join(t.TempDir(), "report.json")
	var out, errb bytes.Buffer
	tmp := t.TempDir()
	e := &env{getenv: func(k string) string { return map[string]string{"RUNNER_TEMP": tmp}[k] }, stdout: &out, stderr: &errb, now: func() time.Time { return policyToday }}
	runner, rest, err := gateCommand.Parse([]string{"--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", f.base, "--json-out", jsonOut})
	if err == nil {
		err = runner(context.Background(), e, rest)
	}
	if err != nil {
		fmt.Fprintln(&errb, err)
	}
	var rep struct {
		Regressed  []string        `json:"regressed"`
		SetChanges *setChangesJSON `json:"set_changes"`
	}
	code := exitCode(err)
	if code < 2 {
		data, rerr := os.ReadFile(jsonOut)
		if rerr != nil || json.Unmarshal(data, &rep) != nil {
			t.Fatalf("report: %v\n%s\n%s", rerr, data, errb.String())
		}
	}
	return code, out.String(), rep.Regressed, rep.SetChanges, errb.String()
}

// TestSetIsTheBaseCommits is the acceptance of the base commit's set as
// the ruler: a change that breaks q26 (its document emptied) and, in the
// same change, deletes, relabels, marks unanswerable, re-segments, tags
// synthetic, rewords, or moves the set and drops q26 on the way fails
// naming q26, and the report shows what the change proposes for the set.
func TestSetIsTheBaseCommits(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		dodge        func(f *fixture)
		list         func(sc *setChangesJSON) []string // the proposal's list that names q26
		headline     string
	}{
		{"deleted", builtinConfig, func(f *fixture) { f.edit("rag/queries.jsonl", q26Line+"\n", "") },
			func(sc *setChangesJSON) []string { return sc.Removed }, "this change proposes 1 removed"},
		{"relabelled", builtinConfig, func(f *fixture) {
			f.edit("rag/queries.jsonl", `"gold": {"security/audit-log": 1}, "segments": ["question"]`, `"gold": {"integrations/terraform": 1}, "segments": ["question"]`)
		}, func(sc *setChangesJSON) []string { return sc.Relabelled }, "this change proposes 1 relabelled"},
		{"marked unanswerable", builtinConfig, func(f *fixture) {
			f.edit("rag/queries.jsonl", `"gold": {"security/audit-log": 1}, "segments": ["question"]`, `"gold": {}, "unanswerable": true, "segments": ["question"]`)
		}, func(sc *setChangesJSON) []string { return sc.Remarked }, "this change proposes 1 relabelled, 1 re-marked"},
		{"re-segmented", segmentConfig, func(f *fixture) {
			f.edit("rag/queries.jsonl", `"gold": {"security/audit-log": 1}, "segments": ["question"]`, `"gold": {"security/audit-log": 1}, "segments": ["misc"]`)
		}, func(sc *setChangesJSON) []string { return sc.Remarked }, "this change proposes 1 re-marked"},
		{"tagged synthetic", builtinConfig, func(f *fixture) {
			f.edit("rag/queries.jsonl", `"segments": ["question"], "source": "ticket", "verified": "2026-11-20"}`+"\n"+`{"id": "q27"`, `"segments": ["question"], "source": "synthetic", "verified": "2026-11-20"}`+"\n"+`{"id": "q27"`)
		}, func(sc *setChangesJSON) []string { return sc.Remarked }, "this change proposes 1 re-marked"},
		{"reworded", builtinConfig, func(f *fixture) {
			f.edit("rag/queries.jsonl", `"where can I see who deleted a queue"`, `"how do I pay an invoice"`)
		}, func(sc *setChangesJSON) []string { return sc.Reworded }, "this change proposes 1 reworded"},
		{"moved and dropped", builtinConfig, func(f *fixture) {
			f.edit("rag/queries.jsonl", q26Line+"\n", "")
			f.git("mv", "rag/queries.jsonl", "rag/evals.jsonl")
			f.edit("rag/recallgate.toml", `set = "queries.jsonl"`, `set = "evals.jsonl"`)
		}, func(sc *setChangesJSON) []string { return sc.Removed }, "this change proposes 1 removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.config)
			regressCorpus(f)
			tc.dodge(f)
			f.commit("break q26 and " + tc.name + " it")
			code, text, regressed, sc, errs := f.rulerGate(t)
			if code != 1 || !slices.Contains(regressed, "q26") {
				t.Fatalf("exit %d regressed %q, want 1 naming q26\n%s\n%s", code, regressed, text, errs)
			}
			if sc == nil || sc.Source != "base-commit" || sc.Queries != 30 || !slices.Contains(tc.list(sc), "q26") {
				t.Errorf("set_changes %+v: want the base commit's 30 queries and q26 listed", sc)
			}
			if want := "set: the base commit's (30 queries); " + tc.headline; !strings.Contains(headlineOf(text), want) {
				t.Errorf("headline %q lacks %q", headlineOf(text), want)
			}
			if !strings.Contains(text, "\nproposal: ") || !strings.Contains(text, "q26") {
				t.Errorf("the text report lists no proposal naming q26:\n%s", text)
			}
		})
	}
}

// TestSetOnlyChangePasses: a change to the set alone (a label fix, a
// query added) passes showing the proposal; a query it adds is listed,
// scored, and does not gate before it is merged, even when the change
// breaks the one document it needs.
func TestSetOnlyChangePasses(t *testing.T) {
	t.Run("label fix", func(t *testing.T) {
		f := newFixture(t, builtinConfig)
		f.edit("rag/queries.jsonl", `"gold": {"security/audit-log": 1}`, `"gold": {"security/audit-log": 2}`)
		f.commit("q26: grade 2")
		code, text, _, sc, errs := f.rulerGate(t)
		if code != 0 || sc == nil || !slices.Equal(sc.Relabelled, []string{"q26"}) || len(sc.Added)+len(sc.Removed) != 0 {
			t.Fatalf("exit %d set_changes %+v, want 0 with q26 relabelled\n%s\n%s", code, sc, text, errs)
		}
		if !strings.Contains(headlineOf(text), "set: the base commit's (30 queries); this change proposes 1 relabelled") {
			t.Errorf("headline %q", headlineOf(text))
		}
	})
	t.Run("query added", func(t *testing.T) {
		f := newFixture(t, builtinConfig)
		f.put("rag/corpus/integrations/slack.md", "# Office plants\n\nWater the ferns on Fridays.\n")
		f.edit("rag/queries.jsonl", q26Line+"\n", q26Line+"\n"+`{"id": "q31", "query": "post queue alerts to slack", "gold": {"integrations/slack": 1}, "source": "ticket"}`+"\n")
		f.commit("q31, and slack's page emptied")
		code, text, regressed, sc, errs := f.rulerGate(t)
		if code != 0 || len(regressed) != 0 || sc == nil || !slices.Equal(sc.Added, []string{"q31"}) {
			t.Fatalf("exit %d regressed %q set_changes %+v, want 0 with q31 added\n%s\n%s", code, regressed, sc, text, errs)
		}
		// A waiver the change writes for its own new query waives nothing
		// before merge, and is no error.
		f.put("rag/recallgate.toml", builtinConfig+"[[waiver]]\nquery = \"q31\"\nreason = \"slack page rewrite pending\"\nexpires = \"2027-01-10\"\n")
		f.commit("waive q31")
		if code, text, _, _, errs := f.rulerGate(t); code != 0 {
			t.Errorf("with a waiver for q31: exit %d, want 0\n%s\n%s", code, text, errs)
		}
		f.git("reset", "-q", "--hard", "HEAD~1")
		if !strings.Contains(text, "proposal: added (retrieved on both sides and listed, not gating until merged): q31") {
			t.Errorf("the text report does not list q31 as added:\n%s", text)
		}
		// Retrieved and scored on both sides: it lost its document.
		if note := "note: proposed queries, scored on both sides with this change's labels and not gating until merged (recall@5 base → head): q31 1.000 → 0.000\n"; !strings.Contains(text, note) {
			t.Errorf("the text report lacks %q:\n%s", note, text)
		}
	})
}

// TestErosionRenamedQuery: a change that loses q02 and renames it (q02 →
// q02-renamed) is measured against the reviewed baseline on the base
// commit's set, where q02 is what it was: the rename is q02 removed and
// q02-renamed added, never a query "not in the baseline" left out.
func TestErosionRenamedQuery(t *testing.T) {
	f := erosionRepo(t, erosionConfig, true)
	f.git("checkout", "-q", "-b", "pr1")
	f.lose(1)
	f.commit("pr1: q01 loses its document")
	f.git("checkout", "-q", "main")
	f.git("merge", "-q", "--ff-only", "pr1")
	main := f.git("rev-parse", "HEAD")
	f.git("checkout", "-q", "-b", "pr2")
	f.lose(2)
	f.edit("rag/queries.jsonl", `{"id":"q02"`, `{"id":"q02-renamed"`)
	f.commit("pr2: q02 loses its document and is renamed")
	code, text, rep, errs := f.erosionGate(main)
	fail := "head mean recall@5 0.833 is 0.167 below the reviewed baseline's 1.000 (rag/baselines/head.jsonl@" + main[:12] + ", 12 queries; limit 0.150, max_baseline_drop)"
	if code != 1 || !slices.Contains(rep.Reasons, fail) || rep.BaselineDistance == nil || len(rep.BaselineDistance.NotInBaseline) != 0 {
		t.Fatalf("exit %d reasons %q distance %+v, want 1 with %q\n%s\n%s", code, rep.Reasons, rep.BaselineDistance, fail, text, errs)
	}
	for _, want := range []string{"\nproposal: added (retrieved on both sides and listed, not gating until merged): q02-renamed\n", "\nproposal: removed (still gated: the base commit's set holds them; that query regresses in this change): q02\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}

// TestJudgeIdentityIsTheBases: the judge whose grades may count is the
// base commit's whole, [label] guideline and grade names included. The
// set holds grades the judge wrote under the guideline "B"; the base
// commit's config says "A" (another judge: its grades are not used), and
// a change that only sets [label] guideline back to "B" still does not
// make them count.
func TestJudgeIdentityIsTheBases(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := judgeWorld(t, "min_judge_agreement = 0.4\nmin_judge_overlap = 8", "good", "10s")
	cfg := filepath.Join(dir, "recallgate.toml")
	guideline := func(g string) {
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, _, _ := strings.Cut(strings.Replace(string(data), "guideline = \"grade by the tag\"\n", "", 1), "[label]\n")
		write(t, dir, "recallgate.toml", s+"[label]\nguideline = \""+g+"\"\n")
	}
	guideline("B")
	_, report := judgedCompare(t, dir)
	if code, out, errs := rg(t, "judge", "--config", cfg, "--from-report", report); code != 0 {
		t.Fatalf("judge: exit %d\n%s%s", code, out, errs)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	guideline("A")
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-qm", "base: the judge's guideline is A")
	sha := git("rev-parse", "HEAD")
	guideline("B")
	out := filepath.Join(dir, "gate.json")
	code, stdout, errs := rg(t, "gate", "--config", cfg, "--base-ref", sha, "--json-out", out)
	if code > 1 {
		t.Fatalf("gate: exit %d\n%s%s", code, stdout, errs)
	}
	b, _ := os.ReadFile(out)
	var r judgeReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Judge == nil || r.Judge.Used || r.Judge.Other != 16 || r.Unjudged.LabelDebt == nil || r.Unjudged.LabelDebt.Documents != 8 {
		t.Errorf("judge %+v, debt %+v: want the 16 grades under another judge, unused, and 8 documents of debt", r.Judge, r.Unjudged.LabelDebt)
	}
}

// TestDriftBaselineClaimsNoChange: a drift run leaves a query out only
// when today's set proves its text changed. A baseline that records
// today's set fingerprint but a forged text hash for q03, or leaves q03
// out of its hashes while it has q03's run line, still compares q03,
// which lost its document since: the run fails naming it.
func TestDriftBaselineClaimsNoChange(t *testing.T) {
	for name, forge := range map[string]func(hashes map[string]any){
		"forged text hash": func(h map[string]any) { h["q03"] = "0123456789abcdef" },
		"hash left out":    func(h map[string]any) { delete(h, "q03") },
	} {
		t.Run(name, func(t *testing.T) {
			f := driftRepo(t)
			path := filepath.Join(f.dir, "baselines/head.jsonl")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			first, rest, _ := strings.Cut(string(data), "\n")
			var meta map[string]map[string]any
			if err := json.Unmarshal([]byte(first), &meta); err != nil || meta["recallgate"]["queries"] == nil {
				t.Fatalf("the baseline's metadata line %q (%v)", first, err)
			}
			forge(meta["recallgate"]["queries"].(map[string]any))
			line, _ := json.Marshal(meta)
			f.put("baselines/head.jsonl", string(line)+"\n"+rest)
			f.put("corpus/d03.md", "# Topic 3\n\nrewritten without its words\n")
			f.commit("the baseline claims q03 changed; d03 loses its words")
			code, out, errs := f.drift()
			if code != 1 || !strings.Contains(out, "\nregressed (1)\n  q03 ") {
				t.Errorf("exit %d, want 1 with q03 regressed\n%s\n%s", code, out, errs)
			}
		})
	}
}

// TestSetIsTheBaseCommitsInCI: the Action on a pull request and the
// GitLab job on a merge request score both sides on the base commit's
// set: a change that breaks q26 and deletes it fails, and the comment,
// the note and the JUnit file say what the change proposes.
func TestSetIsTheBaseCommitsInCI(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.git("checkout", "-q", "-b", "pr")
	regressCorpus(f)
	f.edit("rag/queries.jsonl", q26Line+"\n", "")
	f.commit("break q26 and delete it")
	const proposes = "this change proposes 1 removed; that query regresses in it"
	const listed = "- **proposal:** removed (still gated: the base commit's set holds them; that query regresses in this change): `q26`\n"

	pr := prOnGitHubAndGitLab(t, f)
	if pr.github.code != 1 || len(pr.comments) != 1 || !strings.Contains(pr.comments[0], proposes) || !strings.Contains(pr.comments[0], listed) {
		t.Errorf("GitHub: exit %d, comments:\n%q\n%s\n%s", pr.github.code, pr.comments, pr.github.out, pr.github.errs)
	}
	if pr.gitlab.code != 1 || len(pr.notes) != 1 {
		t.Fatalf("GitLab: exit %d, %d notes\n%s\n%s", pr.gitlab.code, len(pr.notes), pr.gitlab.out, pr.gitlab.errs)
	}
	if !strings.Contains(pr.notes[0], proposes) || !strings.Contains(pr.notes[0], listed) {
		t.Errorf("GitLab note lacks the proposal:\n%s", pr.notes[0])
	}
	x, err := os.ReadFile(pr.junit)
	if err != nil || !bytes.Contains(x, []byte(`<property name="set_proposal" value="removed (still gated: the base commit&#39;s set holds them; that query regresses in this change): q26">`)) {
		t.Errorf("JUnit: %v\n%.1500s", err, x)
	}
}

// TestSetNewInTheChange: a base commit whose config names a set its tree
// lacks (the change adds it) keeps the adoption path: the change's set
// scores both sides, the note says the set is new and set_changes says
// the set given scored.
func TestSetNewInTheChange(t *testing.T) {
	f := newFixture(t, strings.Replace(builtinConfig, `set = "queries.jsonl"`, `set = "evals.jsonl"`, 1))
	f.git("checkout", "-q", "-b", "pr")
	f.git("mv", "rag/queries.jsonl", "rag/evals.jsonl")
	f.commit("the set the config names")
	code, text, _, sc, errs := f.rulerGate(t)
	if code != 0 || sc == nil || sc.Source != "given" || sc.Queries != 30 || !strings.Contains(text, "note: the eval set is new in this change; both sides are scored on it\n") {
		t.Errorf("exit %d set_changes %+v, want 0 with the given set and the note\n%s\n%s", code, sc, text, errs)
	}
}
