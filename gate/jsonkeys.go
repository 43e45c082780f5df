package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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
// MaxJSONDepth, as a *DepthError. It runs in time and memory linear in the
// document. Malformed JSON is left to the decoder that reads the document.
func CheckDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := walkJSON(dec)
	if errors.Is(err, io.EOF) {
		return nil
	}
	var dk *DuplicateKeyError
	var de *DepthError
	if errors.As(err, &dk) || errors.As(err, &de) {
		return err
	}
	return nil
}

// jsonFrame is one open object or array of walkJSON: for an object the
// keys seen so far and the current one, for an array how many elements
// were started.
type jsonFrame struct {
	seen  map[string]bool // nil for an array
	key   string
	index int
}

// walkJSON reads one JSON value with an explicit stack, so neither time
// nor memory grows faster than the document (no path is built unless an
// error is reported).
func walkJSON(dec *json.Decoder) error {
	var stack []jsonFrame
	// path is where the value the frames lead to sits ("$.queries[3].base").
	path := func(frames []jsonFrame) string {
		var b strings.Builder
		b.WriteString("$")
		for _, f := range frames {
			if f.seen != nil {
				b.WriteString("." + f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.index-1)
			}
		}
		return b.String()
	}
	for {
		// Where the next token sits: a key is read first inside an object.
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if !dec.More() {
				if _, err := dec.Token(); err != nil { // the closing delimiter
					return err
				}
				stack = stack[:n-1]
				if len(stack) == 0 {
					return nil
				}
				continue
			}
			if top.seen != nil {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if top.seen[k] {
					return &DuplicateKeyError{Path: path(stack[:n-1]), Key: k}
				}
				top.seen[k] = true
				top.key = k
			} else {
				top.index++
			}
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			if len(stack) == 0 {
				return nil
			}
			continue
		}
		if len(stack) >= MaxJSONDepth {
			return &DepthError{Path: path(stack)}
		}
		f := jsonFrame{}
		if d == '{' {
			f.seen = map[string]bool{}
		}
		stack = append(stack, f)
	}
}
