package section

import (
	"html"
	"strings"
)

// htmlHeadings finds an HTML text's h1 to h6 elements with their byte
// offsets (the "<" of the opening tag), their text (tags stripped,
// entities decoded, spaces squeezed) and their id attribute. Comments,
// script and style are skipped.
func htmlHeadings(text string) []heading {
	var out []heading
	lower := asciiLower(text)
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			break
		}
		i += j
		rest := lower[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			i = skipPast(lower, i+4, "-->")
			continue
		case rawElement(rest, "script"), rawElement(rest, "style"):
			name := "script"
			if rawElement(rest, "style") {
				name = "style"
			}
			i = skipPast(lower, i+1, "</"+name)
			continue
		}
		level := htmlHeadingLevel(rest)
		if level == 0 {
			i++
			continue
		}
		tagEnd := tagClose(text, i)
		if tagEnd < 0 {
			break
		}
		id := attribute(text[i+3:tagEnd], "id")
		closeTag := "</h" + string(rune('0'+level))
		k := strings.Index(lower[tagEnd:], closeTag)
		contentEnd := len(text)
		if k >= 0 {
			contentEnd = tagEnd + k
		}
		t := strings.Join(strings.Fields(html.UnescapeString(stripTags(text[tagEnd+1:contentEnd]))), " ")
		out = append(out, heading{start: i, level: level, text: t, explicit: id})
		i = contentEnd
	}
	return out
}

// htmlHeadingLevel is N for "<hN" followed by a space, "/" or ">".
func htmlHeadingLevel(rest string) int {
	if len(rest) < 4 || rest[1] != 'h' || rest[2] < '1' || rest[2] > '6' {
		return 0
	}
	switch rest[3] {
	case ' ', '\t', '\n', '\r', '\f', '/', '>':
		return int(rest[2] - '0')
	}
	return 0
}

// rawElement: rest opens the element name (whose content is not markup).
func rawElement(rest, name string) bool {
	if !strings.HasPrefix(rest, "<"+name) || len(rest) <= len(name)+1 {
		return false
	}
	c := rest[len(name)+1]
	return c == ' ' || c == '>' || c == '\t' || c == '\n' || c == '\r' || c == '/'
}

// skipPast returns the offset after the first end at or past from, the
// text's length when there is none.
func skipPast(lower string, from int, end string) int {
	if k := strings.Index(lower[from:], end); k >= 0 {
		return from + k + len(end)
	}
	return len(lower)
}

// tagClose is the offset of the ">" that ends the tag opened at i
// (quoted attribute values may hold ">"), -1 when the text ends first.
func tagClose(text string, i int) int {
	var quote byte
	for j := i + 1; j < len(text); j++ {
		c := text[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return j
		}
	}
	return -1
}

// attribute returns the value of a tag's attribute (entities decoded),
// "" when the tag has none.
func attribute(attrs, name string) string {
	for i := 0; i < len(attrs); {
		for i < len(attrs) && strings.IndexByte(" \t\n\r\f/", attrs[i]) >= 0 {
			i++
		}
		start := i
		for i < len(attrs) && strings.IndexByte(" \t\n\r\f/=>", attrs[i]) < 0 {
			i++
		}
		key := strings.ToLower(attrs[start:i])
		for i < len(attrs) && (attrs[i] == ' ' || attrs[i] == '\t' || attrs[i] == '\n' || attrs[i] == '\r') {
			i++
		}
		value := ""
		if i < len(attrs) && attrs[i] == '=' {
			i++
			for i < len(attrs) && (attrs[i] == ' ' || attrs[i] == '\t' || attrs[i] == '\n' || attrs[i] == '\r') {
				i++
			}
			if i < len(attrs) && (attrs[i] == '"' || attrs[i] == '\'') {
				q := attrs[i]
				end := strings.IndexByte(attrs[i+1:], q)
				if end < 0 {
					end = len(attrs) - i - 1
				}
				value = attrs[i+1 : i+1+end]
				i += end + 2
			} else {
				vs := i
				for i < len(attrs) && strings.IndexByte(" \t\n\r\f>", attrs[i]) < 0 {
					i++
				}
				value = attrs[vs:i]
			}
		}
		if key == name {
			return strings.TrimSpace(html.UnescapeString(value))
		}
		if key == "" && i == start {
			i++
		}
	}
	return ""
}

// stripTags drops every tag of an element's content.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '<' {
			if j := tagClose(s, i); j >= 0 {
				i = j + 1
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// asciiLower lower-cases ASCII letters only, so every offset into the
// result is the same offset into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
