package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/committree"
)

// adoptsNote is what a run that takes the change for the one adopting
// recallgate says.
const adoptsNote = "this change adopts recallgate"

// judgedByBase checks a run of the fixture's regressed change: exit 1,
// q26 regressed, and no "adopts recallgate" anywhere.
func judgedByBase(t *testing.T, what string, code int, regressed, out, errs string) {
	t.Helper()
	if code != 1 || !strings.Contains(regressed, "q26") || strings.Contains(out+errs, adoptsNote) {
		t.Errorf("%s: exit %d, regressed %q, want 1 with q26 regressed, judged by the base commit's config\n%.3000s\n%.3000s", what, code, regressed, out, errs)
	}
}

// gitTree is the base commit's own listing, read with git before
// archiveFixture removes the history.
func gitTree(t *testing.T, f *fixture) *committree.Tree {
	t.Helper()
	ft, err := committree.FromGit(f.dir, f.base)
	if err != nil {
		t.Fatal(err)
	}
	return ft
}

// exportIgnoreFixture is a base commit whose .gitattributes marks the
// gate's folder export-ignore (a common packaging line), and the change
// that regresses q26.
func exportIgnoreFixture(t *testing.T) *fixture {
	f := newFixture(t, builtinConfig)
	f.put(".gitattributes", "/rag export-ignore\n")
	f.base = f.commit("package without rag/")
	regressCorpus(f)
	f.commit("regress")
	return f
}

// TestAdoptDodgeExportIgnore: the base's archive leaves out rag/ (export-
// ignore), so the tree made from it has no config; the commit's own
// listing (GitHub's git/trees, GitLab's repository tree) has it, and the
// files it lacks are fetched by their ids: the base's config judges (exit
// 1), on the archive of both CIs and from git. When the blobs cannot be
// fetched, or GitHub truncates the listing, the job stops (exit 3) saying
// what is missing and why: never "adopts".
func TestAdoptDodgeExportIgnore(t *testing.T) {
	t.Run("action from git", func(t *testing.T) {
		f := exportIgnoreFixture(t)
		g := &fakeGitHub{}
		srv := g.server(t)
		ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"working-directory": filepath.Join(f.dir, "rag"), "comment": "never"})
		ae.vars["GITHUB_WORKSPACE"] = f.dir
		code, out, errs := ae.run(t)
		judgedByBase(t, "from git", code, ae.outputs(t)["regressed"], out, errs)
	})
	for _, tc := range []struct {
		name  string
		tree  func(ft *committree.Tree)
		want  int
		words []string
	}{
		{"action from the archive", func(*committree.Tree) {}, 1, []string{"lacked", "export-ignore", "fetched by its id"}},
		{"action, blobs not served", func(ft *committree.Tree) { ft.Blobs = map[string][]byte{} }, 3, []string{"lacks", "rag/corpus/", "could not be fetched", "export-ignore"}},
		{"action, listing truncated", func(ft *committree.Tree) { ft.Truncated = true }, 3, []string{"truncated"}},
		// The blob API (or a proxy) answers the config's id with a looser
		// config: its bytes hash to another id, so it is not the commit's.
		{"action, a blob that is not its id", forgeBaseConfig, 3, []string{"rag/recallgate.toml", "hash to", "not the blob the commit lists"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := exportIgnoreFixture(t)
			ft := gitTree(t, f)
			tc.tree(ft)
			g := &fakeGitHub{tree: ft, tarball: archiveFixture(t, f)}
			srv := g.server(t)
			ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"working-directory": filepath.Join(f.dir, "rag"), "comment": "never"})
			ae.vars["GITHUB_WORKSPACE"] = f.dir
			code, out, errs := ae.run(t)
			if tc.want == 1 {
				judgedByBase(t, tc.name, code, ae.outputs(t)["regressed"], out, errs)
			} else if code != tc.want || strings.Contains(out+errs, adoptsNote) {
				t.Errorf("exit %d, want %d\n%.3000s\n%.3000s", code, tc.want, out, errs)
			}
			for _, w := range tc.words {
				if !strings.Contains(out+errs, w) {
					t.Errorf("the log lacks %q\n%.3000s\n%.3000s", w, out, errs)
				}
			}
		})
	}
	t.Run("gitlab, a blob that is not its id", func(t *testing.T) {
		f := exportIgnoreFixture(t)
		ft := gitTree(t, f)
		forgeBaseConfig(ft)
		g := &fakeGitLab{tree: ft, archive: archiveFixture(t, f)}
		srv := g.server(t)
		vars := glJob(srv.URL, f.dir, f.base)
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = "rag/recallgate.toml", f.dir, ""
		code, out, errs := runCI(t, vars)
		if code != 3 || !strings.Contains(out+errs, "not the blob the commit lists") || strings.Contains(out+errs, adoptsNote) {
			t.Errorf("exit %d, want 3: the forged blob refused\n%.3000s\n%.3000s", code, out, errs)
		}
	})
	t.Run("gitlab from the archive", func(t *testing.T) {
		f := exportIgnoreFixture(t)
		ft := gitTree(t, f)
		g := &fakeGitLab{tree: ft, archive: archiveFixture(t, f)}
		srv := g.server(t)
		vars := glJob(srv.URL, f.dir, f.base)
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = "rag/recallgate.toml", f.dir, ""
		code, out, errs := runCI(t, vars)
		if code != 1 || len(g.archived) != 1 || strings.Contains(out+errs, adoptsNote) || !strings.Contains(out+errs, "export-ignore") {
			t.Errorf("exit %d, archives %v, want 1 from the archive completed by the listing\n%.3000s\n%.3000s", code, g.archived, out, errs)
		}
	})
}

