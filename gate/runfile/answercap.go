package runfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

// DecodeResultCapped reads one answer, {"id":"…","hits":[…]} with an
// optional "context" (the passages the pipeline handed the model, at most
// maxHits of them) and "abstain" (a boolean), from r with the rules of a
// run line (id and hits required, unknown or repeated keys refused, every
// kept hit and passage names its document) and keeps only its first
// maxHits hits: the rest are checked as JSON and counted, never decoded,
// so an answer of a million hits costs the memory of maxHits. r must end
// after the object (trailing white space is allowed); name is used in
// error messages. total is the number of hits the answer held. One value
// of the answer (the id, a key, one hit) may hold at most
// MaxAnswerValueBytes, so the decoder never buffers more. An error
// of r itself (a deadline, a length limit, io.EOF before the object, or
// io.ErrUnexpectedEOF inside it) is returned as it is, so the caller can
// tell a stream that stopped from an answer that is wrong, which is an
// *InputError.
func DecodeResultCapped(r io.Reader, name string, maxHits int) (gate.Result, int, error) {
	return DecodeAnswerCapped(r, name, maxHits, "")
}

// AnswerIDError is an answer that names another query than the one
// asked: DecodeAnswerCapped says so before anything else of the line, so
// no error about the answer's hits is told as the asked query's.
type AnswerIDError struct {
	// Want is the query asked; Got the id the answer carries.
	Want, Got string
}

// Error names the id the answer carries and the query asked.
func (e *AnswerIDError) Error() string {
	return fmt.Sprintf("an answer for %q where %q was asked", e.Got, e.Want)
}

// DecodeAnswerCapped is DecodeResultCapped for the answer to the query
// want: an answer whose id is another is an *AnswerIDError, whatever else
// is wrong with it ("" accepts any id).
func DecodeAnswerCapped(r io.Reader, name string, maxHits int, want string) (gate.Result, int, error) {
	vr := &valueReader{r: r, max: MaxAnswerValueBytes}
	res, total, err := decodeResultCapped(vr, name, maxHits, want)
	if err == nil {
		return res, total, nil
	}
	var idErr *AnswerIDError
	if errors.As(err, &idErr) {
		return gate.Result{}, 0, idErr
	}
	if errors.Is(err, errValueTooLong) {
		return gate.Result{}, 0, input.Errf(name, 0, vr.field, "longer than %d MiB (the most one value of an answer may hold)", MaxAnswerValueBytes>>20)
	}
	var in *gate.InputError
	var syn *json.SyntaxError
	var dup *gate.DuplicateKeyError
	switch {
	case errors.As(err, &in):
	case errors.As(err, &syn), errors.As(err, &dup), errors.Is(err, errNotObject), errors.Is(err, errTrailing):
		in = input.JSONLineError(name, 0, err)
	default:
		return gate.Result{}, 0, err
	}
	in.Field = clipField(in.Field) // a key is the answer's text: up to 4 MiB
	return gate.Result{}, 0, in
}

// clipField cuts a field path (which may quote a hostile key) for an error.
func clipField(f string) string {
	const most = 80
	if len(f) <= most {
		return f
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(f[cut]) {
		cut--
	}
	return f[:cut] + "…"
}

var (
	errNotObject = errors.New("an answer must be a JSON object")
	errTrailing  = errors.New("unexpected data after the JSON object")
)

// MaxAnswerValueBytes is the most one value of an answer may hold: the
// id, a key, or one hit with its text (4 MiB).
const MaxAnswerValueBytes = 4 << 20

// valueReader counts the bytes the decoder reads since the value it is
// on began (mark), and stops past max: the decoder buffers one value
// whole, so this bounds its buffer. Each read is at most readChunk, so
// the count overshoots a value by less than that.
type valueReader struct {
	r          io.Reader
	since, max int
	field      string
}

const readChunk = 64 << 10

var errValueTooLong = errors.New("answer value too long")

func (v *valueReader) mark(field string) { v.since, v.field = 0, field }

// Read implements io.Reader.
func (v *valueReader) Read(p []byte) (int, error) {
	if v.since > v.max+readChunk {
		return 0, errValueTooLong
	}
	n, err := v.r.Read(p[:min(len(p), readChunk)])
	v.since += n
	return n, err
}

func decodeResultCapped(vr *valueReader, name string, maxHits int, want string) (res gate.Result, total int, err error) {
	dec := json.NewDecoder(vr)
	vr.mark("")
	tok, err := dec.Token()
	if err != nil {
		return gate.Result{}, 0, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return gate.Result{}, 0, errNotObject
	}
	var id *string
	haveHits, haveContext := false, false
	for dec.More() {
		vr.mark("")
		kt, err := dec.Token()
		if err != nil {
			return gate.Result{}, 0, err
		}
		key, _ := kt.(string)
		switch key {
		case "id":
			if id != nil {
				return gate.Result{}, 0, &gate.DuplicateKeyError{Path: "$", Key: key}
			}
			vr.mark("id")
			if err := dec.Decode(&id); err != nil {
				return gate.Result{}, 0, answerFieldErr(name, "id", err)
			}
			if id == nil {
				id = new(string) // null: refused below as empty
			}
			if want != "" && *id != "" && *id != want {
				return gate.Result{}, 0, &AnswerIDError{Want: want, Got: *id}
			}
		case "hits":
			if haveHits {
				return gate.Result{}, 0, &gate.DuplicateKeyError{Path: "$", Key: key}
			}
			haveHits = true
			if res.Hits, total, err = decodeHitsCapped(dec, vr, name, maxHits); err != nil {
				return gate.Result{}, 0, err
			}
		case "context":
			if haveContext {
				return gate.Result{}, 0, &gate.DuplicateKeyError{Path: "$", Key: key}
			}
			haveContext = true
			if res.Context, err = decodeContextCapped(dec, vr, name, maxHits); err != nil {
				return gate.Result{}, 0, err
			}
		case "abstain":
			if res.Abstain != nil {
				return gate.Result{}, 0, &gate.DuplicateKeyError{Path: "$", Key: key}
			}
			vr.mark("abstain")
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return gate.Result{}, 0, err
			}
			var b bool
			if string(raw) != "true" && string(raw) != "false" || json.Unmarshal(raw, &b) != nil {
				return gate.Result{}, 0, input.Errf(name, 0, "abstain", "must be true or false (the pipeline's refusal signal), got %s", clipField(string(raw)))
			}
			res.Abstain = &b
		default:
			return gate.Result{}, 0, input.Errf(name, 0, key, "unknown field (an answer has id, hits, context and abstain)")
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return gate.Result{}, 0, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errTrailing
		}
		return gate.Result{}, 0, err
	}
	if id == nil || *id == "" {
		return gate.Result{}, 0, input.Errf(name, 0, "id", "required and must not be empty")
	}
	if want != "" && *id != want {
		return gate.Result{}, 0, &AnswerIDError{Want: want, Got: *id}
	}
	if !haveHits {
		return gate.Result{}, 0, input.Errf(name, 0, "hits", "query %q: required (use [] for no results)", gate.ClipID(*id))
	}
	res.ID = *id
	if res.Hits == nil {
		res.Hits = []gate.Hit{}
	}
	r2, err := checkResult(res, name)
	return r2, total, err
}

