package runfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

// ReadRunFile streams the results of a run file to fn, one query at a time,
// and returns its metadata line (empty when it has none).
func ReadRunFile(path string, fn func(gate.Result) error) (gate.RunMeta, error) {
	f, err := input.Open(path)
	if err != nil {
		return gate.RunMeta{}, &gate.InputError{File: path, Err: fmt.Errorf("open run: %w", err)}
	}
	defer f.Close()
	var meta gate.RunMeta
	err = ReadRunMeta(f, path, fn, func(m gate.RunMeta) { meta = m })
	return meta, err
}

// ReadRunFileOnly is ReadRunFile for a reader that needs only the queries
// keep accepts (a drift baseline read against today's set): a line, or a
// TREC block, of another id is checked as ReadRun checks it and then
// counted, never passed to fn nor remembered (so such an id given twice
// is not found), and the memory a run of millions of ids the set lacks
// takes is that of one line. It returns the metadata line and the count.
func ReadRunFileOnly(path string, keep func(id string) bool, fn func(gate.Result) error) (gate.RunMeta, int, error) {
	f, err := input.Open(path)
	if err != nil {
		return gate.RunMeta{}, 0, &gate.InputError{File: path, Err: fmt.Errorf("open run: %w", err)}
	}
	defer f.Close()
	var meta gate.RunMeta
	others, err := readRun(f, path, keep, fn, func(m gate.RunMeta) { meta = m })
	return meta, others, err
}

// ReadRun is ReadRunMeta ignoring the metadata line.
func ReadRun(r io.Reader, name string, fn func(gate.Result) error) error {
	return ReadRunMeta(r, name, fn, nil)
}

// ReadRun streams a run to fn, one query at a time, without holding the whole
// run in memory. The format is detected from the first non-blank line: a JSON
// object means JSONL (`{"id","hits":[…]}` a line), anything else a TREC run
// (`qid Q0 docid rank score tag`).
//
// TREC results are ordered as trec_eval orders them: by score descending, ties
// by docid descending (byte order); the rank column is ignored. The lines of
// one query must be contiguous. A query id appearing twice is an error in
// both formats. The Result passed to fn is reused after fn returns. A JSONL
// run may start with a RunMeta line, passed to meta when it is not nil.
func ReadRunMeta(r io.Reader, name string, fn func(gate.Result) error, meta func(gate.RunMeta)) error {
	_, err := readRun(r, name, nil, fn, meta)
	return err
}

// readRun is ReadRunMeta passing fn only the queries keep accepts (all
// when keep is nil), and counting the others (ReadRunFileOnly).
func readRun(r io.Reader, name string, keep func(string) bool, fn func(gate.Result) error, meta func(gate.RunMeta)) (others int, _ error) {
	format := ""
	var skipping []byte // the qid of the TREC block being skipped
	skip := false
	first := true
	seen := map[string]int{}
	var trec trecGroup
	var scratch []gate.Hit
	err := input.EachLine(r, name, gate.MaxRunLineBytes, func(line []byte, n int) error {
		if format == "" {
			format = "trec"
			if input.LooksJSON(line) {
				format = "jsonl"
			}
		}
		if format == "jsonl" {
			if first {
				first = false
				if bytes.Contains(line, []byte(`"recallgate"`)) {
					var m struct {
						Recallgate *gate.RunMeta `json:"recallgate"`
					}
					if err := gate.DecodeStrict(line, &m); err == nil && m.Recallgate != nil {
						if meta != nil {
							meta(*m.Recallgate)
						}
						return nil
					}
				}
			}
			res, err := parseResultLine(line, name, n, scratch)
			if err != nil {
				return err
			}
			scratch = res.Hits
			if keep != nil && !keep(res.ID) {
				others++
				return nil
			}
			if prev, dup := seen[res.ID]; dup {
				return input.Errf(name, n, "id", "query %q appears twice in the run (first on line %d)", gate.ClipID(res.ID), prev)
			}
			seen[strings.Clone(res.ID)] = n
			if err := fn(res); err != nil {
				return err
			}
			return nil
		}
		qidb, doc, score, err := parseTRECLine(line, name, n)
		if err != nil {
			return err
		}
		if len(qidb) > gate.MaxRunIDBytes {
			return input.Errf(name, n, "qid", "%d bytes, over the %d-byte limit of a query id", len(qidb), gate.MaxRunIDBytes)
		}
		if skip && bytes.Equal(qidb, skipping) {
			return nil
		}
		if string(qidb) != trec.res.ID || trec.res.Line == 0 {
			qid := string(qidb)
			if trec.res.Line != 0 {
				if err := trec.flush(fn); err != nil {
					return err
				}
				trec.res.Line = 0
			}
			if skip = keep != nil && !keep(qid); skip {
				skipping = append(skipping[:0], qidb...)
				others++
				return nil
			}
			if prev, dup := seen[qid]; dup {
				return input.Errf(name, n, "qid", "query %q starts a second block (first block on line %d); keep each query's lines together, e.g. sort -s -k1,1", gate.ClipID(qid), prev)
			}
			seen[qid] = n
			trec.start(qid, n)
		}
		trec.add(doc, score)
		return nil
	})
	if err != nil {
		return others, err
	}
	if format == "" {
		return others, input.Errf(name, 0, "", "run is empty: no results")
	}
	if trec.res.Line != 0 {
		return others, trec.flush(fn)
	}
	return others, nil
}

