package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/mddoc"
)

// docPages is the project's documentation: README.md and docs/*.md.
func docPages(t *testing.T) []mddoc.Page {
	t.Helper()
	pages, err := mddoc.Pages("../..")
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// docBlocks is every fenced block with the info string lang across the
// documentation.
func docBlocks(t *testing.T, lang string) []mddoc.Block {
	t.Helper()
	blocks, err := mddoc.AllBlocks("../..", lang)
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// readmeGateLines returns every `recallgate gate` command the
// documentation (README.md and docs/*.md) shows in a code block or a code
// span, keyed by file:line, leaving out the synopsis (placeholders such
// as FILE).
func readmeGateLines(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	span := regexp.MustCompile("`([^`]*recallgate gate[^`]*)`")
	for _, page := range docPages(t) {
		inBlock := false
		for i, line := range strings.Split(page.Text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inBlock = !inBlock
				continue
			}
			var cmds []string
			for _, m := range span.FindAllStringSubmatch(line, -1) {
				cmds = append(cmds, m[1])
			}
			if inBlock && len(cmds) == 0 && strings.Contains(line, "recallgate gate") && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				cmds = append(cmds, line)
			}
			for _, c := range cmds {
				c = c[strings.Index(c, "recallgate gate"):]
				c, _, _ = strings.Cut(c, "||")
				c, _, _ = strings.Cut(c, " #") // a shell comment
				c, _, _ = strings.Cut(c, ";")
				// The synopsis, and deliberate self-checks, are not gates.
				if strings.Contains(c, "FILE") || strings.Contains(c, "…") || strings.Contains(c, "--allow-identical") {
					continue
				}
				out[fmt.Sprintf("%s:%d", page.Path, i+1)] = strings.TrimSpace(c)
			}
		}
	}
	return out
}