// answerFieldErr names the field of a value that did not decode.
func answerFieldErr(name, field string, err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return input.Errf(name, 0, field, "wrong type: got JSON %s, want %s", typ.Value, input.JSONTypeName(typ.Type))
	}
	return err
}

// decodeHitsCapped reads the hits array, keeping the first maxHits.
func decodeHitsCapped(dec *json.Decoder, vr *valueReader, name string, maxHits int) ([]gate.Hit, int, error) {
	vr.mark("hits")
	tok, err := dec.Token()
	if err != nil {
		return nil, 0, err
	}
	if tok == nil {
		return nil, 0, input.Errf(name, 0, "hits", "required (use [] for no results), not null")
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, 0, input.Errf(name, 0, "hits", "must be an array of hits")
	}
	hits := []gate.Hit{}
	total := 0
	var raw json.RawMessage
	for dec.More() {
		vr.mark(fmt.Sprintf("hits[%d]", total))
		if total >= maxHits {
			var skip skipValue
			if err := dec.Decode(&skip); err != nil {
				return nil, 0, err
			}
			total++
			continue
		}
		raw = raw[:0]
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, err
		}
		h, err := parseHit(raw, name, total)
		if err != nil {
			return nil, 0, err
		}
		hits = append(hits, h)
		total++
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, 0, err
	}
	return hits, total, nil
}

// decodeContextCapped reads the context array: at most maxPassages
// passages, each decoded strictly (doc, chunk, text, tokens). null is no
// context, as if the key were absent.
func decodeContextCapped(dec *json.Decoder, vr *valueReader, name string, maxPassages int) ([]gate.Passage, error) {
	vr.mark("context")
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, input.Errf(name, 0, "context", "must be an array of passages ({\"doc\",\"chunk\",\"text\",\"tokens\"}), not %s", tokenKind(tok))
	}
	ctx := []gate.Passage{}
	var raw json.RawMessage
	for i := 0; dec.More(); i++ {
		field := fmt.Sprintf("context[%d]", i)
		if i >= maxPassages {
			return nil, input.Errf(name, 0, field, "the context holds more than %d passages (the most an answer's context may hold)", maxPassages)
		}
		vr.mark(field)
		raw = raw[:0]
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		var p gate.Passage
		if err := gate.DecodeStrict(raw, &p); err != nil {
			e := input.JSONLineError(name, 0, err)
			e.Field = field + dotted(e.Field)
			return nil, e
		}
		ctx = append(ctx, p)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, err
	}
	return ctx, nil
}

// tokenKind names a JSON token's kind for a message.
func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}

// parseHit decodes one hit object with the run line's rules: the fast
// path first, encoding/json (strict) when it declines.
func parseHit(raw []byte, name string, i int) (gate.Hit, error) {
	p := newFastParser(raw)
	if h, ok := p.hit(); ok && p.End() {
		return h, nil
	}
	var h gate.Hit
	if err := gate.DecodeStrict(raw, &h); err != nil {
		e := input.JSONLineError(name, 0, err)
		e.Field = fmt.Sprintf("hits[%d]", i) + dotted(e.Field)
		return gate.Hit{}, e
	}
	return h, nil
}

// dotted prefixes a non-empty field path with a dot.
func dotted(field string) string {
	if field == "" {
		return ""
	}
	return "." + field
}

// skipValue is a hit past the cap: the decoder checks its syntax and
// hands it over without a copy, and it is dropped.
type skipValue struct{}

// UnmarshalJSON drops the value.
func (*skipValue) UnmarshalJSON([]byte) error { return nil }
