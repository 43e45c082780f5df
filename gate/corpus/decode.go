package corpus

import (
	"unicode/utf16"
	"unicode/utf8"
)

// decodeLine reads the common shape of a corpus line,
// {"id":"…","title":"…","text":"…"} with the keys in any order, title and
// text optional and a "metadata" value beside them, several times faster
// than encoding/json. It reports ok=false for anything it does not fully
// understand (a key spelled otherwise, a key twice, a value that is not a
// string, metadata other than {} or null, an empty id, bad syntax); the
// caller then decodes the line with gate.DecodeStrict, which decides and
// explains. What it accepts it decodes exactly as encoding/json does:
// escapes, \u surrogate pairs (a lone surrogate is U+FFFD), and each byte
// of invalid UTF-8 as U+FFFD.
//
// A line without escapes or invalid UTF-8 is copied into one string and
// the id, title and text are substrings of it: one allocation a line.
func decodeLine(line []byte) (d Document, ok bool) {
	p := lineParser{b: line}
	p.space()
	if !p.byte('{') {
		return d, false
	}
	type span struct {
		start, end int
		plain, set bool
	}
	var id, title, text span
	meta := false
	p.space()
	if p.peek() == '}' {
		return d, false // no id
	}
	for {
		p.space()
		key, kok := p.key()
		if !kok || !p.byte(':') {
			return d, false
		}
		p.space()
		var sp *span
		switch key {
		case "id":
			sp = &id
		case "title":
			sp = &title
		case "text":
			sp = &text
		case "metadata":
			if meta || !p.emptyValue() {
				return d, false
			}
			meta = true
		default:
			return d, false
		}
		if sp != nil {
			if sp.set {
				return d, false
			}
			start, end, plain, vok := p.str()
			if !vok {
				return d, false
			}
			*sp = span{start: start, end: end, plain: plain, set: true}
		}
		p.space()
		if p.peek() == '}' {
			p.i++
			break
		}
		if !p.byte(',') {
			return d, false
		}
	}
	p.space()
	if p.i != len(p.b) || !id.set || id.start == id.end {
		return d, false
	}
	var s string
	if id.plain && title.plain == title.set && text.plain == text.set && !meta {
		s = string(line) // substrings below: one allocation
	}
	value := func(sp span) string {
		switch {
		case !sp.set:
			return ""
		case !sp.plain:
			return unquote(line[sp.start:sp.end])
		case s != "":
			return s[sp.start:sp.end]
		}
		return string(line[sp.start:sp.end])
	}
	d = Document{ID: value(id), Title: value(title), Text: value(text)}
	return d, true
}

// lineParser walks one line's bytes.
type lineParser struct {
	b []byte
	i int
}

func (p *lineParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *lineParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *lineParser) byte(c byte) bool {
	p.space()
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// key reads an object key written without escapes (any other is left to
// encoding/json, which matches keys case-insensitively).
func (p *lineParser) key() (string, bool) {
	if p.peek() != '"' {
		return "", false
	}
	start := p.i + 1
	for j := start; j < len(p.b) && j < start+16; j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			return string(p.b[start:j]), true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return "", false
		}
	}
	return "", false
}

// emptyValue reads {} or null.
func (p *lineParser) emptyValue() bool {
	switch {
	case p.peek() == '{':
		p.i++
		return p.byte('}')
	case len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null":
		p.i += 4
		return true
	}
	return false
}

// str reads a JSON string: the bytes between its quotes, and whether they
// are its value as they are (no escape, valid UTF-8). A control character
// or an escape encoding/json refuses is not ok.
func (p *lineParser) str() (start, end int, plain, ok bool) {
	if p.peek() != '"' {
		return 0, 0, false, false
	}
	start = p.i + 1
	plain, ascii := true, true
	for j := start; j < len(p.b); j++ {
		c := p.b[j]
		switch {
		case c == '"':
			p.i = j + 1
			if !ascii && !utf8.Valid(p.b[start:j]) {
				plain = false // each bad byte becomes U+FFFD
			}
			return start, j, plain, true
		case c == '\\':
			plain = false
			j++
			if j >= len(p.b) {
				return 0, 0, false, false
			}
			switch p.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(p.b) || !isHex4(p.b[j+1:j+5]) {
					return 0, 0, false, false
				}
				j += 4
			default:
				return 0, 0, false, false
			}
		case c < 0x20:
			return 0, 0, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return 0, 0, false, false
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unquote decodes the bytes of a string str checked, as encoding/json
// does: escapes, surrogate pairs joined (a lone surrogate is U+FFFD), and
// each byte of invalid UTF-8 as U+FFFD.
func unquote(s []byte) string {
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			i++
			switch s[i] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(s[i+1:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' && isHex4(s[i+3:]) {
						r2 = hex4(s[i+3:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default: // '"', '\\', '/'
				out = append(out, s[i])
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r)
			i += size
		}
	}
	return string(out)
}
