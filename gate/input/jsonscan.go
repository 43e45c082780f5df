package input

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// JSONScanner reads the tokens of one JSON text, a line of a corpus or of
// a run, for the fast decoders of those lines' common shape: each decoder
// knows its keys and walks the line with these methods instead of
// encoding/json, several times faster.
//
// A method reads only what encoding/json reads the same way and reports
// anything else as not ok (Peek as the byte that is there, 0 at the end);
// after a not ok the decoder gives up on the scanner, whose position is
// then unspecified, and hands the whole line to DecodeStrict, which
// decides and explains. Every method skips the JSON white space (space,
// tab, CR, LF) before its token.
type JSONScanner struct {
	b []byte
	i int
}

// NewJSONScanner returns a scanner at the start of b.
func NewJSONScanner(b []byte) JSONScanner { return JSONScanner{b: b} }

// Space skips JSON white space.
func (s *JSONScanner) Space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte without reading it; 0
// at the end.
func (s *JSONScanner) Peek() byte {
	s.Space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// Byte skips white space and reads c if it comes next.
func (s *JSONScanner) Byte(c byte) bool {
	if s.Peek() != c {
		return false
	}
	s.i++
	return true
}

// End skips white space and reports whether nothing is left.
func (s *JSONScanner) End() bool {
	s.Space()
	return s.i == len(s.b)
}

// MaxFastKey is the longest object key Key reads, in bytes; no key a fast
// decoder knows is longer.
const MaxFastKey = 16

// Key reads an object key and the colon after it, and returns the key's
// bytes (valid until b changes). It reads only a key of at most MaxFastKey
// bytes of ASCII written without escapes: encoding/json matches a key to
// a field after decoding its escapes and ignoring case, so a decoder that
// compares the bytes exactly leaves any other key to it.
func (s *JSONScanner) Key() ([]byte, bool) {
	if s.Peek() != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b) && j <= start+MaxFastKey; j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			if !s.Byte(':') {
				return nil, false
			}
			return s.b[start:j], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// StringSpan reads a JSON string value: b[start:end] are the bytes
// between its quotes, plain says they are its value as they are (no
// escape, valid UTF-8); UnquoteJSON decodes the others. A control character,
// an escape encoding/json refuses or a missing closing quote is not ok.
func (s *JSONScanner) StringSpan() (start, end int, plain, ok bool) {
	if s.Peek() != '"' {
		return 0, 0, false, false
	}
	start = s.i + 1
	plain, ascii := true, true
	for j := start; j < len(s.b); j++ {
		c := s.b[j]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(s.b[start:j]) {
				plain = false // each bad byte becomes U+FFFD
			}
			s.i = j + 1
			return start, j, plain, true
		case c == '\\':
			plain = false
			j++
			if j >= len(s.b) {
				return 0, 0, false, false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) || !isHex4(s.b[j+1:j+5]) {
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

// EmptyValue reads {} or null: a value that holds nothing.
func (s *JSONScanner) EmptyValue() bool {
	switch {
	case s.Byte('{'):
		return s.Byte('}')
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null":
		s.i += 4
		return true
	}
	return false
}

// Number reads a JSON number, following the JSON grammar exactly,
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?,
// as a float64; one out of its range is not ok (encoding/json refuses it).
func (s *JSONScanner) Number() (float64, bool) {
	s.Space()
	b, start := s.b, s.i
	i := s.i
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
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	if err != nil {
		return 0, false
	}
	s.i = i
	return f, true
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

// UnquoteJSON decodes the bytes of a string StringSpan read (and only
// those: other bytes may make it panic) as encoding/json does: escapes
// decoded, a \u surrogate pair joined (a lone surrogate is U+FFFD), and
// each byte of invalid UTF-8 U+FFFD.
func UnquoteJSON(raw []byte) string {
	out := make([]byte, 0, len(raw)+8)
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			i++
			switch raw[i] {
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
				r := hex4(raw[i+1:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := utf8.RuneError
					if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' && isHex4(raw[i+3:]) {
						r2 = hex4(raw[i+3:])
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
				out = append(out, raw[i])
			}
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			out = utf8.AppendRune(out, r)
			i += size
		}
	}
	return string(out)
}

// Offset reads a whole number written as plain digits, as encoding/json
// reads one into an int: no sign, fraction or exponent, no leading zero,
// at most 15 digits (ok false for anything else, nothing read).
func (s *JSONScanner) Offset() (int, bool) {
	s.Space()
	i, n := s.i, 0
	for i < len(s.b) && '0' <= s.b[i] && s.b[i] <= '9' {
		if i > s.i && n == 0 || i-s.i == 15 {
			return 0, false
		}
		n = n*10 + int(s.b[i]-'0')
		i++
	}
	if i == s.i || i < len(s.b) && (s.b[i] == '.' || s.b[i] == 'e' || s.b[i] == 'E') {
		return 0, false
	}
	s.i = i
	return n, true
}
