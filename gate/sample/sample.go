// Package sample turns a query log into a draft eval set: it reads the log
// (text, JSONL or CSV), normalises and de-duplicates the queries (exact and
// near duplicates by token overlap, keeping how often each was asked), and
// draws a seeded sample: half known failures, half ordinary traffic in
// proportion to its frequency. What it drops, it counts and says why.
package sample

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"github.com/recallgate/recallgate/gate"
)

// Log formats.
const (
	Text  = "text"  // one query a line
	JSONL = "jsonl" // one JSON object a line; the query in Options.Field
	CSV   = "csv"   // a header row; the query in the column Options.Column
)

// Segments the sample tags its queries with.
const (
	KnownFailure = "known-failure"
	Ordinary     = "ordinary"
)

// Options shape reading and drawing.
type Options struct {
	// Format is Text, JSONL or CSV.
	Format string
	// Field is the JSONL key holding the query (default "query").
	Field string
	// Column is the CSV header naming the query column (default "query").
	Column string
	// MaxChars drops longer queries, pasted documents rather than
	// questions (default 300).
	MaxChars int
	// NearDuplicate is the token Jaccard similarity from which two queries
	// count as one (default 0.8).
	NearDuplicate float64
	// IDField is the JSONL key or CSV column holding a line's own query id,
	// kept as the draft's id (see Draft); "" looks for the first of
	// IDFields a line or the header has. HashIDs ignores the log's ids:
	// every draft id is the hash of its text (ID).
	IDField string
	HashIDs bool
}

func (o *Options) defaults() {
	if o.Format == "" {
		o.Format = Text
	}
	if o.Field == "" {
		o.Field = "query"
	}
	if o.Column == "" {
		o.Column = "query"
	}
	if o.MaxChars == 0 {
		o.MaxChars = 300
	}
	if o.NearDuplicate == 0 {
		o.NearDuplicate = 0.8
	}
}

// Query is one distinct query of a log with how often it was asked.
type Query struct {
	// Text is the most frequent spelling, whitespace collapsed.
	Text string
	// Key is the normalised text the exact de-duplication used.
	Key string
	// Count is how many log lines asked it (near duplicates included).
	Count int
	// Line is the first line that asked it, in File (the name Read was
	// given).
	Line int
	File string
	// LogCount and LogLine are, for a known failure, how often the log
	// asked it (itself or a near duplicate) and the log's first line for
	// it; 0 when the log never did (MergeKnown sets them).
	LogCount, LogLine int
	// SourceID is the log's own id of the query (Options.IDField) on the
	// first line that gave one, "" when none did.
	SourceID string
}

// Skipped is one log line left out, with its line and why.
type Skipped struct {
	Line   int
	Reason string
}

// Stats count what reading and de-duplication did.
type Stats struct {
	Lines, Empty, TooLong, Malformed int
	// Duplicates are lines equal to an earlier one once normalised;
	// NearDuplicates are distinct queries merged into a similar one.
	Duplicates, NearDuplicates int
	// Distinct is how many queries remain.
	Distinct int
	// Bad lists the malformed lines (the first 20).
	Bad []Skipped
}

// String is the one-paragraph account a user reads.
func (s Stats) String() string {
	msg := fmt.Sprintf("%d lines: %d distinct queries; dropped %d exact duplicates, merged %d near duplicates, skipped %d empty, %d over the length limit, %d malformed",
		s.Lines, s.Distinct, s.Duplicates, s.NearDuplicates, s.Empty, s.TooLong, s.Malformed)
	return msg
}

