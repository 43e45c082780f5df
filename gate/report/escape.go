package report

import (
	"strings"
	"unicode"

	"github.com/recallgate/recallgate/gate"
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
// start a code span, mention anyone, link anywhere or hide what it says.
// Line breaks become spaces; bidi controls and invisible characters show as
// marks such as ⟨U+202E⟩ (gate.Visible), before inertRefs adds recallgate's
// own zero-width spaces, which are therefore never marked.
//
// Its start is inert too (inertStart): recallgate writes text as the item
// of a list ("- " and the text), where a start such as "- ", "1. ", "---"
// or indentation would open a nested list, a rule or a code block.
func EscapeMarkdown(s string) string {
	return inertStart(escapeText(s))
}

// escapeText is EscapeMarkdown but for its start: for text inside a line.
func escapeText(s string) string {
	return mdReplacer.Replace(inertRefs(gate.Visible(flatten(s))))
}

// inertStart makes the start of escaped text open no block where it
// starts one's content (a list item's, a paragraph's): a leading space
// (indentation) becomes "&#32;", a leading "-" or "+" (a list marker, a
// thematic break) "&#45;" or "&#43;", and the "." or ")" after leading
// digits (an ordered list) "&#46;" or "&#41;"; each reads the same. "*",
// "_", "#", ">", "=" and "`" are escaped already wherever they are.
func inertStart(e string) string {
	switch {
	case strings.HasPrefix(e, " "):
		return "&#32;" + e[1:]
	case strings.HasPrefix(e, "-"):
		return "&#45;" + e[1:]
	case strings.HasPrefix(e, "+"):
		return "&#43;" + e[1:]
	}
	n := 0
	for n < len(e) && n < 9 && e[n] >= '0' && e[n] <= '9' {
		n++
	}
	if n > 0 && n < len(e) && (e[n] == '.' || e[n] == ')') {
		return e[:n] + map[byte]string{'.': "&#46;", ')': "&#41;"}[e[n]] + e[n+1:]
	}
	return e
}

// zwsp is the zero-width space inertRefs puts where GitHub would start a
// link or a reference: the text reads the same and copies almost the same,
// and no autolinker matches across it.
const zwsp = '\u200b'

// inertRefs puts a zero-width space where GitHub would turn plain text
// into a notification, a reference or a link:
//   - after an @ or # at the start or after anything but an ASCII letter
//     or digit (a mention "é@user" is live: GitHub's word boundary is
//     ASCII); after an @ that follows a letter or digit too when an email
//     domain or a commit follows it ("a@b.co", "owner/repo@0123abc"), so
//     "recall@10" stays as written; after a # followed by a digit
//     ("owner/repo#1");
//   - after the dash of "GH-" followed by a digit (GitHub's short issue
//     reference);
//   - before the ":" of "scheme://" and the "." of "www." (the GFM autolink
//     extension's URL and www forms; its email form is the @ case);
//   - every six characters inside a word of 7 to 40 hex digits, which
//     GitHub links as a commit when one has that prefix.
func inertRefs(s string) string {
	rs := []rune(s)
	at := func(i int) rune {
		if i < 0 || i >= len(rs) {
			return -1
		}
		return rs[i]
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if wordByte(r) && !wordByte(at(i-1)) {
			j := i
			for j < len(rs) && wordByte(rs[j]) {
				j++
			}
			if n := j - i; n >= 7 && n <= 40 && allHex(rs[i:j]) {
				for k := i; k < j; k++ {
					if k > i && (k-i)%6 == 0 {
						b.WriteRune(zwsp)
					}
					b.WriteRune(rs[k])
				}
				i = j - 1
				continue
			}
		}
		switch {
		case r == ':' && asciiLetter(at(i-1)) && at(i+1) == '/' && at(i+2) == '/':
			b.WriteRune(zwsp)
		case r == '.' && i >= 3 && strings.EqualFold(string(rs[i-3:i]), "www"):
			b.WriteRune(zwsp)
		}
		b.WriteRune(r)
		switch r {
		case '@':
			if !asciiAlnum(at(i-1)) || liveAfterWord(rs[i+1:]) {
				b.WriteRune(zwsp)
			}
		case '#':
			if !asciiAlnum(at(i-1)) || asciiDigit(at(i+1)) {
				b.WriteRune(zwsp)
			}
		case '-':
			if i >= 2 && strings.EqualFold(string(rs[i-2:i]), "gh") && !asciiAlnum(at(i-3)) && asciiDigit(at(i+1)) {
				b.WriteRune(zwsp)
			}
		}
	}
	return b.String()
}

// liveAfterWord reports whether what follows an @ that follows a letter or
// digit is an email domain or a commit: anything but a short number
// ("recall@10").
func liveAfterWord(rest []rune) bool {
	n, digits := 0, true
	for _, r := range rest {
		if !asciiAlnum(r) && r != '.' && r != '-' && r != '_' {
			break
		}
		if !asciiDigit(r) {
			digits = false
		}
		n++
	}
	return n > 0 && (!digits || n >= 7)
}

func asciiDigit(r rune) bool  { return r >= '0' && r <= '9' }
func asciiLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func asciiAlnum(r rune) bool  { return asciiDigit(r) || asciiLetter(r) }

// wordByte is a character of a word as GitHub's reference filters see it.
func wordByte(r rune) bool { return asciiAlnum(r) || r == '_' }

func allHex(rs []rune) bool {
	for _, r := range rs {
		if !asciiDigit(r) && (r < 'a' || r > 'f') && (r < 'A' || r > 'F') {
			return false
		}
	}
	return true
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

// mdCode writes an id (a query's, a document's) as a Markdown code span
// for prose and list items: inside one neither GitHub nor GitLab mentions,
// references, links or emphasises anything, and entities and HTML stay
// as typed, so an id is inert and still copies byte for byte (no
// zero-width space inside "15476777"). What would not read true stays
// visible instead: line breaks become spaces, and invisible characters,
// white space at either end and look-alikes (a full-width ｄ) marks such
// as ⟨U+202E⟩ (gate.VisibleID), so "d01 " never reads as d01. A backtick inside gets the
// CommonMark rule: a fence longer than any run of backticks in the id,
// and a space inside each end when the id starts or ends with a backtick
// (or starts and ends with a space, which the renderer would strip).
func mdCode(id string) string { return codeSpan(id, false) }

// mdCell is mdCode for a GFM table cell, where a pipe splits the cell
// even inside a code span unless written \| (which the table reads as a
// pipe in the code, so the id still copies as given).
func mdCell(id string) string { return codeSpan(id, true) }

func codeSpan(id string, cell bool) string {
	s := flatten(gate.VisibleID(id))
	if s == "" {
		return ""
	}
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdCellPassage writes a passage label (gate.ContextStage.PassageLabel)
// of document doc for a table cell: a chunk id is an id, a code span;
// "doc, passage N ("opening")" keeps doc a code span and escapes the rest,
// so a numeric doc id copies byte for byte there too.
func mdCellPassage(label, doc string) string {
	if rest, ok := strings.CutPrefix(label, doc+", passage "); ok && doc != "" {
		return mdCell(doc) + EscapeMarkdown(", passage "+rest)
	}
	return mdCell(label)
}

// MarkdownID writes an id as an inert Markdown code span that copies byte
// for byte (mdCode), for the Markdown other packages write.
func MarkdownID(id string) string { return mdCode(id) }

// mdProse escapes a sentence recallgate wrote around ids (a rule's reason,
// a warning, a health line, a list of passages) for Markdown: each word
// that is one of ids is a code span, so a numeric or hex-like id copies
// byte for byte there too, and the rest is escaped as text (EscapeMarkdown).
// Words are split at spaces, commas, semicolons, parentheses and quotes; a
// trailing colon or full stop is not part of the word.
func mdProse(s string, ids map[string]bool) string {
	sep := func(c byte) bool {
		switch c {
		case ' ', '\t', '\n', '\r', ',', ';', '(', ')', '"':
			return true
		}
		return false
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		if sep(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !sep(s[j]) {
			j++
		}
		if word := strings.TrimRight(s[i:j], ":."); ids[word] || commitWord(word) || hashWord(word) {
			b.WriteString(escapeText(s[done:i]))
			b.WriteString(mdCode(word))
			done = i + len(word)
		}
		i = j
	}
	b.WriteString(escapeText(s[done:]))
	return inertStart(b.String())
}

// commitWord reports whether a word of recallgate's own sentences is a
// commit (7 to 40 hex digits, one of them a digit, as reports shorten a
// commit to 12): written as a code span, as ids are, it copies byte for
// byte and GitHub links nothing in it (no zero-width space inside).
func commitWord(w string) bool {
	if len(w) < 7 || len(w) > 40 || !strings.ContainsAny(w, "0123456789") {
		return false
	}
	return allHex([]rune(w))
}

// hashWord reports whether a word of recallgate's own sentences holds a
// commit or a hash among other characters (a path at a commit,
// "rag/set.jsonl@0123abcdef45"; a cache file named by its key): as text
// it would get inertRefs' zero-width spaces inside the hash (and after
// the @), and a copied path or id would not be the file's. Written as a
// code span it copies byte for byte and links nothing.
func hashWord(w string) bool {
	rs := []rune(w)
	for i := 0; i < len(rs); {
		if !wordByte(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && wordByte(rs[j]) {
			j++
		}
		if commitWord(string(rs[i:j])) {
			return true
		}
		i = j
	}
	return false
}

// idSet is every id the report names: queries, gold, lost and gained
// documents, what took a document's place, the passages of facts and the
// passages listed in their place (each a word of its own).
func (r *CompareReport) idSet() map[string]bool {
	ids := map[string]bool{}
	add := func(vs ...string) {
		for _, v := range vs {
			if strings.TrimSpace(v) != "" && !strings.ContainsAny(v, " \t\n") {
				ids[v] = true
			}
		}
	}
	for _, q := range r.Queries {
		add(q.ID)
		add(q.Gold...)
		add(q.Lost...)
		add(q.Gained...)
		for _, m := range q.Moves {
			add(m.Doc, m.TookItsPlace, m.Passage)
		}
		for _, f := range append(append([]FactMoveInfo(nil), q.FactsLost...), q.FactsGained...) {
			add(f.Doc, f.Passage)
			add(strings.Split(f.Instead, ", ")...)
		}
	}
	return ids
}
