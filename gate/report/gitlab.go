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
// Code spans (mdCode, mdCell) are left as they are: GitLab resolves no
// reference inside code, so an id such as "50%off" or "&#33;12" copies
// byte for byte there too (gitlabCodeSpans says which are spans).
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
	html := false
	for _, line := range strings.SplitAfter(md, "\n") {
		html = htmlBlockLine(line, html)
		for line != "" {
			text, span, rest := line, "", ""
			if !html {
				text, span, rest = gitlabCodeSpan(line)
			}
			prev = gitlabInert(&b, text, prev)
			if span != "" {
				b.WriteString(span)
				prev = '`'
			}
			line = rest
		}
	}
	return b.String()
}

// htmlBlockLine reports whether line is inside an HTML block, given
// whether the line before it was: a line starting with "<" (up to three
// spaces in) starts one and a blank line ends it. Markdown inside an HTML
// block is not parsed, so a backtick there opens no code span and the
// entities in it are characters again: ForGitLab makes it inert whole.
// Counting more lines as HTML than CommonMark would only inerts more.
func htmlBlockLine(line string, before bool) bool {
	trimmed := strings.TrimLeft(line, " ")
	switch {
	case strings.TrimSpace(line) == "":
		return false
	case before:
		return true
	}
	return len(line)-len(trimmed) <= 3 && strings.HasPrefix(trimmed, "<")
}

// gitlabCodeSpan splits line at its first code span as CommonMark finds
// it: text before the span, the span with its backticks, and the rest. A
// backslash escapes the punctuation after it outside a span (so "\`" opens
// nothing); a run of backticks opens a span that the next run of the same
// length on the line closes, and a run with none is text. A span is looked
// for on one line only: one CommonMark would continue onto the next is
// text here, made inert, never the other way round. With no span, text is
// the whole line.
func gitlabCodeSpan(line string) (text, span, rest string) {
	for i := 0; i < len(line); {
		switch line[i] {
		case '\\':
			i += 2
			continue
		case '`':
		default:
			i++
			continue
		}
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			k := j + len(line[j:]) - len(strings.TrimLeft(line[j:], "`"))
			if k-j == n {
				return line[:i], line[i:k], line[k:]
			}
			j = k
		}
		i += n
	}
	return line, "", ""
}

// gitlabInert writes text to b with a zero-width space after each GitLab
// reference sigil that would be live (gitlabSigils, a milestone's %);
// prev is the character before text, and the last one written comes back.
func gitlabInert(b *strings.Builder, text string, prev rune) rune {
	for i := 0; i < len(text); {
		matched := false
		for _, s := range gitlabSigils {
			if strings.HasPrefix(text[i:], s.entity) {
				b.WriteString(s.entity)
				i += len(s.entity)
				if next, _ := utf8.DecodeRuneInString(text[i:]); s.live(next) {
					b.WriteRune(zwsp)
				}
				prev, matched = ';', true
				break
			}
		}
		if matched {
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		b.WriteRune(r)
		i += n
		if next, _ := utf8.DecodeRuneInString(text[i:]); r == '%' && !asciiAlnum(prev) && (wordByte(next) || next == '"') {
			b.WriteRune(zwsp)
		}
		prev = r
	}
	return prev
}
