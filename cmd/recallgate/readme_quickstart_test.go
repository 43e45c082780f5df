package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/mddoc"
)

// docSection is the blocks under a heading of README.md or docs/*.md.
func docSection(t *testing.T, heading string) []mddoc.Block {
	t.Helper()
	blocks, err := mddoc.Under("../..", heading, "")
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// blockOf is the first block of the given info string among blocks.
func blockOf(t *testing.T, blocks []mddoc.Block, lang string) mddoc.Block {
	t.Helper()
	for _, b := range blocks {
		if b.Lang == lang {
			return b
		}
	}
	t.Fatalf("no %q block in the section", lang)
	return mddoc.Block{}
}

// trimLines drops the spaces at the end of each line, which Markdown
// does not keep reliably.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// checkExcerpt fails unless every run of lines of the printed excerpt
// between lines that are only "…" is in out, in order.
func checkExcerpt(t *testing.T, excerpt mddoc.Block, out string) {
	t.Helper()
	out = trimLines(out)
	rest := out
	for _, chunk := range strings.Split(trimLines(excerpt.Text), "…\n") {
		if strings.TrimSpace(chunk) == "" {
			continue
		}
		i := strings.Index(rest, chunk)
		if i < 0 {
			t.Errorf("%s:%d: the printed excerpt is not what the command prints (or not in this order); missing:\n%s\nthe command printed:\n%s", excerpt.Path, excerpt.Line, chunk, out)
			return
		}
		rest = rest[i+len(chunk):]
	}
}

// TestQuickStartPrintsWhatTheREADMEShows runs the Quick start's one
// command (`go run ./cmd/recallgate gate …`) from the repository's root,
// where the clone's `cd recallgate` leaves the reader, and checks that the
// excerpt the README prints under it is what it prints, and that it exits
// 1 as the README says.
func TestQuickStartPrintsWhatTheREADMEShows(t *testing.T) {
	blocks := docSection(t, "## Quick start")
	cmds := blockOf(t, blocks, "sh")
	const goRun = "go run ./cmd/recallgate "
	var gate string
	for _, l := range strings.Split(cmds.Text, "\n") {
		if strings.HasPrefix(l, goRun+"gate ") {
			gate, _, _ = strings.Cut(strings.TrimPrefix(l, goRun), " #")
		}
	}
	if gate == "" || !strings.Contains(cmds.Text, "&& cd recallgate\n") || !strings.Contains(cmds.Text, "exits 1") {
		t.Fatalf("%s:%d: the Quick start no longer runs the demo gate with `%s` from the repository's root (exits 1):\n%s", cmds.Path, cmds.Line, goRun, cmds.Text)
	}
	t.Chdir("../..")
	code, out, errs := rg(t, shellWords(gate)...)
	if code != 1 {
		t.Errorf("%q exits %d, the README says 1\n%s", gate, code, errs)
	}
	checkExcerpt(t, blockOf(t, blocks, ""), out)
}

// TestREADMEBuildsFromAClone: the Install section gives the build from a
// clone, and it builds from the repository's root as written; it says
// what that build needs: the repository keeps no vendor folder (go mod
// vendor would add 12 modules, 452 Go files, 7.6 MB), so the first build
// downloads modules, and the section must not promise a build with no
// network but say how to build without one. "Run the tests" says how to
// see which tests skipped.
func TestREADMEBuildsFromAClone(t *testing.T) {
	page, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	install, _, _ := strings.Cut(string(page)[strings.Index(string(page), "## Install"):], "\n## Quick start")
	build := regexp.MustCompile("`(go build -o recallgate ./cmd/recallgate)`").FindStringSubmatch(install)
	if !strings.Contains(install, "`go install ./cmd/recallgate`") || build == nil {
		t.Fatalf("README.md's Install section does not give the build from a clone (`go install ./cmd/recallgate`, `go build -o recallgate ./cmd/recallgate`):\n%s", install)
	}
	if _, err := os.Stat("../../vendor/modules.txt"); err != nil {
		flat := strings.Join(strings.Fields(install), " ")
		if strings.Contains(flat, "with no network:") {
			t.Errorf("README.md's Install section promises a clone builds with no network, and no vendor folder is kept:\n%s", install)
		}
		for _, want := range []string{"first build downloads", "go mod download", "GOMODCACHE"} {
			if !strings.Contains(flat, want) {
				t.Errorf("README.md's Install section does not say what a clone's build needs (%q):\n%s", want, install)
			}
		}
	}
	words := strings.Fields(build[1])
	words[3] = filepath.Join(t.TempDir(), "recallgate") // -o recallgate: not into the checkout
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s from the repository's root: %v\n%s", build[1], err, out)
	}
	tests := blockOf(t, docSection(t, "## Run the tests"), "sh")
	if !strings.Contains(tests.Text, "go test -v ./... | grep -B1 -- '--- SKIP'") {
		t.Errorf("%s:%d: \"Run the tests\" no longer says how to see which tests skipped and why:\n%s", tests.Path, tests.Line, tests.Text)
	}
}