// trecGroup collects the contiguous lines of one query of a TREC run.
// The docids of one query are gathered in one byte arena and become
// substrings of a single string at flush: one allocation per query instead
// of one per line.
type trecGroup struct {
	res   gate.Result
	arena []byte
	ends  []int
}

func (g *trecGroup) start(qid string, line int) {
	g.res.ID, g.res.Line, g.res.Hits = qid, line, g.res.Hits[:0]
	g.arena, g.ends = g.arena[:0], g.ends[:0]
}

func (g *trecGroup) add(doc []byte, score float64) {
	g.arena = append(g.arena, doc...)
	g.ends = append(g.ends, len(g.arena))
	g.res.Hits = append(g.res.Hits, gate.Hit{Score: score})
}

func (g *trecGroup) flush(fn func(gate.Result) error) error {
	docs := string(g.arena)
	start := 0
	for i, end := range g.ends {
		g.res.Hits[i].Doc = docs[start:end]
		start = end
	}
	order := func(a, b gate.Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return -strings.Compare(a.Doc, b.Doc)
	}
	// Runs usually arrive in trec_eval's order already: check in one pass
	// before sorting (a stable sort of sorted input changes nothing).
	if !slices.IsSortedFunc(g.res.Hits, order) {
		slices.SortStableFunc(g.res.Hits, order)
	}
	return fn(g.res)
}

// rawResult is the JSONL shape of one run line.
type rawResult struct {
	ID      *string     `json:"id"`
	Hits    *[]gate.Hit `json:"hits"`
	Context *runContext `json:"context"`
	Abstain *bool       `json:"abstain"`
}

// MaxRunContextPassages bounds the passages of one run line's context:
// ten times what a retriever's answer keeps at the least (MinKeptHits),
// so a saved run of any real pipeline reads back, and a line of a
// million tiny passages is refused before they are built.
const MaxRunContextPassages = 10 * input.MinKeptHits

// runContext is a run line's "context", decoded one passage at a time and
// refused past MaxRunContextPassages with a *ContextError naming the
// passage.
type runContext []gate.Passage

// UnmarshalJSON implements json.Unmarshaler.
func (c *runContext) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return &json.UnmarshalTypeError{Value: strings.TrimPrefix(strings.TrimPrefix(tokenKind(tok), "an "), "a "), Type: reflect.TypeOf([]gate.Passage{})}
	}
	out := runContext{}
	for i := 0; dec.More(); i++ {
		field := fmt.Sprintf("context[%d]", i)
		if i >= MaxRunContextPassages {
			return &gate.ContextError{Field: field, Msg: fmt.Sprintf("the context holds more than %d passages (the most a run line's context may hold)", MaxRunContextPassages)}
		}
		var p gate.Passage
		if err := dec.Decode(&p); err != nil {
			e := input.JSONLineError("", 0, err)
			return &gate.ContextError{Field: field + dotted(e.Field), Msg: e.Err.Error()}
		}
		out = append(out, p)
	}
	*c = out
	return nil
}

// parseResultLine parses one JSONL run line, reusing scratch for the hits.
func parseResultLine(line []byte, file string, n int, scratch []gate.Hit) (gate.Result, error) {
	if id, hits, ok := fastResult(line, scratch); ok {
		return checkResult(gate.Result{ID: id, Hits: hits, Line: n}, file)
	}
	var raw rawResult
	if err := gate.DecodeStrict(line, &raw); err != nil {
		if ce := (*gate.ContextError)(nil); errors.As(err, &ce) {
			if raw.ID == nil { // the id comes after the context on the line
				return gate.Result{}, input.Errf(file, n, ce.Field, "%s", ce.Msg)
			}
			return gate.Result{}, input.Errf(file, n, ce.Field, "query %q: %s", gate.ClipID(*raw.ID), ce.Msg)
		}
		return gate.Result{}, input.JSONLineError(file, n, err)
	}
	if raw.ID == nil || strings.TrimSpace(*raw.ID) == "" {
		return gate.Result{}, input.Errf(file, n, "id", "required and must not be empty")
	}
	if raw.Hits == nil {
		return gate.Result{}, input.Errf(file, n, "hits", "query %q: required (use [] for no results)", gate.ClipID(*raw.ID))
	}
	r := gate.Result{ID: *raw.ID, Hits: *raw.Hits, Line: n, Abstain: raw.Abstain}
	if raw.Context != nil {
		r.Context = append([]gate.Passage{}, (*raw.Context)...)
	}
	return checkResult(r, file)
}

