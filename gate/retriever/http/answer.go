// The answer: the hits, the final context and the refusal signal read out
// of a JSON body along the configured dot paths.

package httpretriever

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

// lookup follows a path of object keys and array indexes.
func lookup(v any, path []string) (any, bool) {
	for _, seg := range path {
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// parse extracts the hits from a JSON answer, keeping the first keep of
// them: the rest are counted (total) and skipped token by token, never
// built. The answer is checked for duplicate keys and nesting first
// (gate.CheckDuplicateKeys), then read as a stream: nothing but the hits
// kept is held beyond the body itself.
func (r *Retriever) parse(body []byte, keep int) (hits []gate.Hit, total int, err error) {
	if err := gate.CheckDuplicateKeys(body); err != nil {
		var de *gate.DepthError
		if errors.As(err, &de) {
			return nil, 0, fmt.Errorf("answer refused: %v", err)
		}
		return nil, 0, fmt.Errorf("answer is ambiguous: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	a := answerWalk{r: r, dec: dec, keep: keep}
	found, err := a.value(r.hits, a.hitList)
	if err != nil {
		var he hitError
		if errors.As(err, &he) {
			return nil, 0, he.err
		}
		return nil, 0, fmt.Errorf("answer is not JSON: %v%s", err, excerpt(body))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, 0, fmt.Errorf("answer has data after its JSON value%s", excerpt(body))
	}
	if !found {
		return nil, 0, fmt.Errorf("answer has no %q", r.cfg.Hits)
	}
	if a.hits == nil {
		a.hits = []gate.Hit{}
	}
	return a.hits, a.total, nil
}

// hitError is a well-formed answer the config cannot read (a hit without
// its document id, the hits path not an array): said as it is, not as
// "not JSON".
type hitError struct{ err error }

func (e hitError) Error() string { return e.err.Error() }

// answerWalk reads one answer as a stream of tokens.
type answerWalk struct {
	r     *Retriever
	dec   *json.Decoder
	keep  int
	hits  []gate.Hit
	total int
}

// value reads one JSON value; path is what is left of the path sought
// below it, and leaf reads the value found there. It reports whether the
// path was found in the value.
func (a *answerWalk) value(path []string, leaf func() error) (bool, error) {
	if len(path) == 0 {
		return true, leaf()
	}
	tok, err := a.dec.Token()
	if err != nil {
		return false, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return false, nil
	}
	found := false
	switch d {
	case '{':
		for a.dec.More() {
			kt, err := a.dec.Token()
			if err != nil {
				return false, err
			}
			var f bool
			if k, _ := kt.(string); k == path[0] && !found {
				f, err = a.value(path[1:], leaf)
			} else {
				err = skipValue(a.dec)
			}
			if err != nil {
				return false, err
			}
			found = found || f
		}
	case '[':
		want, aerr := strconv.Atoi(path[0])
		for i := 0; a.dec.More(); i++ {
			var f bool
			if aerr == nil && i == want {
				f, err = a.value(path[1:], leaf)
			} else {
				err = skipValue(a.dec)
			}
			if err != nil {
				return false, err
			}
			found = found || f
		}
	}
	_, err = a.dec.Token() // the closing delimiter
	return found, err
}

// hitList reads the hits array: the first keep hits are built, the rest
// only counted.
func (a *answerWalk) hitList() error {
	var first any
	tok, err := a.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		if ok && d == '{' {
			first = map[string]any{}
		} else {
			first = tok
		}
		return hitError{fmt.Errorf("%q in the answer is not an array (it is %s)", a.r.cfg.Hits, jsonKind(first))}
	}
	for i := 0; a.dec.More(); i++ {
		a.total++
		if i >= a.keep {
			if err := skipValue(a.dec); err != nil {
				return err
			}
			continue
		}
		var item any
		if err := a.dec.Decode(&item); err != nil {
			return err
		}
		h, err := a.r.hit(i, item)
		if err != nil {
			return hitError{err}
		}
		a.hits = append(a.hits, h)
	}
	_, err = a.dec.Token() // the closing ']'
	return err
}

// parseAnswer reads the final context and the refusal signal at their
// configured paths (each a walk of its own over the answer, which parse
// has checked): nil for a path not configured. More than keep passages
// is an error, as is a path the answer lacks.
func (r *Retriever) parseAnswer(body []byte, keep int) (ctx []gate.Passage, abstain *bool, err error) {
	walk := func(path []string, name string, leaf func(a *answerWalk) error) error {
		a := &answerWalk{r: r, dec: json.NewDecoder(bytes.NewReader(body)), keep: keep}
		a.dec.UseNumber()
		found, err := a.value(path, func() error { return leaf(a) })
		var he hitError
		switch {
		case errors.As(err, &he):
			return he.err
		case err != nil:
			return fmt.Errorf("answer is not JSON: %v%s", err, excerpt(body))
		case !found:
			return fmt.Errorf("answer has no %q (the %s path)", strings.Join(path, "."), name)
		}
		return nil
	}
	if r.context != nil {
		if err := walk(r.context, "context", func(a *answerWalk) error {
			var err error
			ctx, err = a.contextList()
			return err
		}); err != nil {
			return nil, nil, err
		}
	}
	if r.abstain != nil {
		if err := walk(r.abstain, "abstain", func(a *answerWalk) error {
			var v any
			if err := a.dec.Decode(&v); err != nil {
				return err
			}
			b, ok := v.(bool)
			if !ok {
				return hitError{fmt.Errorf("%q in the answer is %s, not a boolean (true when the pipeline refused)", r.cfg.Abstain, jsonKind(v))}
			}
			abstain = &b
			return nil
		}); err != nil {
			return nil, nil, err
		}
	}
	return ctx, abstain, nil
}

// contextList reads the context array one passage at a time, each
// through the configured paths: past keep passages the answer is refused
// before the next is built, so a flood of small passages costs the memory
// of keep of them, never the whole array's decoded tree.
func (a *answerWalk) contextList() ([]gate.Passage, error) {
	tok, err := a.dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		var item any = tok
		if ok && d == '{' {
			item = map[string]any{}
		}
		return nil, hitError{fmt.Errorf("%q in the answer is not an array of passages (it is %s)", a.r.cfg.Context, jsonKind(item))}
	}
	out := []gate.Passage{}
	for i := 0; a.dec.More(); i++ {
		if i >= a.keep {
			return nil, hitError{fmt.Errorf("%q in the answer holds more than %d passages (the most a context may hold)", a.r.cfg.Context, a.keep)}
		}
		var item any
		if err := a.dec.Decode(&item); err != nil {
			return nil, err
		}
		p, err := a.r.passage(i, item)
		if err != nil {
			return nil, hitError{err}
		}
		out = append(out, p)
	}
	if _, err := a.dec.Token(); err != nil { // the closing bracket
		return nil, err
	}
	return out, nil
}

// passage reads passage i of a context with the configured paths.
func (r *Retriever) passage(i int, item any) (gate.Passage, error) {
	var p gate.Passage
	name := func(f int) string { return strings.Join(r.cfields[f], ".") }
	doc, ok := lookup(item, r.cfields[0])
	if !ok {
		return p, fmt.Errorf("context passage %d has no %q (passage without a document id)", i, name(0))
	}
	if p.Doc, ok = scalar(doc); !ok || strings.TrimSpace(p.Doc) == "" {
		return p, fmt.Errorf("context passage %d: %q is not a non-empty string or number", i, name(0))
	}
	if v, ok := lookup(item, r.cfields[1]); ok {
		p.Chunk, _ = scalar(v)
	}
	if v, ok := lookup(item, r.cfields[2]); ok {
		p.Text, _ = scalar(v)
	}
	if v, ok := lookup(item, r.cfields[3]); ok && v != nil {
		n, isNum := v.(json.Number)
		t, err := n.Int64()
		switch {
		case !isNum || err != nil:
			return p, fmt.Errorf("context passage %d: %q is %s, not a whole number of tokens", i, name(3), jsonKind(v))
		case t < 0:
			return p, fmt.Errorf("context passage %d: %q is %d, negative", i, name(3), t)
		case t > math.MaxInt32:
			return p, fmt.Errorf("context passage %d: %q is %d, too many tokens for one passage", i, name(3), t)
		}
		tokens := int(t)
		p.Tokens = &tokens
	}
	return p, nil
}

// skipValue reads one JSON value and drops it: the decoder's scanner
// checks it, and the one copy it makes is garbage at once.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// hit reads hit i of an answer with the configured paths.
func (r *Retriever) hit(i int, item any) (gate.Hit, error) {
	var h gate.Hit
	doc, ok := lookup(item, r.fields[0])
	if !ok {
		return h, fmt.Errorf("hit %d has no %q", i, r.cfg.Doc)
	}
	if h.Doc, ok = scalar(doc); !ok || h.Doc == "" {
		return h, fmt.Errorf("hit %d: %q is not a non-empty string or number", i, r.cfg.Doc)
	}
	if v, ok := lookup(item, r.fields[1]); ok && r.fields[1] != nil {
		h.Chunk, _ = scalar(v)
	}
	if v, ok := lookup(item, r.fields[2]); ok && r.fields[2] != nil && v != nil {
		n, isNum := v.(json.Number)
		if !isNum {
			return h, fmt.Errorf("hit %d: %q is %s, not a number", i, r.cfg.Score, jsonKind(v))
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return h, fmt.Errorf("hit %d: score %s is not a finite number", i, n)
		}
		h.Score = f
	}
	if v, ok := lookup(item, r.fields[3]); ok && r.fields[3] != nil {
		h.Text, _ = scalar(v)
	}
	return h, r.placeHit(i, item, &h)
}

// placeHit reads a hit's start, end and section at their paths, when
// configured: the offsets whole numbers, both or neither.
func (r *Retriever) placeHit(i int, item any, h *gate.Hit) error {
	names := [2]string{r.cfg.Start, r.cfg.End}
	var at [2]*int
	for k := range 2 {
		v, ok := lookup(item, r.place[k])
		if !ok || r.place[k] == nil || v == nil {
			continue
		}
		n, isNum := v.(json.Number)
		t, err := n.Int64()
		if !isNum || err != nil || t < 0 || t > math.MaxInt32 {
			return fmt.Errorf("hit %d: %q is %s, not a byte offset (a whole number ≥ 0)", i, names[k], jsonKind(v))
		}
		o := int(t)
		at[k] = &o
	}
	if (at[0] == nil) != (at[1] == nil) {
		return fmt.Errorf("hit %d has one of %q and %q but not the other", i, r.cfg.Start, r.cfg.End)
	}
	h.Start, h.End = at[0], at[1]
	if v, ok := lookup(item, r.place[2]); ok && r.place[2] != nil {
		h.Section, _ = scalar(v)
	}
	return nil
}

// scalar renders a JSON string or number as a string.
func scalar(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	}
	return "", false
}

// jsonKind names a decoded JSON value's kind as JSON does.
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return "a number"
}

// The http retriever answers queries as gate.AnswerRetriever says.
var _ gate.AnswerRetriever = (*Retriever)(nil)

// Lookup follows a dot path ("a.b.0.c": object keys and array indexes)
// in a decoded JSON value; false when the path names nothing.
func Lookup(v any, path string) (any, bool) { return lookup(v, splitPath(path)) }