// TestDemoContextExcerpt: the final-context block docs/context.md shows
// for frozen-set/context.toml is what the gate prints.
func TestDemoContextExcerpt(t *testing.T) {
	excerpt := blockOf(t, docSection(t, "## On the demo"), "")
	t.Chdir("../..")
	code, out, errs := rg(t, "gate", "--config", "frozen-set/context.toml")
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, errs)
	}
	checkExcerpt(t, excerpt, out)
}

// TestOwnRetrieverSectionRuns copies the README's "Gate your own
// retriever" section as a reader would (the set, retriever.py, the config
// and the gate line, byte for byte) into a repository with a two-document
// corpus, validates it, and gates a pull request that rewrites the
// refunds page so the word "refunds" is gone: the Python retriever no
// longer returns it and the gate fails on q1 (recall@50 1 → 0), exit 1.
func TestOwnRetrieverSectionRuns(t *testing.T) {
	for _, p := range []string{"python3", "git"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed: the README's Python retriever cannot be run", p)
		}
	}
	blocks := docSection(t, "## Gate your own retriever")
	set, py, conf, sh := blockOf(t, blocks, "json"), blockOf(t, blocks, "python"), blockOf(t, blocks, "toml"), blockOf(t, blocks, "sh")
	gate := strings.TrimSpace(sh.Text)
	if !strings.HasPrefix(gate, "recallgate gate ") || strings.Contains(gate, "\n") {
		t.Fatalf("%s:%d: want one recallgate gate line, got:\n%s", sh.Path, sh.Line, sh.Text)
	}
	f := &fixture{t: t, dir: gitDir(t)}
	f.git("init", "-q", "-b", "main")
	f.put("queries.jsonl", set.Text)
	f.put("retriever.py", py.Text)
	f.put("recallgate.toml", conf.Text)
	f.put("corpus/billing/refunds.md", "# Refunds\n\nRefunds go back to the card within five days.\n")
	f.put("corpus/billing/invoices.md", "# Invoices\n\nDownload invoices from the billing page.\n")
	base := f.commit("recallgate")
	f.git("update-ref", "refs/remotes/origin/main", base)
	t.Chdir(f.dir)
	if code, out, errs := rg(t, "validate", "--config", "recallgate.toml"); code != 0 {
		t.Fatalf("validate exits %d\n%s%s", code, out, errs)
	}
	f.git("checkout", "-q", "-b", "pr")
	f.put("corpus/billing/refunds.md", "# Money back\n\nMoney goes back to the card within five days.\n")
	f.commit("reword the refunds page")
	code, out, errs := rg(t, shellWords(gate)[1:]...)
	if code != 1 || !strings.Contains(out, "q1  recall@50 1.000 → 0.000  lost: billing/refunds") {
		t.Errorf("%q on the pull request: exit %d, want 1 with q1 regressed\n%s\n%s", gate, code, out, errs)
	}
}