// forgeBaseConfig makes the listing's blob API answer the base config's
// id with a config that gates nothing.
func forgeBaseConfig(ft *committree.Tree) {
	for _, e := range ft.Entries {
		if e.Path == "rag/recallgate.toml" {
			ft.Blobs[e.SHA] = append(append([]byte(nil), ft.Blobs[e.SHA]...), looseGate...)
		}
	}
}

// sparseFixture is a base commit with the gate under search/, and the
// change that moves search/ to rag/, loosens the config and regresses
// q26, checked out sparse (cone rag/).
func sparseFixture(t *testing.T) *fixture {
	f := newFixture(t, builtinConfig)
	f.git("mv", "rag", "search")
	f.base = f.commit("the gate under search/")
	f.git("mv", "search", "rag")
	f.put("rag/recallgate.toml", builtinConfig+looseGate)
	regressCorpus(f)
	f.commit("move to rag/, loosen, regress")
	f.git("sparse-checkout", "set", "--cone", "rag")
	return f
}

// TestAdoptDodgeSparseCheckout: a sparse checkout (cone rag/) carries its
// patterns into the base worktree, which then lacks search/; the tree is
// completed from `git ls-tree` of the base commit, so the change is seen
// to move search/recallgate.toml and is judged by it (exit 1), from git
// and from the archive.
func TestAdoptDodgeSparseCheckout(t *testing.T) {
	f := sparseFixture(t)
	code, text, rep, errs := f.policyGate(t, "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--base-ref", f.base)
	judgedByBase(t, "gate from git", code, strings.Join(rep.Regressed, ","), text, errs)
	if h := headlineOf(text); !strings.Contains(h, movedHeadline+"search/recallgate.toml") {
		t.Errorf("headline %q", h)
	}

	f = sparseFixture(t)
	g := &fakeGitHub{tarball: archiveFixture(t, f)}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"working-directory": filepath.Join(f.dir, "rag"), "comment": "never"})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	judgedByBase(t, "action from the archive", code, ae.outputs(t)["regressed"], out, errs)
}

// nestedConfig is a loose config in vendor/search that reads the
// outer repository's set and corpus.
var nestedConfig = strings.NewReplacer(`"queries.jsonl"`, `"../../rag/queries.jsonl"`, `"corpus"`, `"../../rag/corpus"`).Replace(builtinConfig) + looseGate

// gitInit makes dir a repository with one commit of what it holds.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "nested"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

