package runfile

import (
	"strconv"
	"unicode/utf8"

	"github.com/recallgate/recallgate/gate"
)

// fastResult parses the common shape of a JSONL run line,
// {"id":"…","hits":[{"doc":"…","chunk":"…","score":1.5,"text":"…"},…]},
// several times faster than encoding/json. It reports ok=false for anything
// it does not fully understand (escapes it cannot decode, nulls, unknown keys,
// bad syntax); the caller then falls back to encoding/json, which decides and
// explains. It never accepts a line encoding/json would reject.
//
// The line is copied into one string and every unescaped value is a
// substring of it: one allocation per line instead of one per field.
// Callers that keep a value beyond scoring must clone it.
func fastResult(line []byte, hits []gate.Hit) (id string, out []gate.Hit, ok bool) {
	p := fastParser{b: line, s: string(line)}
	out = hits[:0]
	if !p.byte('{') {
		return "", nil, false
	}
	var haveID, haveHits bool
	for first := true; ; first = false {
		p.space()
		if p.peek() == '}' && first {
			p.i++
			break
		}
		if !first {
			if p.peek() == '}' {
				p.i++
				break
			}
			if !p.byte(',') {
				return "", nil, false
			}
		}
		key, kok := p.str()
		if !kok || !p.byte(':') {
			return "", nil, false
		}
		switch key {
		case "id":
			if haveID {
				return "", nil, false
			}
			id, kok = p.str()
			haveID = kok
		case "hits":
			if haveHits {
				return "", nil, false
			}
			out, kok = p.hits(out)
			haveHits = kok
		default:
			return "", nil, false
		}
		if !kok {
			return "", nil, false
		}
	}
	p.space()
	if p.i != len(p.b) || !haveID || !haveHits {
		return "", nil, false
	}
	return id, out, true
}

type fastParser struct {
	b []byte
	s string // the same bytes as b, for substrings
	i int
}

func (p *fastParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) peek() byte {
	p.space()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// byte consumes c after optional white space.
func (p *fastParser) byte(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// str reads a JSON string; escaped strings are decoded with strconv.Unquote
// when they are plain JSON escapes it understands.
func (p *fastParser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	escaped := false
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			raw := p.b[start:p.i]
			p.i++
			if !escaped {
				if !utf8.Valid(raw) {
					return "", false
				}
				return p.s[start : p.i-1], true
			}
			return unescapeJSON(raw)
		case c == '\\':
			escaped = true
			p.i += 2
			continue
		case c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// unescapeJSON decodes the simple escapes; \u escapes fall back.
func unescapeJSON(raw []byte) (string, bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", false
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return "", false
		}
	}
	if !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}

// number reads a JSON number, following the JSON grammar exactly:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (p *fastParser) number() (float64, bool) {
	p.space()
	b, start := p.b, p.i
	i := p.i
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	p.i = i
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	return f, err == nil
}

func (p *fastParser) hits(out []gate.Hit) ([]gate.Hit, bool) {
	if !p.byte('[') {
		return nil, false
	}
	if p.peek() == ']' {
		p.i++
		return out, true
	}
	for {
		h, ok := p.hit()
		if !ok {
			return nil, false
		}
		out = append(out, h)
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return out, true
		default:
			return nil, false
		}
	}
}

func (p *fastParser) hit() (gate.Hit, bool) {
	var h gate.Hit
	if !p.byte('{') {
		return h, false
	}
	var seen [4]bool
	for first := true; ; first = false {
		if p.peek() == '}' {
			p.i++
			return h, true
		}
		if !first && !p.byte(',') {
			return h, false
		}
		key, ok := p.str()
		if !ok || !p.byte(':') {
			return h, false
		}
		idx := -1
		switch key {
		case "doc":
			idx = 0
			h.Doc, ok = p.str()
		case "chunk":
			idx = 1
			h.Chunk, ok = p.str()
		case "score":
			idx = 2
			h.Score, ok = p.number()
		case "text":
			idx = 3
			h.Text, ok = p.str()
		}
		if idx < 0 || !ok || seen[idx] {
			return h, false
		}
		seen[idx] = true
	}
}