// checkResult applies the rules both JSONL parsers share.
func checkResult(r gate.Result, file string) (gate.Result, error) {
	if strings.TrimSpace(r.ID) == "" {
		return gate.Result{}, input.Errf(file, r.Line, "id", "required and must not be empty")
	}
	if len(r.ID) > gate.MaxRunIDBytes {
		return gate.Result{}, input.Errf(file, r.Line, "id", "%d bytes, over the %d-byte limit of a query id", len(r.ID), gate.MaxRunIDBytes)
	}
	for i, h := range r.Hits {
		if strings.TrimSpace(h.Doc) == "" {
			return gate.Result{}, input.Errf(file, r.Line, fmt.Sprintf("hits[%d].doc", i), "query %q: hit without a document id", gate.ClipID(r.ID))
		}
	}
	if err := gate.CheckContext(r.Context); err != nil {
		return gate.Result{}, input.Errf(file, r.Line, err.Field, "query %q: %s", gate.ClipID(r.ID), err.Msg)
	}
	return r, nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses the common plain decimal form, [-]digits[.digits], when
// the digits fit 15 significant places: the mantissa and the power of ten
// are then exact and one division rounds correctly (Clinger's fast path),
// so the result equals strconv.ParseFloat's. Anything else returns false.
func fastFloat(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var mant uint64
	digits, frac := 0, -1
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
		case c == '.' && frac < 0 && i > 0 && i < len(b)-1:
			frac = len(b) - i - 1
		default:
			return 0, false
		}
	}
	if digits > 15 {
		return 0, false
	}
	v := float64(mant)
	if frac > 0 {
		v /= pow10[frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

// isInt reports whether b is an optionally signed run of ASCII digits.
func isInt(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseTRECLine splits one TREC run line; qid and doc alias line.
func parseTRECLine(line []byte, file string, n int) (qid, doc []byte, score float64, err error) {
	f, ok := input.Fields6Fast(line)
	count := 6
	if !ok {
		f, count = input.Fields6(line)
	}
	if count != 6 {
		return nil, nil, 0, input.Errf(file, n, "", "not a JSON object and not a TREC run line (want `qid Q0 docid rank score tag`, got %d fields)", count)
	}
	if !isInt(f[3]) {
		return nil, nil, 0, input.Errf(file, n, "rank", "%q is not an integer", f[3])
	}
	score, ok = fastFloat(f[4])
	if !ok {
		score, err = strconv.ParseFloat(string(f[4]), 64)
	}
	if err != nil || math.IsNaN(score) || math.IsInf(score, 0) {
		return nil, nil, 0, input.Errf(file, n, "score", "%q is not a finite number", f[4])
	}
	return f[0], f[2], score, nil
}

// WriteRun writes results as a JSONL run, one query a line, in the order
// given, after a metadata line when meta is not nil.
func WriteRun(w io.Writer, results []gate.Result, meta *gate.RunMeta) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if meta != nil {
		if err := enc.Encode(struct {
			Recallgate *gate.RunMeta `json:"recallgate"`
		}{meta}); err != nil {
			return err
		}
	}
	for _, r := range results {
		hits := r.Hits
		if hits == nil {
			hits = []gate.Hit{}
		}
		var ctx *[]gate.Passage
		if r.Context != nil {
			ctx = &r.Context
		}
		if err := enc.Encode(struct {
			ID      string          `json:"id"`
			Hits    []gate.Hit      `json:"hits"`
			Context *[]gate.Passage `json:"context,omitempty"`
			Abstain *bool           `json:"abstain,omitempty"`
		}{r.ID, hits, ctx, r.Abstain}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ParseResult parses one JSONL run line ({"id","hits":[…]}) with the same
// rules as a run file; name is used in error messages.
func ParseResult(line []byte, name string) (gate.Result, error) {
	r, err := parseResultLine(line, name, 0, nil)
	if err != nil {
		return gate.Result{}, err
	}
	r.Hits = append([]gate.Hit(nil), r.Hits...)
	return r, nil
}
