package report

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// TestEscapeMarkdownReadsTrue: every class of text that would read falsely
// in a GitHub comment, with the exact escaped form. "·" stands for the
// zero-width space recallgate inserts (U+200B), to keep the cases legible.
func TestEscapeMarkdownReadsTrue(t *testing.T) {
	for _, tt := range []struct{ class, in, want string }{
		{"bidi", "access\u202elevel\u2066x\u2069", "access⟨U+202E⟩level⟨U+2066⟩x⟨U+2069⟩"},
		{"bidi marks", "a\u200eb\u200fc\u061cd\u202ae", "a⟨U+200E⟩b⟨U+200F⟩c⟨U+061C⟩d⟨U+202A⟩e"},
		{"zero-width", "q1\u200b q\u200c1 q\u200d1 q\u20601 \ufeffq1", "q1⟨U+200B⟩ q⟨U+200C⟩1 q⟨U+200D⟩1 q⟨U+2060⟩1 ⟨U+FEFF⟩q1"},
		{"zero-width before a mention", "\u200b@octocat", "⟨U+200B⟩@·octocat"},
		{"joiner in a word", "می\u200cخواهم", "می\u200cخواهم"},
		{"https", "see https://evil.example/x", "see https·://evil.example/x"},
		{"http", "(http://evil.example)", "(http·://evil.example)"},
		{"scheme case", "HTTPS://a.b ftp://a.b", "HTTPS·://a.b ftp·://a.b"},
		{"www", "visit www.evil.example or WWW.x.y", "visit www·.evil.example or WWW·.x.y"},
		{"email", "mail a.b@evil.example", "mail a.b@·evil.example"},
		{"mailto", "mailto:x@y.z", "mailto:x@·y.z"},
		{"cross-repo", "fixes owner/repo#1 and #2", "fixes owner/repo#·1 and #·2"},
		{"GH-", "see GH-2, gh-17 and (GH-3)", "see GH-·2, gh-·17 and (GH-·3)"},
		{"not GH-", "UGH-2 GH-x", "UGH-2 GH-x"},
		{"owner/repo@sha", "owner/repo@0123abc", "owner/repo@·0123ab·c"},
		{"user@sha", "jlord@a5c3785ed8d6a35868bc169f07e40e889087fd2e", "jlord@·a5c378·5ed8d6·a35868·bc169f·07e40e·889087·fd2e"},
		{"commit", "broken by 4f2a9c1 and DEADBEEF00", "broken by 4f2a9c·1 and DEADBE·EF00"},
		{"not a commit", "abc123 sha256 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef x4f2a9c1", "abc123 sha256 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef x4f2a9c1"},
		{"mention", "@octocat", "@·octocat"},
		{"mention after é", "café@octocat", "café@·octocat"},
		{"team mention after a letter of another script", "ж@org/team", "ж@·org/team"},
		{"issue after é", "é#12", "é#·12"},
		{"metric", "recall@10 dropped, nDCG@5 too", "recall@10 dropped, nDCG@5 too"},
		{"heading", "# not a heading", "#· not a heading"},
		{"markdown", "<b>|`*_[x](y)~!$\\&", "&lt;b&gt;&#124;&#96;&#42;&#95;&#91;x&#93;(y)&#126;&#33;&#36;&#92;&amp;"},
		{"lines", "a\nb\r\tc\x1b[31m", "a b  c&#91;31m"},
	} {
		if got := dots(EscapeMarkdown(tt.in)); got != tt.want {
			t.Errorf("%s: EscapeMarkdown(%q)\n got %q\nwant %q", tt.class, tt.in, got, tt.want)
		}
	}
}

// dots shows recallgate's own zero-width spaces as "·".
func dots(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '\u200b' {
			r = '·'
		}
		out = append(out, r)
	}
	return string(out)
}

// TestPassageIDsAreCodeSpans: the passage a context miss names (the fact's
// "held by", in the move and in the Context table) keeps its document id a
// code span too: a numeric doc id copies byte for byte there, the passage's
// opening stays escaped text, and a chunk id is an id as a whole.
func TestPassageIDsAreCodeSpans(t *testing.T) {
	for _, tt := range []struct{ label, doc, want string }{
		{"15476777, passage 2", "15476777", "`15476777`, passage 2"},
		{`15476777, passage 1 ("see @octocat")`, "15476777", "`15476777`, passage 1 (\"see @\u200boctocat\")"},
		{"15476777#3", "15476777", "`15476777#3`"},
		{"a|b, passage 1", "a|b", "`a\\|b`, passage 1"},
		{"x, passage 1", "", "`x, passage 1`"},
	} {
		if got := mdCellPassage(tt.label, tt.doc); got != tt.want {
			t.Errorf("mdCellPassage(%q, %q) = %q, want %q", tt.label, tt.doc, got, tt.want)
		}
	}
}

