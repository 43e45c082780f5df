package report

import "testing"

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
