package section

import (
	"reflect"
	"strings"
	"testing"
)

// at is the offset of the n-th (1-based) occurrence of marker in text;
// the tests name each span by the heading line it starts at.
func at(t *testing.T, text, marker string, n int) int {
	t.Helper()
	off := 0
	for i := 1; ; i++ {
		k := strings.Index(text[off:], marker)
		if k < 0 {
			t.Fatalf("marker %q #%d not in the text", marker, n)
		}
		if i == n {
			return off + k
		}
		off += k + len(marker)
	}
}

const guideMD = "Intro text.\n\n# Guide\n\nSome words.\n\n## Backup\n\nBack up nightly.\n\n### Retention\n\nKeep 30 days.\n\n" +
	"## Backup\n\nSecond backup.\n\nRestore\n-------\n\nRun restore.\n\n```sh\n# not a heading\n## nor this\n```\n\n" +
	"    # indented code\n#hashtag\n####### seven\n- item\n---\n\n~~~\n## in a tilde fence\n~~~~\n\n" +
	"Setext Top\nover two lines\n==========\n\n## Explicit {#keep}\n\n## `max_recall_drop` — *the* rule ##\n\n# C#\n"

// TestMarkdownSections: ATX and Setext headings, nested levels, a repeated
// heading, an explicit id, code (fenced and indented) and things that only
// look like headings; each span runs to the next heading of the same or a
// higher level.
func TestMarkdownSections(t *testing.T) {
	d := guideMD
	end := len(d)
	want := []Section{
		{"guide", "Guide", 1, at(t, d, "# Guide", 1), at(t, d, "Setext Top", 1)},
		{"backup", "Backup", 2, at(t, d, "## Backup", 1), at(t, d, "## Backup", 2)},
		{"retention", "Retention", 3, at(t, d, "### Retention", 1), at(t, d, "## Backup", 2)},
		{"backup-1", "Backup", 2, at(t, d, "## Backup", 2), at(t, d, "Restore\n---", 1)},
		{"restore", "Restore", 2, at(t, d, "Restore\n---", 1), at(t, d, "Setext Top", 1)},
		{"setext-top-over-two-lines", "Setext Top over two lines", 1, at(t, d, "Setext Top", 1), at(t, d, "# C#", 1)},
		{"keep", "Explicit", 2, at(t, d, "## Explicit", 1), at(t, d, "## `max", 1)},
		{"max_recall_drop--the-rule", "max_recall_drop — the rule", 2, at(t, d, "## `max", 1), at(t, d, "# C#", 1)},
		{"c", "C#", 1, at(t, d, "# C#", 1), end},
	}
	if got := Parse(Markdown, d); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
}

// TestMarkdownFrontMatterAndInline: a leading YAML front matter is not a
// Setext heading; links, images, escapes, entities and emphasis render as
// a reader sees them before the slug.
func TestMarkdownFrontMatterAndInline(t *testing.T) {
	d := "---\ntitle: x\n---\n# See [the docs](http://x/y) and ![logo](a.png)\n## \\_private\\_ and __init__ &amp; snake_case\n## <span>Tagged</span> <https://e.org>\n"
	got := Parse(Markdown, d)
	want := []string{"see-the-docs-and-logo", "_private_-and-init--snake_case", "tagged-httpseorg"}
	var anchors []string
	for _, s := range got {
		anchors = append(anchors, s.Anchor)
	}
	if !reflect.DeepEqual(anchors, want) {
		t.Errorf("got %q, want %q", anchors, want)
	}
	if got[0].Start != at(t, d, "# See", 1) {
		t.Errorf("the first heading starts at %d, want %d (after the front matter)", got[0].Start, at(t, d, "# See", 1))
	}
}

// TestHTMLSections: h1–h6 in any case, an id attribute as the anchor,
// text with tags stripped and entities decoded, comments and scripts
// skipped, repeats counted.
func TestHTMLSections(t *testing.T) {
	d := "<html><body>\n<h1>Guide</h1>\n<p>intro</p>\n<h2 id=\"bk\" class=x>Backup &amp; Restore</h2>\n<p>x</p>\n" +
		"<H3 class='a>b'>Retention <code>days</code></H3>\n<!-- <h2>commented</h2> -->\n<script>var s = \"<h2>no</h2>\";</script>\n" +
		"<h2>Backup &amp; Restore</h2>\n<h2>Backup &amp; Restore</h2>\n<h10>not one</h10>\n</body></html>\n"
	end := len(d)
	want := []Section{
		{"guide", "Guide", 1, at(t, d, "<h1>", 1), end},
		{"bk", "Backup & Restore", 2, at(t, d, "<h2 id", 1), at(t, d, "<h2>Backup", 1)},
		{"retention-days", "Retention days", 3, at(t, d, "<H3", 1), at(t, d, "<h2>Backup", 1)},
		{"backup--restore", "Backup & Restore", 2, at(t, d, "<h2>Backup", 1), at(t, d, "<h2>Backup", 2)},
		{"backup--restore-1", "Backup & Restore", 2, at(t, d, "<h2>Backup", 2), end},
	}
	if got := Parse(HTML, d); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
}

// TestPlainAndFormatOf: plain text has no sections, whatever it holds; a
// file's ending names its format.
func TestPlainAndFormatOf(t *testing.T) {
	if got := Parse(Plain, "# Looks like a heading\n"); got != nil {
		t.Errorf("plain text: got %v, want no sections", got)
	}
	for name, want := range map[string]Format{"a/b.md": Markdown, "x.MARKDOWN": Markdown, "p.html": HTML, "p.htm": HTML, "n.txt": Plain, "noext": Plain} {
		if got := FormatOf(name); got != want {
			t.Errorf("FormatOf(%q) = %v, want %v", name, got, want)
		}
	}
}
