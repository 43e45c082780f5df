package report

import (
	"strings"
	"unicode"
)

// mdReplacer neutralises everything in user text that Markdown or HTML would
// act on: tags, entities, table pipes, code spans, emphasis, links, images,
// and headings. Mentions and issue references are handled by inertRefs.
var mdReplacer = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;", "`", "&#96;",
	"\\", "&#92;", "*", "&#42;", "_", "&#95;", "[", "&#91;", "]", "&#93;",
	"~", "&#126;", "!", "&#33;", "$", "&#36;",
)

// EscapeMarkdown makes text from the eval set or a retriever safe to place in
// a Markdown paragraph or table cell: it cannot open HTML, break the table,
// start a code span or mention anyone. Line breaks become spaces.
func EscapeMarkdown(s string) string {
	return mdReplacer.Replace(inertRefs(flatten(s)))
}

// inertRefs puts a zero-width space after each @ or # that GitHub would read
// as a mention or an issue reference: one at the start or after a character
// that is not a letter or digit ("recall@10" is left alone).
func inertRefs(s string) string {
	if !strings.ContainsAny(s, "@#") {
		return s
	}
	var b strings.Builder
	prev := ' '
	for _, r := range s {
		b.WriteRune(r)
		if (r == '@' || r == '#') && !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
			b.WriteRune('\u200b')
		}
		prev = r
	}
	return b.String()
}

// flatten turns line breaks and tabs into spaces and drops other control
// characters (terminal escape sequences included).
func flatten(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return -1
		}
		return r
	}, s)
}

// clip shortens s to at most n runes, ending with "…" when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
