package report

import (
	"strings"
	"unicode/utf8"
)

// gitlabSigils are the entities EscapeMarkdown writes for the characters
// that start a GitLab reference: ! (merge request), ~ (label), $ (snippet),
// & (epic), [ ("[vulnerability:1]", "[work_item:2]", "[contact:…]",
// "[feature_flag:3]", "[wiki_page:…]") and * ("*iteration:4"). GitLab resolves references in the text the Markdown
// renders to, where an entity is its character again, so "&#33;12" in a
// note links merge request !12. Only EscapeMarkdown writes these entities:
// the report's own text never does.
var gitlabSigils = []struct {
	entity string
	live   func(next rune) bool
}{
	{"&#33;", asciiDigit},
	{"&#36;", asciiDigit},
	{"&amp;", asciiDigit},
	{"&#126;", func(r rune) bool { return wordByte(r) || r == '"' }},
	{"&#91;", wordByte},
	{"&#42;", wordByte},
}

// gitlabWords put GitLab's name for the change in the report's own
// phrases that say GitHub's ("this PR").
var gitlabWords = strings.NewReplacer(
	"this PR changes the gate: ", "this merge request changes the gate: ",
	"this PR moves/links the gate's config: ", "this merge request moves/links the gate's config: ",
	" waived by this PR: ", " waived by this merge request: ",
	" added by this PR, unused: ", " added by this merge request, unused: ",
)

// ForGitLab makes a Markdown report safe for a GitLab note or issue: what
// EscapeMarkdown leaves for GitHub (mentions, issue numbers, links,
// commits) is inert on GitLab too, and this adds a zero-width space after
// GitLab's own reference sigils in escaped text ("!123", "~bug",
// "~\"a label\"", "$4", "&5", "[vulnerability:1]", "*iteration:2") and after a "%" that starts a milestone
// ("%v1.0", "%\"Q3\"": a % after a letter or digit, as in "50%", is left).
// GitLab draws the rest of the report as GitHub does: tables, <details>,
// and the Mermaid xychart (GitLab bundles Mermaid 10.7; xychart-beta
// arrived in 10.5). The report's "this PR" reads "this merge request".
// Quick actions ("/label" at a line's start) are
// neutralised by the GitLab client in every body it writes.
func ForGitLab(md string) string {
	md = gitlabWords.Replace(md)
	var b strings.Builder
	b.Grow(len(md) + 64)
	prev := rune(-1)
	for i := 0; i < len(md); {
		matched := false
		for _, s := range gitlabSigils {
			if strings.HasPrefix(md[i:], s.entity) {
				b.WriteString(s.entity)
				i += len(s.entity)
				if next, _ := utf8.DecodeRuneInString(md[i:]); s.live(next) {
					b.WriteRune(zwsp)
				}
				prev, matched = ';', true
				break
			}
		}
		if matched {
			continue
		}
		r, n := utf8.DecodeRuneInString(md[i:])
		b.WriteRune(r)
		i += n
		if next, _ := utf8.DecodeRuneInString(md[i:]); r == '%' && !asciiAlnum(prev) && (wordByte(next) || next == '"') {
			b.WriteRune(zwsp)
		}
		prev = r
	}
	return b.String()
}