// TestAdoptDodgeNestedRepository: the job names a config inside another
// repository than the workspace's (a clone in vendor/, a submodule),
// whose refs have no config: refused, exit 2, saying so, through `gate`
// run in the checkout, the Action (git and archive) and GitLab.
func TestAdoptDodgeNestedRepository(t *testing.T) {
	nested := func(t *testing.T) *fixture {
		f := newFixture(t, builtinConfig)
		regressCorpus(f)
		f.commit("regress")
		dir := filepath.Join(f.dir, "vendor/search")
		write(t, dir, "README.md", "a vendored clone\n")
		gitInit(t, dir) // its main has no config
		write(t, dir, "recallgate.toml", nestedConfig)
		return f
	}
	const want = "inside vendor/search, another repository"
	t.Run("gate in the checkout", func(t *testing.T) {
		f := nested(t)
		t.Chdir(f.dir)
		code, out, errs := rg(t, "gate", "--config", "vendor/search/recallgate.toml", "--base-ref", "main")
		if code != 2 || !strings.Contains(errs, want) || strings.Contains(out+errs, adoptsNote) {
			t.Errorf("exit %d, want 2 and %q\n%s\n%s", code, want, out, errs)
		}
	})
	for _, way := range []string{"git", "archive"} {
		t.Run("action from "+way, func(t *testing.T) {
			f := nested(t)
			g := &fakeGitHub{}
			if way == "archive" {
				data, err := exec.Command("git", "-C", f.dir, "archive", "--format=tar.gz", "--prefix=acme-rag/", f.base).Output()
				if err != nil {
					t.Fatal(err)
				}
				g.tarball = data
			}
			srv := g.server(t)
			ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"config": "vendor/search/recallgate.toml", "working-directory": f.dir, "comment": "never"})
			ae.vars["GITHUB_WORKSPACE"] = f.dir
			code, out, errs := ae.run(t)
			if code != 2 || !strings.Contains(out+errs, want) || strings.Contains(out+errs, adoptsNote) {
				t.Errorf("exit %d, want 2 and %q\n%.3000s\n%.3000s", code, want, out, errs)
			}
		})
	}
	t.Run("gitlab, a submodule", func(t *testing.T) {
		f := newFixture(t, builtinConfig)
		src := t.TempDir()
		write(t, src, "README.md", "another repository\n")
		gitInit(t, src)
		f.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "vendor/search")
		f.base = f.commit("a submodule")
		regressCorpus(f)
		write(t, filepath.Join(f.dir, "vendor/search"), "recallgate.toml", nestedConfig)
		f.commit("regress")
		g := &fakeGitLab{}
		srv := g.server(t)
		vars := glJob(srv.URL, f.dir, f.base)
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = "vendor/search/recallgate.toml", f.dir, ""
		code, out, errs := runCI(t, vars)
		if code != 2 || !strings.Contains(out+errs, want) || strings.Contains(out+errs, adoptsNote) {
			t.Errorf("exit %d, want 2 and %q\n%.3000s\n%.3000s", code, want, out, errs)
		}
	})
}

// TestSecondGateRefused: a change that adds faq/recallgate.toml and a job
// naming it, moving, removing and linking nothing (the base's
// rag/recallgate.toml and its job are still there), is neither judged by
// the other gate's config nor taken as "moves/links": exit 2, naming the
// base's configs and what to do. The same through the Action.
func TestSecondGateRefused(t *testing.T) {
	f, _ := dodgeFixture(t, func(f *fixture) string { return "" })
	f.put("faq/recallgate.toml", strings.NewReplacer(`"queries.jsonl"`, `"../rag/queries.jsonl"`, `"corpus"`, `"../rag/corpus"`).Replace(builtinConfig)+looseGate)
	data, _ := os.ReadFile(filepath.Join(f.dir, ".github/workflows/retrieval.yml"))
	f.put(".github/workflows/retrieval.yml", string(data)+"  faq:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: recallgate/recallgate@v1\n        with:\n          config: faq/recallgate.toml\n")
	f.commit("a second gate")
	want := []string{"has no config at faq/recallgate.toml, and this change moves, removes or links none of its recallgate configs (rag/recallgate.toml)", "land its config first"}
	code, text, _, errs := f.policyGate(t, "--config", filepath.Join(f.dir, "faq/recallgate.toml"), "--base-ref", f.base)
	if code != 2 || strings.Contains(text, "moves/links") {
		t.Errorf("gate: exit %d, want 2\n%s\n%s", code, headlineOf(text), errs)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("gate: stderr lacks %q\n%s", w, errs)
		}
	}
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{"config": "faq/recallgate.toml", "working-directory": f.dir})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	if code != 2 || !strings.Contains(out+errs, want[0]) || strings.Contains(strings.Join(g.comments, ""), "moves/links") {
		t.Errorf("action: exit %d, want 2 and %q\n%.3000s\n%.3000s", code, want[0], out, errs)
	}
}

