package gate

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
	"time"
)

// Hit is one retrieved chunk, in rank order within its Result.
type Hit struct {
	// Doc is the parent document id the gold labels refer to. Required.
	Doc string `json:"doc"`
	// Chunk is the retriever's own id of the passage, e.g. "security/api-keys#2".
	Chunk string `json:"chunk,omitempty"`
	// Score is the retriever's score; informative only, rank is the order.
	Score float64 `json:"score,omitempty"`
	// Text is the passage text, when the retriever returns it.
	Text string `json:"text,omitempty"`
}

// Result is the ranked list one query got from a retriever.
type Result struct {
	// ID is the query id, matching the eval set.
	ID string `json:"id"`
	// Hits are in rank order, best first.
	Hits []Hit `json:"hits"`
	// Line is where the result starts in its run file (0 when not from a file).
	Line int `json:"-"`
	// Latency is how long the retriever call took (0 when not timed).
	Latency time.Duration `json:"-"`
	// Queue is how long the call waited before its request was sent (a
	// free turn on the retriever's pipe, the rate limit); not in Latency.
	Queue time.Duration `json:"-"`
	// Context is the final context the pipeline handed the model, in
	// order, when its answer carried one: nil when it did not (recallgate
	// then packs its own from the hits), an empty non-nil slice when the
	// pipeline sent the model nothing.
	Context []Passage `json:"context,omitempty"`
	// Abstain is the pipeline's own refusal signal for the query: nil when
	// the answer carried none.
	Abstain *bool `json:"abstain,omitempty"`
}

// Passage is one passage of a pipeline's final context.
type Passage struct {
	// Doc is the parent document id, as in Hit. Required.
	Doc string `json:"doc"`
	// Chunk is the pipeline's own passage id.
	Chunk string `json:"chunk,omitempty"`
	// Text is the passage as the model read it.
	Text string `json:"text,omitempty"`
	// Tokens is the pipeline's own token count of the passage; nil when it
	// gave none.
	Tokens *int `json:"tokens,omitempty"`
}

// Answer is everything a retriever returned for one query.
type Answer struct {
	// Hits are in rank order, best first.
	Hits []Hit
	// Context and Abstain are as in Result.
	Context []Passage
	Abstain *bool
}

// RunMeta is the optional first line of a JSONL run that recallgate
// writes, {"recallgate":{"set":"sha256:…","config":"sha256:…"}}: the
// fingerprints of the eval set and the retriever config the run was made
// with, so a run is never scored against another set by mistake.
type RunMeta struct {
	Set    string `json:"set,omitempty"`
	Config string `json:"config,omitempty"`
	// Corpus is the content fingerprint of the corpus recallgate read for
	// the run (corpus.Fingerprint), when it could read one: a drift run
	// checks it against today's.
	Corpus string `json:"corpus,omitempty"`
	// Shard is "i/n" for a run of one shard of the queries.
	Shard string `json:"shard,omitempty"`
	// CacheKey is the run cache key the run was stored under, checked when
	// the cache reads it back: an entry renamed or copied to another key
	// is refused.
	CacheKey string `json:"cache_key,omitempty"`
	// What a drift baseline records besides the fingerprints (see
	// BaselineRecord): the policy's fingerprint, the commit and time it
	// was made at, each query's text hash and each document's content
	// hash (TextHash, corpus.DocHash).
	Policy  string            `json:"policy,omitempty"`
	Commit  string            `json:"commit,omitempty"`
	Made    string            `json:"made,omitempty"`
	Queries map[string]string `json:"queries,omitempty"`
	Docs    map[string]string `json:"docs,omitempty"`
}

// CheckSet refuses a run made on another eval set than s.
func (m RunMeta) CheckSet(s *Set, run string) error {
	if m.Set == "" || m.Set == s.Fingerprint {
		return nil
	}
	return &InputError{File: run, Err: fmt.Errorf("this run was made on a different eval set (%s) than %s (%s): retrieve it again, or re-baseline", short(m.Set), s.Path, short(s.Fingerprint))}
}

