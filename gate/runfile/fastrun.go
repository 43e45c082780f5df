package runfile

import (
	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

// fastResult parses the common shape of a JSONL run line,
// {"id":"…","hits":[{"doc":"…","chunk":"…","score":1.5,"text":"…"},…]},
// several times faster than encoding/json. It reports ok=false for anything
// it does not fully understand (a key spelled otherwise, nulls, unknown keys,
// bad syntax); the caller then falls back to encoding/json, which decides and
// explains. It never accepts a line encoding/json would reject, and decodes
// what it accepts as encoding/json does (input.JSONScanner): escapes, \u
// surrogate pairs (a lone surrogate is U+FFFD), each byte of invalid UTF-8
// as U+FFFD.
//
// The line is copied into one string and every plain value (no escape,
// valid UTF-8) is a substring of it: one allocation per line instead of
// one per field.
// Callers that keep a value beyond scoring must clone it.
func fastResult(line []byte, hits []gate.Hit) (id string, out []gate.Hit, ok bool) {
	p := newFastParser(line)
	out = hits[:0]
	if !p.Byte('{') {
		return "", nil, false
	}
	var haveID, haveHits bool
	for first := true; !p.Byte('}'); first = false {
		if !first && !p.Byte(',') {
			return "", nil, false
		}
		key, kok := p.Key()
		if !kok {
			return "", nil, false
		}
		switch string(key) {
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
	if !p.End() || !haveID || !haveHits {
		return "", nil, false
	}
	return id, out, true
}

// fastParser is input.JSONScanner over a run line, with the line as one
// string for the substrings of plain values.
type fastParser struct {
	input.JSONScanner
	b []byte // the scanned bytes
	s string // the same bytes as a string
}

// newFastParser returns a parser at the start of line, copying it into
// one string.
func newFastParser(line []byte) fastParser {
	return fastParser{JSONScanner: input.NewJSONScanner(line), b: line, s: string(line)}
}

// str reads a JSON string value: a substring of the line when it is plain,
// else decoded as encoding/json decodes it.
func (p *fastParser) str() (string, bool) {
	start, end, plain, ok := p.StringSpan()
	switch {
	case !ok:
		return "", false
	case plain:
		return p.s[start:end], true
	}
	return input.UnquoteJSON(p.b[start:end]), true
}

func (p *fastParser) hits(out []gate.Hit) ([]gate.Hit, bool) {
	if !p.Byte('[') {
		return nil, false
	}
	if p.Byte(']') {
		return out, true
	}
	for {
		h, ok := p.hit()
		if !ok {
			return nil, false
		}
		out = append(out, h)
		switch {
		case p.Byte(','):
		case p.Byte(']'):
			return out, true
		default:
			return nil, false
		}
	}
}

func (p *fastParser) hit() (gate.Hit, bool) {
	var h gate.Hit
	if !p.Byte('{') {
		return h, false
	}
	var seen [7]bool
	for first := true; !p.Byte('}'); first = false {
		if !first && !p.Byte(',') {
			return h, false
		}
		key, ok := p.Key()
		if !ok {
			return h, false
		}
		idx := -1
		switch string(key) {
		case "doc":
			idx = 0
			h.Doc, ok = p.str()
		case "chunk":
			idx = 1
			h.Chunk, ok = p.str()
		case "score":
			idx = 2
			h.Score, ok = p.Number()
		case "text":
			idx = 3
			h.Text, ok = p.str()
		case "start":
			idx = 4
			h.Start, ok = p.offset()
		case "end":
			idx = 5
			h.End, ok = p.offset()
		case "section":
			idx = 6
			h.Section, ok = p.str()
		}
		if idx < 0 || !ok || seen[idx] {
			return h, false
		}
		seen[idx] = true
	}
	return h, true
}

// offset reads a byte offset (input.JSONScanner.Offset): anything but
// plain digits is left to the strict decoder, which names it.
func (p *fastParser) offset() (*int, bool) {
	n, ok := p.Offset()
	if !ok {
		return nil, false
	}
	return &n, true
}
