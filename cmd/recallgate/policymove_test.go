package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/report"
)

// looseGate is a [gate] that lets q26's new miss through.
const looseGate = "[gate]\nmax_recall_drop = 1.0\nmax_new_misses = 30\n"

// movedHeadline is what the headline says when the change moved or linked
// the config judged by the base commit's rag/recallgate.toml.
const movedHeadline = "this PR moves/links the gate's config: judged by the base commit's "

// policyDodges are changes that regress q26 and try to have the gate
// judged by a looser config than the base commit's rag/recallgate.toml
// (max_recall_drop 0.02, max_new_misses 0): each returns the config path
// the job names, from the top of the checkout.
var policyDodges = []struct {
	name  string
	dodge func(f *fixture) string
}{
	{"config replaced by a link to a new file", func(f *fixture) string {
		f.git("rm", "-q", "rag/recallgate.toml")
		f.put("rag/loose.toml", builtinConfig+looseGate)
		f.link("loose.toml", "rag/recallgate.toml")
		return "rag/recallgate.toml"
	}},
	{"config replaced by a link to a looser file the base has", func(f *fixture) string {
		f.git("rm", "-q", "rag/recallgate.toml")
		f.link("recallgate-nightly.toml", "rag/recallgate.toml")
		return "rag/recallgate.toml"
	}},
	{"config moved and loosened, the job naming its new path", func(f *fixture) string {
		if err := os.MkdirAll(filepath.Join(f.dir, "rag/ci"), 0o755); err != nil {
			f.t.Fatal(err)
		}
		f.git("mv", "rag/recallgate.toml", "rag/ci/gate.toml")
		f.put("rag/ci/gate.toml", strings.NewReplacer(`"queries.jsonl"`, `"../queries.jsonl"`, `"corpus"`, `"../corpus"`).Replace(builtinConfig)+looseGate)
		return "rag/ci/gate.toml"
	}},
	{"a new loose config the change's workflow names instead", func(f *fixture) string {
		f.put("rag/loose.toml", builtinConfig+looseGate)
		f.edit(".github/workflows/retrieval.yml", "config: recallgate.toml", "config: loose.toml")
		f.edit(".gitlab-ci.yml", "RECALLGATE_CONFIG: rag/recallgate.toml", "RECALLGATE_CONFIG: rag/loose.toml")
		return "rag/loose.toml"
	}},
}

// link makes name a symbolic link to target in the fixture.
func (f *fixture) link(target, name string) {
	f.t.Helper()
	if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
		f.t.Fatal(err)
	}
}

// dodgeFixture is the base commit with a strict rag/recallgate.toml, a
// looser rag/recallgate-nightly.toml and workflows naming the former, and
// the change: q26 regressed and the dodge.
func dodgeFixture(t *testing.T, dodge func(f *fixture) string) (*fixture, string) {
	f := newFixture(t, builtinConfig)
	f.put("rag/recallgate-nightly.toml", builtinConfig+looseGate)
	f.put(".github/workflows/retrieval.yml", "on: pull_request\njobs:\n  gate:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: recallgate/recallgate@v1\n        with:\n          working-directory: rag\n          config: recallgate.toml\n")
	f.put(".gitlab-ci.yml", "retrieval-gate:\n  script: recallgate ci\n  variables:\n    RECALLGATE_CONFIG: rag/recallgate.toml\n")
	f.base = f.commit("strict gate, loose nightly")
	regressCorpus(f)
	named := dodge(f)
	f.commit("regress and dodge the gate")
	return f, named
}

// TestPolicyDodgesGate: through `recallgate gate --config`, every dodge is
// judged by the base commit's rag/recallgate.toml (exit 1, q26 regressed,
// its thresholds), and the headline says the change moves or links the
// config.
func TestPolicyDodgesGate(t *testing.T) {
	for _, d := range policyDodges {
		f, named := dodgeFixture(t, d.dodge)
		jsonOut := filepath.Join(t.TempDir(), "report.json")
		tmp := t.TempDir()
		var out, errb strings.Builder
		e := &env{getenv: func(k string) string { return map[string]string{"RUNNER_TEMP": tmp}[k] }, stdout: &out, stderr: &errb, now: func() time.Time { return policyToday }}
		runner, rest, err := gateCommand.Parse([]string{"--config", filepath.Join(f.dir, named), "--base-ref", f.base, "--json-out", jsonOut})
		if err == nil {
			err = runner(context.Background(), e, rest)
		}
		var rep policyReport
		var moved struct {
			Policy struct {
				MovedFrom string `json:"moved_from"`
			} `json:"policy"`
		}
		data, _ := os.ReadFile(jsonOut)
		json.Unmarshal(data, &rep)
		json.Unmarshal(data, &moved)
		if code := exitCode(err); code != 1 || !contains(rep.Regressed, "q26") || rep.Thresholds.MaxRecallDrop != 0.02 {
			t.Errorf("%s: exit %d (%v) max_recall_drop %v, want 1 with q26 regressed under the base's 0.02\n%s\n%s", d.name, code, err, rep.Thresholds.MaxRecallDrop, out.String(), errb.String())
			continue
		}
		if h := headlineOf(out.String()); !strings.Contains(h, " · "+movedHeadline+"rag/recallgate.toml") || strings.Contains(h, "has no recallgate.toml") {
			t.Errorf("%s: headline %q", d.name, h)
		}
		if rep.Policy == nil || rep.Policy.Source != "base-commit" || moved.Policy.MovedFrom != "rag/recallgate.toml" {
			t.Errorf("%s: policy %+v moved_from %q", d.name, rep.Policy, moved.Policy.MovedFrom)
		}
	}
}