func short(fp string) string {
	if len(fp) > 19 {
		return fp[:19]
	}
	return fp
}

// ReadRunFile streams the results of a run file to fn, one query at a time,
// and returns its metadata line (empty when it has none).
func ReadRunFile(path string, fn func(Result) error) (RunMeta, error) {
	f, err := openInput(path)
	if err != nil {
		return RunMeta{}, &InputError{File: path, Err: fmt.Errorf("open run: %w", err)}
	}
	defer f.Close()
	var meta RunMeta
	err = ReadRunMeta(f, path, fn, func(m RunMeta) { meta = m })
	return meta, err
}

// ReadRunFileOnly is ReadRunFile for a reader that needs only the queries
// keep accepts (a drift baseline read against today's set): a line, or a
// TREC block, of another id is checked as ReadRun checks it and then
// counted, never passed to fn nor remembered (so such an id given twice
// is not found), and the memory a run of millions of ids the set lacks
// takes is that of one line. It returns the metadata line and the count.
func ReadRunFileOnly(path string, keep func(id string) bool, fn func(Result) error) (RunMeta, int, error) {
	f, err := openInput(path)
	if err != nil {
		return RunMeta{}, 0, &InputError{File: path, Err: fmt.Errorf("open run: %w", err)}
	}
	defer f.Close()
	var meta RunMeta
	others, err := readRun(f, path, keep, fn, func(m RunMeta) { meta = m })
	return meta, others, err
}