// shellWords splits a command line as a shell would for these examples:
// on spaces, quotes removed, the CI's variables for the target branch read
// as "main".
func shellWords(line string) []string {
	for _, v := range []string{"${{ github.base_ref }}", "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "$GITHUB_BASE_REF"} {
		line = strings.ReplaceAll(line, v, "main")
	}
	var words []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range line + " " {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote = r
		case quote == 0 && r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	return words
}

// TestREADMEGatesCanFail runs every `recallgate gate` line of the README
// in a repository whose pull request deletes gold documents from the
// corpus, with one [retriever] in recallgate.toml as most teams write it.
// Each must either catch the regression (exit 1) or refuse, naming the
// fix, a gate that cannot fail (exit 2): none may pass, but a line that
// only writes a baseline (--write-baseline without --base-ref), which
// says no comparison was made.
func TestREADMEGatesCanFail(t *testing.T) {
	lines := readmeGateLines(t)
	if len(lines) < 5 {
		t.Fatalf("found only %d gate lines in README.md and docs/*.md: %v", len(lines), lines)
	}
	f := newFixture(t, builtinConfig)
	f.git("update-ref", "refs/remotes/origin/main", f.base)
	f.git("checkout", "-q", "-b", "pr")
	for _, doc := range []string{"security/audit-log", "queues/fifo", "troubleshooting/duplicates", "errors/tp-413"} {
		if err := os.Remove(filepath.Join(f.dir, "rag/corpus", doc+".md")); err != nil {
			t.Fatal(err)
		}
	}
	f.commit("tidy the docs")
	demo, err := filepath.Abs("../../frozen-set/recallgate.toml")
	if err != nil {
		t.Fatal(err)
	}
	demoContext := filepath.Join(filepath.Dir(demo), "context.toml")
	t.Chdir(filepath.Join(f.dir, "rag"))
	if err := os.Mkdir("baselines", 0o755); err != nil { // the drift example writes there
		t.Fatal(err)
	}
	t.Setenv("RUNNER_TEMP", t.TempDir())
	for n, line := range lines {
		args := shellWords(line)[1:] // drop "recallgate"
		for i, a := range args {
			switch a {
			case "frozen-set/recallgate.toml":
				args[i] = demo
			case "frozen-set/context.toml":
				args[i] = demoContext
			case "frozen-set/sections.toml":
				args[i] = filepath.Join(filepath.Dir(demo), "sections.toml")
			}
		}
		code, out, errs := rg(t, args...)
		// A line that writes the nightly's baseline in its own checkout
		// (no --base-ref) compares nothing, and says so.
		baselineOnly := strings.Contains(line, "--write-baseline") && !strings.Contains(line, "--base-ref")
		switch {
		case code == 1:
		case code == 2 && strings.Contains(errs, "so this gate cannot fail: "):
		case baselineOnly && (code == 2 || code == 0 && strings.Contains(out, "no comparison was made")):
		default:
			t.Errorf("%s `%s` exits %d on a pull request that deletes gold documents: a gate that cannot fail\n%s", n, line, code, errs)
		}
	}
}

// TestREADMEConfigsDiffer: every whole config in the README (one that
// names its set) with a base and a head table compares two different
// retrievers.
func TestREADMEConfigsDiffer(t *testing.T) {
	checked := 0
	for _, b := range docBlocks(t, "toml") {
		if !strings.Contains(b.Text, "[base.retriever]") || !strings.HasPrefix(b.Text, "set = ") {
			continue
		}
		c, err := config.Parse([]byte(b.Text), "README.toml")
		if err != nil {
			t.Errorf("%s:%d: the config does not parse: %v\n%s", b.Path, b.Line, err, b.Text)
			continue
		}
		checked++
		if c.Base.Fingerprint() == c.Head.Fingerprint() {
			t.Errorf("%s:%d: the config compares a retriever with itself:\n%s", b.Path, b.Line, b.Text)
		}
	}
	if checked == 0 {
		t.Error("no config with [base.retriever] in README.md or docs/*.md was checked")
	}
}

// readmeWorkflows returns the documentation's yaml blocks, each keyed
// by the file and line it starts on.
func readmeWorkflows(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, b := range docBlocks(t, "yaml") {
		out[fmt.Sprintf("%s:%d", b.Path, b.Line)] = strings.TrimSuffix(b.Text, "\n")
	}
	return out
}

// workflowRunFilter is the `workflows:` list under `workflow_run:`, as
// a flow list or a block list.
func workflowRunFilter(wf string) (names []string, ok bool) {
	lines := strings.Split(wf, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "workflow_run:" {
			continue
		}
		for _, w := range lines[i+1:] {
			tw := strings.TrimSpace(w)
			if !strings.HasPrefix(tw, "workflows:") {
				if !strings.HasPrefix(w, "    ") {
					return nil, false
				}
				continue
			}
			v := strings.TrimSpace(strings.TrimPrefix(tw, "workflows:"))
			if v == "" {
				return nil, true // a block list: not used in README
			}
			for _, n := range strings.Split(strings.Trim(v, "[]"), ",") {
				names = append(names, strings.Trim(strings.TrimSpace(n), `"'`))
			}
			return names, true
		}
	}
	return nil, false
}

// TestREADMEWorkflowRunFiltersMatch: GitHub matches a workflow_run
// filter against the other workflow's `name:` (a workflow without one is
// named by its file's path, so the filter never fires), and act ignores
// the filter: every filter in the README must name a README workflow by
// its top-level name.
func TestREADMEWorkflowRunFiltersMatch(t *testing.T) {
	wfs := readmeWorkflows(t)
	named := map[string]string{}
	topName := regexp.MustCompile(`(?m)^name:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$`)
	for line, wf := range wfs {
		if m := topName.FindStringSubmatch(wf); m != nil {
			named[m[1]] = line
		}
	}
	filters := 0
	for line, wf := range wfs {
		names, ok := workflowRunFilter(wf)
		if !ok {
			continue
		}
		filters++
		if len(names) == 0 {
			t.Errorf("%s: a workflow_run trigger without a workflows: [...] filter", line)
		}
		for _, n := range names {
			if _, ok := named[n]; !ok {
				t.Errorf("%s: workflow_run filters on %q, but no documented workflow has `name: %s` (GitHub never fires it)", line, n, n)
			}
		}
	}
	if filters == 0 {
		t.Error("the documentation shows no workflow_run workflow: the fork pattern went missing")
	}
}