// TestIDsAreCodeSpans: an id in the Markdown report is a code span that
// reads (and copies) byte for byte, numeric ids included ("15476777" had
// a zero-width space inside it); backticks get a longer fence, pipes in a
// table cell are written \|, and what would not read true is marked.
func TestIDsAreCodeSpans(t *testing.T) {
	for _, tt := range []struct{ in, cell, code string }{
		{"15476777", "`15476777`", "`15476777`"},
		{"4f2a9c1deadbeef", "`4f2a9c1deadbeef`", "`4f2a9c1deadbeef`"},
		{"@octocat", "`@octocat`", "`@octocat`"},
		{"owner/repo#1", "`owner/repo#1`", "`owner/repo#1`"},
		{"https://evil.example/<b>", "`https://evil.example/<b>`", "`https://evil.example/<b>`"},
		{"!12 ~bug &3 $4", "`!12 ~bug &3 $4`", "`!12 ~bug &3 $4`"},
		{"a`b", "``a`b``", "``a`b``"},
		{"a``b`", "``` a``b` ```", "``` a``b` ```"},
		{"`x", "`` `x ``", "`` `x ``"},
		// White space at either end is marked (gate.VisibleID): " x "
		// would read as x.
		{" x ", "`⟨U+0020⟩x⟨U+0020⟩`", "`⟨U+0020⟩x⟨U+0020⟩`"},
		{" x", "`⟨U+0020⟩x`", "`⟨U+0020⟩x`"},
		{"   ", "`⟨U+0020⟩⟨U+0020⟩⟨U+0020⟩`", "`⟨U+0020⟩⟨U+0020⟩⟨U+0020⟩`"},
		{"x y", "`x y`", "`x y`"},
		{"\uff58", "`⟨U+FF58⟩`", "`⟨U+FF58⟩`"},
		{"a|b", "`a\\|b`", "`a|b`"},
		{"q1\u202e\u200b", "`q1⟨U+202E⟩⟨U+200B⟩`", "`q1⟨U+202E⟩⟨U+200B⟩`"},
		{"a\nb\tc\x1b", "`a b c⟨U+001B⟩`", "`a b c⟨U+001B⟩`"},
		{"", "", ""},
	} {
		if got := mdCell(tt.in); got != tt.cell {
			t.Errorf("mdCell(%q) = %q, want %q", tt.in, got, tt.cell)
		}
		if got := mdCode(tt.in); got != tt.code {
			t.Errorf("mdCode(%q) = %q, want %q", tt.in, got, tt.code)
		}
		if tt.in == "" {
			continue
		}
		// Read back as GitHub's renderer reads a code span (and, for the
		// cell, a GFM table's cell).
		t.Run(tt.in, func(t *testing.T) {
			want := flatten(gate.VisibleID(tt.in))
			if got := readCodeSpan(t, tt.cell, true); got != want {
				t.Errorf("the cell %q reads %q, want %q", tt.cell, got, want)
			}
			if got := readCodeSpan(t, tt.code, false); got != want {
				t.Errorf("the span %q reads %q, want %q", tt.code, got, want)
			}
		})
	}
}

// readCodeSpan is what GitHub's renderer (cmark-gfm, internal/cmarkgfm)
// shows for s, which must render as one code span: inside a sentence, or,
// for a cell, in a GFM table's cell.
func readCodeSpan(t *testing.T, s string, cell bool) string {
	t.Helper()
	md := "the id " + s + " here\n"
	if cell {
		md = "| id |\n|:--|\n| " + s + " |\n"
	}
	htm := cmarkgfm.HTML(t, md)
	codes := cmarkgfm.Codes(htm)
	if len(codes) != 1 || strings.Contains(cmarkgfm.OutsideCode(htm), "`") {
		t.Fatalf("%q is not one code span: %s", s, htm)
	}
	return codes[0]
}

// TestCommitsInNotesAreCodeSpans: a commit in recallgate's own sentences
// (the note naming the base commit) is a code span as ids are, so it
// copies byte for byte: it carried a zero-width space after its sixth
// digit ("388261\u200bcb9857"). Other text is escaped as before.
func TestCommitsInNotesAreCodeSpans(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"base side: the tree of commit 388261cb9857 (git worktree), with its own config",
			"base side: the tree of commit `388261cb9857` (git worktree), with its own config"},
		{"policy: the base commit's config (388261cb9857) judged both sides",
			"policy: the base commit's config (`388261cb9857`) judged both sides"},
		{"commit 0123456789abcdef0123456789abcdef01234567.", "commit `0123456789abcdef0123456789abcdef01234567`."},
		{"a page, see @octocat", "a page, see @\u200boctocat"},
	} {
		got := mdProse(tt.in, nil)
		if got != tt.want {
			t.Errorf("mdProse(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
