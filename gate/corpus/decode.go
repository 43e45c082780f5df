package corpus

import "github.com/recallgate/recallgate/gate/input"

// decodeLine reads the common shape of a corpus line,
// {"id":"…","title":"…","text":"…"} with the keys in any order, title and
// text optional and a "metadata" value beside them, several times faster
// than encoding/json. It reports ok=false for anything it does not fully
// understand (a key spelled otherwise, a key twice, a value that is not a
// string, metadata other than {} or null, an empty id, bad syntax); the
// caller then decodes the line with gate.DecodeStrict, which decides and
// explains. What it accepts it decodes exactly as encoding/json does
// (input.JSONScanner): escapes, \u surrogate pairs (a lone surrogate is
// U+FFFD), and each byte of invalid UTF-8 as U+FFFD.
//
// A line without escapes or invalid UTF-8 is copied into one string and
// the id, title and text are substrings of it: one allocation a line.
func decodeLine(line []byte) (d Document, ok bool) {
	p := input.NewJSONScanner(line)
	if !p.Byte('{') {
		return d, false
	}
	type span struct {
		start, end int
		plain, set bool
	}
	var id, title, text span
	meta := false
	if p.Peek() == '}' {
		return d, false // no id
	}
	for {
		key, kok := p.Key()
		if !kok {
			return d, false
		}
		var sp *span
		switch string(key) {
		case "id":
			sp = &id
		case "title":
			sp = &title
		case "text":
			sp = &text
		case "metadata":
			if meta || !p.EmptyValue() {
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
			start, end, plain, vok := p.StringSpan()
			if !vok {
				return d, false
			}
			*sp = span{start: start, end: end, plain: plain, set: true}
		}
		if p.Byte('}') {
			break
		}
		if !p.Byte(',') {
			return d, false
		}
	}
	if !p.End() || !id.set || id.start == id.end {
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
			return input.UnquoteJSON(line[sp.start:sp.end])
		case s != "":
			return s[sp.start:sp.end]
		}
		return string(line[sp.start:sp.end])
	}
	d = Document{ID: value(id), Title: value(title), Text: value(text)}
	return d, true
}