// TestBaseSideErrorsNameTheRepositoryPath: errors of the base side (its
// corpus missing at the base commit, its command's script missing) name
// the file as the repository does, with the base commit, never the
// job's temporary tree (recallgate-base-…/tree/…).
func TestBaseSideErrorsNameTheRepositoryPath(t *testing.T) {
	for _, tc := range []struct{ name, base, want string }{
		{"corpus missing at the base commit", strings.Replace(builtinConfig, `corpus = "corpus"`, `corpus = "old-corpus"`, 1), "rag/old-corpus (base commit "},
		{"a file retriever's run missing at the base commit", "set = \"queries.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"runs/base.jsonl\"\n", "rag/runs/base.jsonl (base commit "},
	} {
		f := newFixture(t, tc.base)
		f.put("rag/recallgate.toml", builtinConfig)
		f.commit("head")
		rep := filepath.Join(t.TempDir(), "report.json")
		code, _, errs := f.gate(t.TempDir(), "--json-out", rep)
		d := readErrorDoc(t, rep)
		want := tc.want + f.base[:12] + ")"
		if code < 2 || !strings.Contains(d.Message, want) || strings.Contains(d.Message+errs, "recallgate-base-") {
			t.Errorf("%s: exit %d, message %q, want %q and no temporary folder\n%s", tc.name, code, d.Message, want, errs)
		}
		// The base side alone (`retrieve --side base`, a matrix job's shard).
		code, _, errs = rg(t, "retrieve", "--config", filepath.Join(f.dir, "rag/recallgate.toml"), "--side", "base", "--base-ref", f.base, "--out", filepath.Join(t.TempDir(), "base.jsonl"))
		if code < 2 || !strings.Contains(errs, want) || strings.Contains(errs, "recallgate-base-") {
			t.Errorf("%s, retrieve --side base: exit %d, want %q and no temporary folder\n%s", tc.name, code, want, errs)
		}
	}
}

// lfsPointer is what a checkout without LFS holds for a tracked file.
const lfsPointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"

// TestConfigLFSPointer: a config that is a Git LFS pointer (the head's, or
// the base commit's) gets the LFS message the set and corpus get (exit 3,
// "check out … lfs: true"), not a TOML syntax error.
func TestConfigLFSPointer(t *testing.T) {
	dir := t.TempDir()
	cfg := write(t, dir, "recallgate.toml", lfsPointer)
	code, _, errs := rg(t, "validate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "is a Git LFS pointer, not the file") || strings.Contains(errs, "line 1") {
		t.Errorf("head config: exit %d\n%s", code, errs)
	}
	f := newFixture(t, lfsPointer)
	f.put("rag/recallgate.toml", builtinConfig)
	f.commit("head")
	code, _, errs = f.gate(t.TempDir())
	if want := "rag/recallgate.toml (base commit " + f.base[:12] + ") is a Git LFS pointer, not the file"; code != 3 || !strings.Contains(errs, want) || strings.Contains(errs, "recallgate-base-") {
		t.Errorf("base config: exit %d, want 3 and %q\n%s", code, want, errs)
	}
	// The base's pointer is still its config when the change removes it
	// and names a new one: never "adopts".
	f = newFixture(t, lfsPointer)
	f.git("rm", "-q", "rag/recallgate.toml")
	f.put("rag/gate.toml", builtinConfig+looseGate)
	f.commit("replace the config")
	code, text, _, errs := f.policyGate(t, "--config", filepath.Join(f.dir, "rag/gate.toml"), "--base-ref", f.base)
	if code != 3 || !strings.Contains(errs, "is a Git LFS pointer, not the file") || strings.Contains(text+errs, adoptsNote) {
		t.Errorf("a removed base config that is a pointer: exit %d, want 3\n%s\n%s", code, headlineOf(text), errs)
	}
}