// Read reads a log and returns its distinct queries, most asked first.
// Malformed lines are counted and listed, never fatal; a log with no
// usable line is an error.
func Read(r io.Reader, name string, o Options) ([]Query, Stats, error) {
	o.defaults()
	r = skipBOM(r)
	var st Stats
	byKey := map[string]*variants{}
	var order []string
	add := func(text string, line int, id string) {
		text = strings.Join(strings.Fields(text), " ")
		switch {
		case text == "":
			st.Empty++
			return
		case len([]rune(text)) > o.MaxChars:
			st.TooLong++
			return
		}
		key := Normalize(text)
		if key == "" {
			st.Empty++
			return
		}
		v := byKey[key]
		if v == nil {
			v = &variants{spellings: map[string]int{}, line: line}
			byKey[key] = v
			order = append(order, key)
		} else {
			st.Duplicates++
		}
		v.count++
		if v.id == "" {
			v.id = id
		}
		if v.spellings[text] == 0 {
			v.first = append(v.first, text)
		}
		v.spellings[text]++
	}
	bad := func(line int, format string, args ...any) {
		st.Malformed++
		if len(st.Bad) < 20 {
			st.Bad = append(st.Bad, Skipped{line, fmt.Sprintf(format, args...)})
		}
	}
	var err error
	switch o.Format {
	case Text:
		err = eachLine(r, func(line string, n int) {
			st.Lines++
			add(line, n, "")
		})
	case JSONL:
		err = eachLine(r, func(line string, n int) {
			st.Lines++
			if strings.TrimSpace(line) == "" {
				st.Empty++
				return
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(line), &obj); err != nil {
				bad(n, "not a JSON object: %v", err)
				return
			}
			v, ok := obj[o.Field]
			if !ok {
				bad(n, "no %q field", o.Field)
				return
			}
			s, ok := v.(string)
			if !ok {
				bad(n, "field %q is not a string", o.Field)
				return
			}
			add(s, n, o.jsonID(obj))
		})
	case CSV:
		err = readCSV(r, o, &st, add, bad)
	default:
		return nil, st, fmt.Errorf("%w %q: want text, jsonl or csv", ErrFormat, o.Format)
	}
	if err != nil {
		return nil, st, &gate.InputError{File: name, Err: err}
	}
	qs := make([]Query, 0, len(order))
	for _, key := range order {
		v := byKey[key]
		qs = append(qs, Query{Text: v.best(), Key: key, Count: v.count, Line: v.line, File: name, SourceID: v.id})
	}
	qs, st.NearDuplicates = mergeNear(qs, o.NearDuplicate)
	st.Distinct = len(qs)
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].Count > qs[j].Count })
	if len(qs) == 0 {
		return nil, st, &gate.InputError{File: name, Err: fmt.Errorf("no usable query in the log (%s)", st)}
	}
	return qs, st, nil
}

// variants collects the spellings of one normalised query.
type variants struct {
	spellings map[string]int
	first     []string // spellings in the order first seen
	count     int
	line      int
	id        string // the log's id on the first line giving one
}

// best is the most frequent spelling, the first seen among equals.
func (v *variants) best() string {
	best, n := "", -1
	for _, s := range v.first {
		if c := v.spellings[s]; c > n {
			best, n = s, c
		}
	}
	return best
}

// skipBOM drops a UTF-8 byte order mark at the start of r (spreadsheet
// exports write one), so the first line reads like the others.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
	return br
}

// eachLine calls fn for every line (1-based numbers), with any length.
func eachLine(r io.Reader, fn func(string, int)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if len(line) > 0 || err == nil {
			fn(strings.TrimRight(line, "\r\n"), n)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func readCSV(r io.Reader, o Options, st *Stats, add func(string, int, string), bad func(int, string, ...any)) error {
	column := o.Column
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf("read the CSV header: %w", err)
	}
	col := -1
	for i, h := range head {
		if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), column) {
			col = i
		}
	}
	if col < 0 {
		return fmt.Errorf("the CSV header has no column %q (it has %s)", column, strings.Join(head, ", "))
	}
	idCol, err := o.csvIDColumn(head)
	if err != nil {
		return err
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		st.Lines++
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				// The row where the broken record starts; a quoted field
				// can run over many lines before the parser notices.
				if pe.StartLine != pe.Line {
					bad(pe.StartLine, "%v (noticed on line %d)", pe.Err, pe.Line)
				} else {
					bad(pe.StartLine, "%v", pe.Err)
				}
				if errors.Is(pe.Err, csv.ErrQuote) || errors.Is(pe.Err, csv.ErrBareQuote) {
					continue
				}
			}
			return err
		}
		line, _ := cr.FieldPos(0)
		if col >= len(rec) {
			bad(line, "%d fields, the header has %d", len(rec), len(head))
			continue
		}
		id := ""
		if idCol >= 0 && idCol < len(rec) {
			id = rec[idCol]
		}
		add(rec[col], line, id)
	}
}

// Normalize is the text exact duplicates share: lower case, punctuation
// turned to spaces, whitespace collapsed.
func Normalize(s string) string {
	return strings.Join(tokens(s), " ")
}

