package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DuplicateKeyError is a JSON object that names one key twice: Go's
// decoder keeps the last, another reader may keep the first, so the two
// would read different documents.
type DuplicateKeyError struct {
	// Path is where the object is ("$.queries[3].base"), Key the key.
	Path, Key string
}

// Error implements error.
func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("key %q appears twice in the object at %s", e.Key, e.Path)
}

// DepthError is a JSON document nested deeper than MaxJSONDepth.
type DepthError struct {
	// Path is where the limit was passed.
	Path string
}

// Error implements error.
func (e *DepthError) Error() string {
	return fmt.Sprintf("JSON nested more than %d levels deep (at %s)", MaxJSONDepth, e.Path)
}

// CheckDuplicateKeys reports the first object in a JSON document that has
// a key twice, as a *DuplicateKeyError, and a document nested deeper than
// MaxJSONDepth, as a *DepthError. It reads the first JSON value of data in
// one pass, in time linear in its length and memory linear in its depth
// (no path is built unless an error is reported). Malformed JSON is left
// to the decoder that reads the document.
func CheckDuplicateKeys(data []byte) error {
	s := keyScanner{JSONScanner: NewJSONScanner(data)}
	return s.run()
}

// keyFrame is one open object or array of a keyScanner: for an object
// where its keys start in keyScanner.keys (and a set of them once it has
// many) and the current key, for an array how many elements were started.
type keyFrame struct {
	object bool
	keys   int
	set    map[string]bool
	key    []byte
	index  int
}

// keyScanner walks JSON bytes, checking keys and depth. Its own string
// reader (str) passes over any escape: a malformed document is the
// decoder's to report.
type keyScanner struct {
	JSONScanner
	stack []keyFrame
	keys  [][]byte // the keys of every open object, innermost last
}

// manyKeys is when an object's keys move from a list to a set.
const manyKeys = 16

// path is where the value the frames lead to sits ("$.queries[3].base").
func path(frames []keyFrame) string {
	var b strings.Builder
	b.WriteString("$")
	for _, f := range frames {
		if f.object {
			b.WriteString("." + string(f.key))
		} else {
			fmt.Fprintf(&b, "[%d]", f.index-1)
		}
	}
	return b.String()
}

// str reads a string at s.i (its opening quote) and returns its bytes
// between the quotes and whether it holds an escape.
func (s *keyScanner) str() (raw []byte, escaped, ok bool) {
	start := s.i + 1
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '\\':
			escaped = true
			i++
		case c == '"':
			s.i = i + 1
			return s.b[start:i], escaped, true
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

// key reads an object key, as the decoder would read it.
func (s *keyScanner) key() ([]byte, bool) {
	start := s.i
	raw, escaped, ok := s.str()
	if !ok {
		return nil, false
	}
	if !escaped && utf8.Valid(raw) {
		return raw, true
	}
	var k string
	if err := json.Unmarshal(s.b[start:s.i], &k); err != nil {
		return nil, false
	}
	return []byte(k), true
}

// seen records k as a key of the innermost object and reports whether it
// was there already.
func (s *keyScanner) seen(k []byte) bool {
	top := &s.stack[len(s.stack)-1]
	top.key = k
	if top.set != nil {
		if top.set[string(k)] {
			return true
		}
		top.set[string(k)] = true
		return false
	}
	own := s.keys[top.keys:]
	for _, o := range own {
		if bytes.Equal(o, k) {
			return true
		}
	}
	s.keys = append(s.keys, k)
	if len(own)+1 > manyKeys {
		top.set = make(map[string]bool, 2*manyKeys)
		for _, o := range s.keys[top.keys:] {
			top.set[string(o)] = true
		}
	}
	return false
}

// run walks the first value of s.b. A nil error for malformed JSON.
func (s *keyScanner) run() error {
	const (
		value = iota // a value starts
		after        // a value ended
		key          // an object key starts
	)
	mode := value
	for {
		s.Space()
		if s.i >= len(s.b) {
			return nil
		}
		c := s.b[s.i]
		switch mode {
		case value:
			switch c {
			case '{', '[':
				if len(s.stack) >= MaxJSONDepth {
					return &DepthError{Path: path(s.stack)}
				}
				s.i++
				s.stack = append(s.stack, keyFrame{object: c == '{', keys: len(s.keys)})
				s.Space()
				if s.i < len(s.b) && (s.b[s.i] == '}' || s.b[s.i] == ']') {
					mode = after // closed by the after case
					continue
				}
				if c == '{' {
					mode = key
				} else {
					s.stack[len(s.stack)-1].index++
				}
			case '"':
				if _, _, ok := s.str(); !ok {
					return nil
				}
				mode = after
			default:
				start := s.i
				for s.i < len(s.b) && (s.b[s.i] == '-' || s.b[s.i] == '+' || s.b[s.i] == '.' || (s.b[s.i] >= '0' && s.b[s.i] <= '9') || (s.b[s.i] >= 'a' && s.b[s.i] <= 'z') || s.b[s.i] == 'E') {
					s.i++
				}
				if s.i == start {
					return nil
				}
				mode = after
			}
		case key:
			if c != '"' {
				return nil
			}
			k, ok := s.key()
			if !ok {
				return nil
			}
			if s.seen(k) {
				return &DuplicateKeyError{Path: path(s.stack[:len(s.stack)-1]), Key: string(k)}
			}
			s.Space()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return nil
			}
			s.i++
			mode = value
		case after:
			n := len(s.stack)
			if n == 0 {
				return nil
			}
			top := &s.stack[n-1]
			switch {
			case c == ',' && top.object:
				s.i++
				mode = key
			case c == ',':
				s.i++
				top.index++
				mode = value
			case (c == '}' && top.object) || (c == ']' && !top.object):
				s.i++
				s.keys = s.keys[:top.keys]
				s.stack = s.stack[:n-1]
				if len(s.stack) == 0 {
					return nil
				}
			default:
				return nil
			}
		}
	}
}
