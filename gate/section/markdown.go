package section

import (
	"html"
	"strings"
)

// markdownHeadings finds a Markdown text's ATX and Setext headings, with
// their byte offsets, outside fenced code and a leading front matter.
func markdownHeadings(text string) []heading {
	var out []heading
	var fence string // the opening fence while inside fenced code
	paraStart := -1  // the first byte of the open paragraph, -1 when none
	var paraLines []string
	off := frontMatterEnd(text)
	for off < len(text) {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		line := strings.TrimRight(text[off:next], "\r\n")
		body, indent := unindent(line)
		switch {
		case fence != "":
			if closesFence(body, indent, fence) {
				fence = ""
			}
		case indent <= 3 && opensFence(body) != "":
			fence = opensFence(body)
			paraStart, paraLines = -1, nil
		case strings.TrimSpace(line) == "":
			paraStart, paraLines = -1, nil
		case indent <= 3 && atxLevel(body) > 0:
			level := atxLevel(body)
			t, id := headingText(atxContent(body[level:]))
			out = append(out, heading{start: off, level: level, text: t, explicit: id})
			paraStart, paraLines = -1, nil
		case paraStart >= 0 && indent <= 3 && setextLevel(body) > 0:
			t, id := headingText(strings.Join(paraLines, "\n"))
			out = append(out, heading{start: paraStart, level: setextLevel(body), text: t, explicit: id})
			paraStart, paraLines = -1, nil
		case indent <= 3 && thematicBreak(body):
			paraStart, paraLines = -1, nil
		case paraStart < 0 && (indent >= 4 || startsBlock(body)):
			// indented code, a list item, a block quote or a table row:
			// no paragraph a Setext underline could turn into a heading
		case paraStart >= 0 && startsBlock(body):
			paraStart, paraLines = -1, nil
		default:
			if paraStart < 0 {
				paraStart = off
			}
			paraLines = append(paraLines, strings.TrimSpace(line))
		}
		off = next
	}
	return out
}

// frontMatterEnd is the offset after a leading YAML front matter (a first
// line "---" up to a closing "---" or "..." line), 0 when there is none.
func frontMatterEnd(text string) int {
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return 0
	}
	off := strings.IndexByte(text, '\n') + 1
	for off < len(text) {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		if l := strings.TrimRight(text[off:next], "\r\n"); l == "---" || l == "..." {
			return next
		}
		off = next
	}
	return 0
}

// unindent returns a line without its leading spaces and how many
// columns they took (a tab counts as four).
func unindent(line string) (string, int) {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return line[i:], n
		}
	}
	return "", n
}

// opensFence returns the fence a line opens (``` or ~~~, three or more),
// "" when it opens none. A backtick fence's info string holds no
// backtick.
func opensFence(body string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(body) && body[n] == c {
			n++
		}
		if n >= 3 && (c == '~' || !strings.Contains(body[n:], "`")) {
			return body[:n]
		}
	}
	return ""
}

// closesFence: the same character, at least as many, nothing after but
// spaces.
func closesFence(body string, indent int, fence string) bool {
	if indent > 3 || !strings.HasPrefix(body, fence) {
		return false
	}
	rest := strings.TrimLeft(body, fence[:1])
	return strings.TrimSpace(rest) == ""
}

// atxLevel is the level of an ATX heading line (one to six "#" and then
// a space, a tab or the end), 0 when it is not one.
func atxLevel(body string) int {
	n := 0
	for n < len(body) && body[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(body) && body[n] != ' ' && body[n] != '\t' {
		return 0
	}
	return n
}

// atxContent is an ATX heading's content: trimmed, its closing run of
// "#" dropped when a space precedes it (or it is all there is).
func atxContent(s string) string {
	s = strings.TrimSpace(s)
	t := strings.TrimRight(s, "#")
	if t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		return strings.TrimSpace(t)
	}
	return s
}

// setextLevel is 1 for a line of "=", 2 for a line of "-" (trailing
// spaces allowed), 0 otherwise.
func setextLevel(body string) int {
	b := strings.TrimRight(body, " \t")
	switch {
	case b == "":
		return 0
	case strings.Trim(b, "=") == "":
		return 1
	case strings.Trim(b, "-") == "":
		return 2
	}
	return 0
}

// thematicBreak: three or more of one of - * _, spaces between allowed.
func thematicBreak(body string) bool {
	b := strings.ReplaceAll(strings.ReplaceAll(body, " ", ""), "\t", "")
	if len(b) < 3 || strings.IndexByte("-*_", b[0]) < 0 {
		return false
	}
	return strings.Trim(b, b[:1]) == ""
}

// startsBlock: a list item, a block quote or a table row begins here.
func startsBlock(body string) bool {
	if body == "" {
		return false
	}
	switch body[0] {
	case '>', '|':
		return true
	case '-', '*', '+':
		return len(body) == 1 || body[1] == ' ' || body[1] == '\t'
	}
	i := 0
	for i < len(body) && i < 9 && '0' <= body[i] && body[i] <= '9' {
		i++
	}
	return i > 0 && i < len(body) && (body[i] == '.' || body[i] == ')') && (i+1 == len(body) || body[i+1] == ' ')
}

// headingText renders a heading's inline Markdown to the text a reader
// sees (and GitHub slugs), and returns an explicit trailing {#id}.
func headingText(s string) (text, id string) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "}") {
		if i := strings.LastIndex(s, "{"); i >= 0 && strings.HasPrefix(s[i+1:], "#") {
			attrs := strings.Fields(s[i+2 : len(s)-1])
			if len(attrs) > 0 && attrs[0] != "" {
				id = attrs[0]
				s = strings.TrimSpace(s[:i])
			}
		}
	}
	return strings.Join(strings.Fields(renderInline(s)), " "), id
}