func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// MergeKnown joins each known failure with its twin in the log (the same
// normalised text, or a near duplicate by the rule Read uses): the known
// failure keeps its own text and file line and takes the twin's frequency
// and first log line, and the twin leaves the ordinary pool, so one
// question is never drafted twice. It returns the log without the twins.
func MergeKnown(log, known []Query, o Options) (ordinary, bad []Query) {
	o.defaults()
	bad = append([]Query(nil), known...)
	taken := make([]bool, len(log))
	toks := make([][]string, len(log))
	negs := make([]string, len(log))
	for i, q := range log {
		toks[i] = uniq(strings.Fields(q.Key))
		negs[i] = negationKey(toks[i])
	}
	for b := range bad {
		kt := uniq(strings.Fields(bad[b].Key))
		kn := negationKey(kt)
		for i, q := range log {
			if taken[i] {
				continue
			}
			if q.Key == bad[b].Key || o.NearDuplicate < 1 && nearTwin(kt, toks[i], kn, negs[i], o.NearDuplicate) {
				taken[i] = true
				bad[b].LogCount += q.Count
				if bad[b].LogLine == 0 || q.Line < bad[b].LogLine {
					bad[b].LogLine = q.Line
				}
			}
		}
	}
	for i, q := range log {
		if !taken[i] {
			ordinary = append(ordinary, q)
		}
	}
	return ordinary, bad
}

// Pick is one drawn query with its group.
type Pick struct {
	Query
	// Segment is KnownFailure or Ordinary.
	Segment string
}

// Draw picks size queries: half known failures (all of them when there
// are fewer; drawn uniformly) and the rest ordinary traffic drawn without
// replacement in proportion to how often it was asked. The same seed gives
// the same picks. Known failures are left out of the ordinary pool.
func Draw(ordinary, knownBad []Query, size int, seed uint64) []Pick {
	bad := map[string]bool{}
	for _, q := range knownBad {
		bad[q.Key] = true
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	nBad := min(len(knownBad), (size+1)/2)
	badIdx := rng.Perm(len(knownBad))[:nBad]
	sort.Ints(badIdx)
	var out []Pick
	for _, i := range badIdx {
		out = append(out, Pick{knownBad[i], KnownFailure})
	}
	type keyed struct {
		q Query
		k float64
	}
	var pool []keyed
	for _, q := range ordinary {
		if bad[q.Key] {
			continue
		}
		// Efraimidis–Spirakis: the top keys u^(1/w) are a weighted sample.
		pool = append(pool, keyed{q, math.Pow(rng.Float64(), 1/float64(q.Count))})
	}
	sort.SliceStable(pool, func(i, j int) bool { return pool[i].k > pool[j].k })
	for _, p := range pool[:min(len(pool), size-nBad)] {
		out = append(out, Pick{p.q, Ordinary})
	}
	return out
}

// ID is a query's id in the draft: "q-" and 8 hex digits of the hash of its
// normalised text, so the same query gets the same id on every run.
func ID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "q-" + hex.EncodeToString(sum[:4])
}

// SourceKnownBad is the source of a drafted known failure the log never
// asked: it came from the --known-bad file alone.
const SourceKnownBad = "known-bad"

// Draft turns picks into unlabelled eval-set queries: empty gold, the
// group as segment, source "log" (SourceKnownBad for a known failure the
// log never asked), how often it was asked in the note. Each keeps the
// log's own id when it has one a set can hold (Assign), else the hash of
// its text (ID).
func Draft(picks []Pick) []*gate.Query {
	qs, _ := DraftIDs(picks)
	return qs
}

// DraftIDs is Draft, with what became of the log's ids.
func DraftIDs(picks []Pick) ([]*gate.Query, IDs) {
	out := make([]*gate.Query, 0, len(picks))
	var ids IDs
	for _, p := range picks {
		note, source := fmt.Sprintf("asked %s in the log (first on line %d)", times(p.Count), p.Line), "log"
		if p.Segment == KnownFailure {
			note = fmt.Sprintf("known failure (%s line %d); ", p.File, p.Line)
			if p.LogCount > 0 {
				note += fmt.Sprintf("asked %s in the log (first on line %d)", times(p.LogCount), p.LogLine)
			} else {
				// Only the known-bad file asked it: it did not come from the log.
				note += "not in the log"
				source = SourceKnownBad
			}
		}
		out = append(out, &gate.Query{
			ID: ids.Assign(p.SourceID, p.Key), Text: p.Text, Gold: map[string]int{}, Segments: []string{p.Segment}, Source: source,
			Note: note,
		})
	}
	return out, ids
}

// times says a count of log lines in words.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