// ReadRun is ReadRunMeta ignoring the metadata line.
func ReadRun(r io.Reader, name string, fn func(Result) error) error {
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
func ReadRunMeta(r io.Reader, name string, fn func(Result) error, meta func(RunMeta)) error {
	_, err := readRun(r, name, nil, fn, meta)
	return err
}

// readRun is ReadRunMeta passing fn only the queries keep accepts (all
// when keep is nil), and counting the others (ReadRunFileOnly).
func readRun(r io.Reader, name string, keep func(string) bool, fn func(Result) error, meta func(RunMeta)) (others int, _ error) {
	format := ""
	var skipping []byte // the qid of the TREC block being skipped
	skip := false
	first := true
	seen := map[string]int{}
	var trec trecGroup
	var scratch []Hit
	err := eachLine(r, name, MaxRunLineBytes, func(line []byte, n int) error {
		if format == "" {
			format = "trec"
			if looksJSON(line) {
				format = "jsonl"
			}
		}
		if format == "jsonl" {
			if first {
				first = false
				if bytes.Contains(line, []byte(`"recallgate"`)) {
					var m struct {
						Recallgate *RunMeta `json:"recallgate"`
					}
					if err := DecodeStrict(line, &m); err == nil && m.Recallgate != nil {
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
				return inputErr(name, n, "id", "query %q appears twice in the run (first on line %d)", ClipID(res.ID), prev)
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
		if len(qidb) > MaxRunIDBytes {
			return inputErr(name, n, "qid", "%d bytes, over the %d-byte limit of a query id", len(qidb), MaxRunIDBytes)
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
				return inputErr(name, n, "qid", "query %q starts a second block (first block on line %d); keep each query's lines together, e.g. sort -s -k1,1", ClipID(qid), prev)
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
		return others, inputErr(name, 0, "", "run is empty: no results")
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
	res   Result
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
	g.res.Hits = append(g.res.Hits, Hit{Score: score})
}

func (g *trecGroup) flush(fn func(Result) error) error {
	docs := string(g.arena)
	start := 0
	for i, end := range g.ends {
		g.res.Hits[i].Doc = docs[start:end]
		start = end
	}
	order := func(a, b Hit) int {
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
	Hits    *[]Hit      `json:"hits"`
	Context *runContext `json:"context"`
	Abstain *bool       `json:"abstain"`
}

// MaxRunContextPassages bounds the passages of one run line's context:
// ten times what a retriever's answer keeps at the least (MinKeptHits),
// so a saved run of any real pipeline reads back, and a line of a
// million tiny passages is refused before they are built.
const MaxRunContextPassages = 10 * MinKeptHits

// runContext is a run line's "context", decoded one passage at a time and
// refused past MaxRunContextPassages with a *ContextError naming the
// passage.
type runContext []Passage

// UnmarshalJSON implements json.Unmarshaler.
func (c *runContext) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return &json.UnmarshalTypeError{Value: strings.TrimPrefix(strings.TrimPrefix(tokenKind(tok), "an "), "a "), Type: reflect.TypeOf([]Passage{})}
	}
	out := runContext{}
	for i := 0; dec.More(); i++ {
		field := fmt.Sprintf("context[%d]", i)
		if i >= MaxRunContextPassages {
			return &ContextError{Field: field, Msg: fmt.Sprintf("the context holds more than %d passages (the most a run line's context may hold)", MaxRunContextPassages)}
		}
		var p Passage
		if err := dec.Decode(&p); err != nil {
			e := jsonLineError("", 0, err)
			return &ContextError{Field: field + dotted(e.Field), Msg: e.Err.Error()}
		}
		out = append(out, p)
	}
	*c = out
	return nil
}

// parseResultLine parses one JSONL run line, reusing scratch for the hits.
func parseResultLine(line []byte, file string, n int, scratch []Hit) (Result, error) {
	if id, hits, ok := fastResult(line, scratch); ok {
		return checkResult(Result{ID: id, Hits: hits, Line: n}, file)
	}
	var raw rawResult
	if err := DecodeStrict(line, &raw); err != nil {
		if ce := (*ContextError)(nil); errors.As(err, &ce) {
			if raw.ID == nil { // the id comes after the context on the line
				return Result{}, inputErr(file, n, ce.Field, "%s", ce.Msg)
			}
			return Result{}, inputErr(file, n, ce.Field, "query %q: %s", ClipID(*raw.ID), ce.Msg)
		}
		return Result{}, jsonLineError(file, n, err)
	}
	if raw.ID == nil || strings.TrimSpace(*raw.ID) == "" {
		return Result{}, inputErr(file, n, "id", "required and must not be empty")
	}
	if raw.Hits == nil {
		return Result{}, inputErr(file, n, "hits", "query %q: required (use [] for no results)", ClipID(*raw.ID))
	}
	r := Result{ID: *raw.ID, Hits: *raw.Hits, Line: n, Abstain: raw.Abstain}
	if raw.Context != nil {
		r.Context = append([]Passage{}, (*raw.Context)...)
	}
	return checkResult(r, file)
}

// checkResult applies the rules both JSONL parsers share.
func checkResult(r Result, file string) (Result, error) {
	if strings.TrimSpace(r.ID) == "" {
		return Result{}, inputErr(file, r.Line, "id", "required and must not be empty")
	}
	if len(r.ID) > MaxRunIDBytes {
		return Result{}, inputErr(file, r.Line, "id", "%d bytes, over the %d-byte limit of a query id", len(r.ID), MaxRunIDBytes)
	}
	for i, h := range r.Hits {
		if strings.TrimSpace(h.Doc) == "" {
			return Result{}, inputErr(file, r.Line, fmt.Sprintf("hits[%d].doc", i), "query %q: hit without a document id", ClipID(r.ID))
		}
	}
	if err := CheckContext(r.Context); err != nil {
		return Result{}, inputErr(file, r.Line, err.Field, "query %q: %s", ClipID(r.ID), err.Msg)
	}
	return r, nil
}

// ContextError is a passage of a final context that breaks the protocol.
type ContextError struct {
	// Field is the key at fault, e.g. "context[2].doc"; Msg says why.
	Field, Msg string
}

// Error says the field at fault and why.
func (e *ContextError) Error() string { return e.Field + ": " + e.Msg }

// MaxPassageTokens bounds one passage's "tokens" (as the HTTP retriever
// does): a context's size, their sum, can then never wrap round.
const MaxPassageTokens = math.MaxInt32

// CheckContext applies the rules every final context obeys: each passage
// names its document, and a token count is not negative nor past
// MaxPassageTokens.
func CheckContext(ctx []Passage) *ContextError {
	for i, p := range ctx {
		if strings.TrimSpace(p.Doc) == "" {
			return &ContextError{Field: fmt.Sprintf("context[%d].doc", i), Msg: "passage without a document id"}
		}
		if p.Tokens != nil && *p.Tokens < 0 {
			return &ContextError{Field: fmt.Sprintf("context[%d].tokens", i), Msg: fmt.Sprintf("%d is negative", *p.Tokens)}
		}
		if p.Tokens != nil && *p.Tokens > MaxPassageTokens {
			return &ContextError{Field: fmt.Sprintf("context[%d].tokens", i), Msg: fmt.Sprintf("%d is too many tokens for one passage (at most %d)", *p.Tokens, MaxPassageTokens)}
		}
	}
	return nil
}

// asciiSpace marks the bytes strings.Fields would split an ASCII line on.
var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// fields6 splits a line on ASCII white space into up to six fields without
// allocating; n counts every field seen, up to seven.
func fields6(line []byte) (f [6][]byte, n int) {
	start := -1
	for i, c := range line {
		if c <= ' ' && asciiSpace[c] {
			if start >= 0 {
				if n < 6 {
					f[n] = line[start:i]
				}
				n++
				if n == 7 {
					return f, n
				}
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		if n < 6 {
			f[n] = line[start:]
		}
		n++
	}
	return f, n
}

// fields6Fast splits the common shape, six fields apart by single spaces,
// in one tight pass; anything else (tabs, runs of blanks, control bytes,
// more or fewer fields) is left to fields6's general loop, which gives the
// same fields for the lines this one accepts.
func fields6Fast(line []byte) (f [6][]byte, ok bool) {
	i := 0
	for k := 0; k < 6; k++ {
		start := i
		for i < len(line) && line[i] > ' ' {
			i++
		}
		if i == start {
			return f, false
		}
		f[k] = line[start:i]
		if k < 5 {
			if i >= len(line) || line[i] != ' ' {
				return f, false
			}
			i++
		}
	}
	return f, i == len(line)
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
	f, ok := fields6Fast(line)
	count := 6
	if !ok {
		f, count = fields6(line)
	}
	if count != 6 {
		return nil, nil, 0, inputErr(file, n, "", "not a JSON object and not a TREC run line (want `qid Q0 docid rank score tag`, got %d fields)", count)
	}
	if !isInt(f[3]) {
		return nil, nil, 0, inputErr(file, n, "rank", "%q is not an integer", f[3])
	}
	score, ok = fastFloat(f[4])
	if !ok {
		score, err = strconv.ParseFloat(string(f[4]), 64)
	}
	if err != nil || math.IsNaN(score) || math.IsInf(score, 0) {
		return nil, nil, 0, inputErr(file, n, "score", "%q is not a finite number", f[4])
	}
	return f[0], f[2], score, nil
}

// WriteRun writes results as a JSONL run, one query a line, in the order
// given, after a metadata line when meta is not nil.
func WriteRun(w io.Writer, results []Result, meta *RunMeta) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if meta != nil {
		if err := enc.Encode(struct {
			Recallgate *RunMeta `json:"recallgate"`
		}{meta}); err != nil {
			return err
		}
	}
	for _, r := range results {
		hits := r.Hits
		if hits == nil {
			hits = []Hit{}
		}
		var ctx *[]Passage
		if r.Context != nil {
			ctx = &r.Context
		}
		if err := enc.Encode(struct {
			ID      string     `json:"id"`
			Hits    []Hit      `json:"hits"`
			Context *[]Passage `json:"context,omitempty"`
			Abstain *bool      `json:"abstain,omitempty"`
		}{r.ID, hits, ctx, r.Abstain}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ParseResult parses one JSONL run line ({"id","hits":[…]}) with the same
// rules as a run file; name is used in error messages.
func ParseResult(line []byte, name string) (Result, error) {
	r, err := parseResultLine(line, name, 0, nil)
	if err != nil {
		return Result{}, err
	}
	r.Hits = append([]Hit(nil), r.Hits...)
	return r, nil
}