// renderInline drops inline Markdown's markup: code spans keep their
// content, links and images their text, HTML tags go (an autolink keeps
// its address), backslash escapes their character, entities are decoded,
// and emphasis delimiters (* and _ at a word's edge) go. It costs time
// linear in len(s) (a heading is text from the change under review):
// each link's closing bracket and each code span's closing run is found
// from tables made once, a search that would fail is not run, and links
// nested deeper than maxLinkDepth keep their inner text as it is.
func renderInline(s string) string { return renderInlineAt(s, 0) }

// maxLinkDepth is how deep links nested in link text are rendered; a
// deeper one's text is kept with its markup (each level reads its text
// once more, so the depth bounds the cost).
const maxLinkDepth = 8

func renderInlineAt(s string, depth int) string {
	var b strings.Builder
	var plain strings.Builder // text to unescape and strip of emphasis
	flush := func() {
		b.WriteString(dropEmphasis(html.UnescapeString(plain.String())))
		plain.Reset()
	}
	in := newInlineTables(s)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			flush()
			b.WriteByte(s[i+1])
			i += 2
			continue
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			if j := in.closingTicks(s, i+n, n); j >= 0 {
				flush()
				code := s[i+n : j]
				if len(code) > 1 && code[0] == ' ' && code[len(code)-1] == ' ' {
					code = code[1 : len(code)-1]
				}
				b.WriteString(code)
				i = j + n
				continue
			}
			plain.WriteString(s[i : i+n])
			i += n
			continue
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			i++
			continue
		case c == '[':
			if text, next, ok := in.linkText(s, i); ok {
				if depth < maxLinkDepth {
					text = renderInlineAt(text, depth+1)
				}
				plain.WriteString(text)
				i = next
				continue
			}
		case c == '<' && i < in.lastAngle:
			if j := strings.IndexByte(s[i:], '>'); j > 0 {
				tag := s[i+1 : i+j]
				if strings.Contains(tag, "://") || strings.HasPrefix(tag, "mailto:") {
					plain.WriteString(tag)
				}
				i += j + 1
				continue
			}
		}
		plain.WriteByte(c)
		i++
	}
	flush()
	return b.String()
}

// inlineTables are what renderInlineAt looks up instead of searching
// ahead from every opening: each "["'s closing bracket, the last ")",
// "]" and ">" of the text, and the last start of a backtick run of each
// length.
type inlineTables struct {
	// match[i] is the offset of the "]" closing the "[" at i (-1: none),
	// as linkText once found it: brackets counted from i, a backslash
	// skipping the byte after it.
	match                           []int32
	lastParen, lastClose, lastAngle int
	lastTicks                       map[int]int
}

func newInlineTables(s string) *inlineTables {
	in := &inlineTables{lastParen: strings.LastIndexByte(s, ')'), lastClose: strings.LastIndexByte(s, ']'),
		lastAngle: strings.LastIndexByte(s, '>')}
	if strings.IndexByte(s, '[') >= 0 {
		in.match = make([]int32, len(s))
		var open []int32
		for j := 0; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '[':
				in.match[j] = -1
				open = append(open, int32(j))
			case ']':
				if len(open) > 0 {
					in.match[open[len(open)-1]] = int32(j)
					open = open[:len(open)-1]
				}
			}
		}
	}
	if strings.IndexByte(s, '`') >= 0 {
		in.lastTicks = map[int]int{}
		for i := 0; i < len(s); {
			if s[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] == '`' {
				j++
			}
			in.lastTicks[j-i] = i
			i = j
		}
	}
	return in
}

// closingTicks finds the run of exactly n backticks that closes a code
// span opened before from, -1 when none does (at once when no run of n
// starts at or after from).
func (in *inlineTables) closingTicks(s string, from, n int) int {
	if last, ok := in.lastTicks[n]; !ok || last < from {
		return -1
	}
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// linkText reads "[text](dest)", "[text][ref]" or "[text][]" at s[i],
// returning the text and the offset after it.
func (in *inlineTables) linkText(s string, i int) (string, int, bool) {
	if in.match == nil {
		return "", 0, false
	}
	j := int(in.match[i])
	if j < 0 {
		return "", 0, false
	}
	text := s[i+1 : j]
	rest := s[j+1:]
	switch {
	case strings.HasPrefix(rest, "(") && in.lastParen > j:
		k := strings.IndexByte(rest, ')')
		return text, j + 1 + k + 1, true
	case strings.HasPrefix(rest, "[") && in.lastClose > j+1:
		k := strings.IndexByte(rest, ']')
		return text, j + 1 + k + 1, true
	}
	return "", 0, false
}

// dropEmphasis removes runs of * and _ that delimit emphasis: one that
// touches a word on one side only. An underscore inside a word
// (snake_case) and a run with spaces on both sides stay.
func dropEmphasis(s string) string {
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '*' && c != '_' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == c {
			j++
		}
		prevSpace := i == 0 || s[i-1] == ' ' || s[i-1] == '\t'
		nextSpace := j == len(s) || s[j] == ' ' || s[j] == '\t'
		intraword := i > 0 && j < len(s) && isWordByte(s[i-1]) && isWordByte(s[j])
		if prevSpace && nextSpace || c == '_' && intraword {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// isWordByte: an ASCII letter or digit, or any byte of a multi-byte
// character (a letter, as far as an underscore beside it goes).
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
