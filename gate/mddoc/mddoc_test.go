package mddoc

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// root is the repository this package lives in.
const root = "../.."

// writeDocs makes a repository root with the given pages (path → text).
func writeDocs(t *testing.T, pages map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, text := range pages {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestUnderFindsTheSectionAcrossPages(t *testing.T) {
	dir := writeDocs(t, map[string]string{
		"README.md": "# tool\n\n```yaml\nreadme: 1\n```\n",
		"docs/ci.md": "# CI\n\nintro\n\n```yaml\nfirst: 1\n```\n\n## Nightly\n\n```sh\nnot yaml\n```\n\n```yaml\n# ## not a heading\nsecond: 2\n```\n\n" +
			"### Deeper\n\n```yaml\nthird: 3\n```\n\n## Other\n\n```yaml\nfourth: 4\n```\n",
	})
	for _, c := range []struct {
		heading string
		want    []string
		lines   []int
	}{
		{"## Nightly", []string{"# ## not a heading\nsecond: 2\n", "third: 3\n"}, []int{16, 23}},
		{"# CI", []string{"first: 1\n", "# ## not a heading\nsecond: 2\n", "third: 3\n", "fourth: 4\n"}, []int{6, 16, 23, 29}},
		{"## Other", []string{"fourth: 4\n"}, []int{29}},
	} {
		blocks, err := Under(dir, c.heading, "yaml")
		if err != nil {
			t.Fatalf("%s: %v", c.heading, err)
		}
		var got []string
		var lines []int
		for _, b := range blocks {
			got, lines = append(got, b.Text), append(lines, b.Line)
			if b.Path != "docs/ci.md" {
				t.Errorf("%s: block from %s", c.heading, b.Path)
			}
		}
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(lines, c.lines) {
			t.Errorf("%s: got %q at lines %v, want %q at %v", c.heading, got, lines, c.want, c.lines)
		}
	}
	if _, err := Under(dir, "## Missing", "yaml"); err == nil || !strings.Contains(err.Error(), `"## Missing"`) {
		t.Errorf("a missing heading: %v", err)
	}
}

func TestUnderRefusesAHeadingOnTwoPages(t *testing.T) {
	dir := writeDocs(t, map[string]string{
		"README.md":   "## Install\n\n```sh\na\n```\n",
		"docs/new.md": "## Install\n\n```sh\nb\n```\n",
	})
	_, err := Under(dir, "## Install", "sh")
	if err == nil || !strings.Contains(err.Error(), "README.md, docs/new.md") {
		t.Errorf("got %v, want the two pages named", err)
	}
}

func TestAnchorsAsGitHubMakesThem(t *testing.T) {
	p := Page{Text: "# Configuration (`recallgate.toml`)\n## `builtin`: BM25 over a corpus\n## Reliability: faults tried and what happens\n" +
		"## Notes\n## Notes\n```sh\n# not a heading\n```\n## max_recall_drop — the rule\n"}
	want := map[string]bool{
		"configuration-recallgatetoml": true, "builtin-bm25-over-a-corpus": true,
		"reliability-faults-tried-and-what-happens": true, "notes": true, "notes-1": true,
		"max_recall_drop--the-rule": true,
	}
	if got := p.Anchors(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestLinksLeaveCodeOut(t *testing.T) {
	p := Page{Path: "docs/a.md", Text: "see [b](b.md#x) and `[no](c.md)`\n```\n[no](d.md)\n```\n![pic](pic.png) [web](https://example.com)\n"}
	want := []Link{{"docs/a.md", 1, "b.md#x"}, {"docs/a.md", 5, "pic.png"}, {"docs/a.md", 5, "https://example.com"}}
	if got := p.Links(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestREADMEIsALandingPage: the README stays a landing page (300 lines at
// most, an Install section) and links every docs page, so nothing moved
// to docs/ is out of reach.
func TestREADMEIsALandingPage(t *testing.T) {
	pages, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	readme := pages[0]
	if n := strings.Count(readme.Text, "\n"); n > 300 {
		t.Errorf("README.md has %d lines: a landing page has at most 300; move the rest to a docs/ page", n)
	}
	if !readme.Anchors()["install"] || !strings.Contains(readme.Text, "\n## Install\n") {
		t.Error("README.md has no \"## Install\" section")
	}
	linked := map[string]bool{}
	for _, l := range readme.Links() {
		target, _, _ := strings.Cut(l.Target, "#")
		linked[path.Clean(target)] = true
	}
	if len(pages) < 7 {
		t.Errorf("only %d docs pages", len(pages)-1)
	}
	for _, p := range pages[1:] {
		if !linked[p.Path] {
			t.Errorf("README.md does not link %s", p.Path)
		}
	}
}

// TestRelativeLinksResolve: every relative link and image in README.md
// and docs/*.md names a file that exists, and an anchor that the target
// page's headings make.
func TestRelativeLinksResolve(t *testing.T) {
	pages, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]Page{}
	for _, p := range pages {
		byPath[p.Path] = p
	}
	checked := 0
	for _, p := range pages {
		for _, l := range p.Links() {
			if strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(l.Target, "#")
			target := p.Path
			if file != "" {
				target = path.Join(path.Dir(p.Path), file)
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					t.Errorf("%s:%d: link to %s: %v", l.Path, l.Line, l.Target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			tp, ok := byPath[target]
			if !ok {
				t.Errorf("%s:%d: an anchor (%s) into %s, which is not a documentation page", l.Path, l.Line, l.Target, target)
				continue
			}
			if !tp.Anchors()[anchor] {
				t.Errorf("%s:%d: %s has no heading with the anchor #%s", l.Path, l.Line, target, anchor)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: is the link parser still reading them?", checked)
	}
}