// TestPolicyDodgesAction: the same dodges in the GitHub Action (the
// config input naming the path) fail, and the sticky comment says which
// base file judged: with the base tree from git, and from the commit's
// archive (the Docker image has no git).
func TestPolicyDodgesAction(t *testing.T) {
	for _, d := range policyDodges {
		f, named := dodgeFixture(t, d.dodge)
		for _, way := range []string{"git", "archive"} {
			g := &fakeGitHub{}
			if way == "archive" {
				g.tarball = archiveFixture(t, f)
			}
			srv := g.server(t)
			ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"working-directory": f.dir, "config": named})
			ae.vars["GITHUB_WORKSPACE"] = f.dir
			code, out, errs := ae.run(t)
			if code != 1 || !strings.Contains(ae.outputs(t)["regressed"], "q26") || (way == "archive") != (len(g.tarballRefs) == 1) {
				t.Errorf("%s (%s): exit %d, archives %v, want 1 with q26 regressed\n%s\n%s", d.name, way, code, g.tarballRefs, out, errs)
				continue
			}
			if want := movedHeadline + report.EscapeMarkdown("rag/recallgate.toml"); len(g.comments) != 1 || !strings.Contains(g.comments[0], want) || !strings.Contains(g.comments[0], "❌") {
				t.Errorf("%s (%s): the comment lacks %q:\n%.1500s", d.name, way, want, strings.Join(g.comments, "\n---\n"))
			}
		}
	}
}

// TestPolicyDodgesGitLab: the same dodges in `recallgate ci` on GitLab
// (RECALLGATE_CONFIG naming the path) fail, and the merge request note
// says which base file judged, in GitLab's words.
func TestPolicyDodgesGitLab(t *testing.T) {
	for _, d := range policyDodges {
		f, named := dodgeFixture(t, d.dodge)
		g := &fakeGitLab{}
		srv := g.server(t)
		vars := glJob(srv.URL, f.dir, f.base)
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = named, f.dir, ""
		code, out, errs := runCI(t, vars)
		if code != 1 || len(g.notes) != 1 {
			t.Errorf("%s: exit %d, %d notes, want 1 and a note\n%s\n%s", d.name, code, len(g.notes), out, errs)
			continue
		}
		note := g.notes[0]["body"].(string)
		want := "this merge request moves/links the gate's config: judged by the base commit's " + report.ForGitLab(report.EscapeMarkdown("rag/recallgate.toml"))
		if !strings.Contains(note, want) || !strings.Contains(note, "❌ recallgate") || strings.Contains(note, "this change's config") {
			t.Errorf("%s: the note lacks %q:\n%.1500s", d.name, want, note)
		}
	}
}

// TestPolicyLinkedBaseConfig: a repository whose rag/recallgate.toml is a
// link to conf/strict.toml is gated: both sides resolve the config's
// relative paths from rag/ (the config's folder as named, not the link
// target's), so the base side finds its set and corpus and q26's
// regression fails the gate under the base's policy, with no "moves/links"
// in the headline (the link is the base's own).
func TestPolicyLinkedBaseConfig(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.git("rm", "-q", "rag/recallgate.toml")
	f.put("rag/conf/strict.toml", builtinConfig)
	f.link("conf/strict.toml", "rag/recallgate.toml")
	f.base = f.commit("the config behind a link")
	regressCorpus(f)
	f.commit("regress")
	code, text, rep, errs := f.policyGate(t, "--base-ref", f.base)
	if code != 1 || !contains(rep.Regressed, "q26") || rep.Policy == nil || rep.Policy.Source != "base-commit" {
		t.Fatalf("exit %d policy %+v, want 1 with q26 regressed under the base commit's policy\n%s\n%s", code, rep.Policy, text, errs)
	}
	if h := headlineOf(text); strings.Contains(h, "moves/links") {
		t.Errorf("headline %q", h)
	}
}

// TestPolicyBaseConfigRefusals: a base commit whose config is a link out
// of its own tree is refused, never followed; a change that removes two
// base configs and names a new one is refused, since which one is the
// gate's policy cannot be told: exit 2, naming the files.
func TestPolicyBaseConfigRefusals(t *testing.T) {
	outside := write(t, t.TempDir(), "loose.toml", builtinConfig+looseGate)
	f := newFixture(t, builtinConfig)
	f.git("rm", "-q", "rag/recallgate.toml")
	f.link(outside, "rag/recallgate.toml")
	f.base = f.commit("a config linked out of the repository")
	code, text, _, errs := f.policyGate(t, "--base-ref", f.base)
	if want := "rag/recallgate.toml@" + f.base[:12] + ": the base commit's config is a link out of its own tree: refused"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("a base config linked outside: exit %d, want 2 and %q\n%s\n%s", code, want, text, errs)
	}

	f = newFixture(t, builtinConfig)
	f.put("rag/nightly.toml", builtinConfig)
	f.base = f.commit("two configs")
	f.git("rm", "-q", "rag/recallgate.toml", "rag/nightly.toml")
	f.put("rag/new.toml", builtinConfig+looseGate)
	f.commit("replace both")
	jsonOut := filepath.Join(t.TempDir(), "r.json")
	code, out, errs2 := rg(t, "gate", "--config", filepath.Join(f.dir, "rag/new.toml"), "--base-ref", f.base, "--json-out", jsonOut)
	if want := "has no config at rag/new.toml but has recallgate configs at rag/nightly.toml, rag/recallgate.toml"; code != 2 || !strings.Contains(errs2, want) {
		t.Errorf("two removed base configs: exit %d, want 2 and %q\n%s\n%s", code, want, out, errs2)
	}
}
