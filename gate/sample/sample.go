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
	add := func(text string, line int) {
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
			add(line, n)
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
			add(s, n)
		})
	case CSV:
		err = readCSV(r, o.Column, &st, add, bad)
	default:
		return nil, st, fmt.Errorf("%w %q: want text, jsonl or csv", ErrFormat, o.Format)
	}
	if err != nil {
		return nil, st, &gate.InputError{File: name, Err: err}
	}
	qs := make([]Query, 0, len(order))
	for _, key := range order {
		v := byKey[key]
		qs = append(qs, Query{Text: v.best(), Key: key, Count: v.count, Line: v.line, File: name})
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

func readCSV(r io.Reader, column string, st *Stats, add func(string, int), bad func(int, string, ...any)) error {
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
		add(rec[col], line)
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

// mergeNear merges near-duplicate queries (see similar) into the most asked
// of them. Candidate pairs come from prefix filtering over each query's
// rarest words and their one-letter deletions, so the work stays near
// linear for short queries.
func mergeNear(qs []Query, threshold float64) ([]Query, int) {
	if threshold >= 1 || len(qs) < 2 {
		return qs, 0
	}
	toks := make([][]string, len(qs))
	negs := make([]string, len(qs))
	freq := map[string]int{}
	for i, q := range qs {
		toks[i] = uniq(strings.Fields(q.Key))
		negs[i] = negationKey(toks[i])
		for _, t := range toks[i] {
			freq[t]++
		}
	}
	// Each query is indexed by the deletion keys of all its words and
	// looks up those of its rarest few (prefix filtering: a query that
	// shares at least threshold of its words with an earlier one shares
	// one of any len-ceil(threshold*len)+1 of them, typos included, so
	// no pair is missed; rare words first keeps the lookups short).
	all := make([][]string, len(qs))
	look := make([][]string, len(qs))
	for i, ts := range toks {
		r := append([]string(nil), ts...)
		sort.Slice(r, func(a, b int) bool {
			if freq[r[a]] != freq[r[b]] {
				return freq[r[a]] < freq[r[b]]
			}
			return r[a] < r[b]
		})
		n := min(max(len(r)-int(math.Ceil(threshold*float64(len(r))))+1, 1), len(r))
		seen := map[string]bool{}
		for w, t := range r {
			for _, k := range deletionKeys(t) {
				if !seen[k] {
					seen[k] = true
					all[i] = append(all[i], k)
					if w < n {
						look[i] = append(look[i], k)
					}
				}
			}
		}
	}
	parent := make([]int, len(qs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	index := map[string][]int{}
	stamp := make([]int, len(qs)) // stamp[j] == i+1: j is already a candidate of i
	var cand []int
	for i := range qs {
		cand = cand[:0]
		for _, k := range look[i] {
			for _, j := range index[k] {
				if stamp[j] != i+1 {
					stamp[j] = i + 1
					cand = append(cand, j)
				}
			}
		}
		for _, k := range all[i] {
			index[k] = append(index[k], i)
		}
		for _, j := range cand {
			if nearTwin(toks[i], toks[j], negs[i], negs[j], threshold) {
				a, b := find(i), find(j)
				if a != b {
					// Keep the more asked (then earlier) query as the root.
					if qs[a].Count < qs[b].Count || (qs[a].Count == qs[b].Count && a > b) {
						a, b = b, a
					}
					parent[b] = a
				}
			}
		}
	}
	out := make([]Query, 0, len(qs))
	pos := map[int]int{}
	merged := 0
	for i := range qs {
		r := find(i)
		if r == i {
			pos[i] = len(out)
			out = append(out, qs[i])
		}
	}
	for i := range qs {
		if r := find(i); r != i {
			p := &out[pos[r]]
			p.Count += qs[i].Count
			p.Line = min(p.Line, qs[i].Line)
			merged++
		}
	}
	return out, merged
}

// deletionKeys are a token and, for tokens of four letters or more, the
// token itself and with each one letter deleted, in a space of their own:
// two such words one edit apart (a typo, a swapped pair of letters) share
// one of them. Shorter words must match exactly ("day" is not "dry").
func deletionKeys(t string) []string {
	keys := []string{t}
	r := []rune(t)
	if len(r) < 4 || !typoable(t) {
		return keys
	}
	// The whole word is a deletion key too: a word with one letter more
	// deletes down to it.
	keys = append(keys, "\x00"+t)
	for i := range r {
		keys = append(keys, "\x00"+string(r[:i])+string(r[i+1:]))
	}
	return keys
}

// negations are the words that turn a claim around: two queries that
// differ in them are different queries however much else they share.
var negations = map[string]bool{"not": true, "no": true, "never": true, "without": true, "nor": true, "none": true, "cannot": true, "t": true, "isnt": true, "dont": true, "doesnt": true, "cant": true, "wont": true, "arent": true}

// negationKey is the negation words of a query, sorted.
func negationKey(ts []string) string {
	var n []string
	for _, t := range ts {
		if negations[t] {
			n = append(n, t)
		}
	}
	sort.Strings(n)
	return strings.Join(n, " ")
}

// nearTwin reports whether two queries (distinct tokens in order, and
// their negationKey) are near duplicates: the same negation words, sizes
// that can reach the threshold, and similar.
func nearTwin(ta, tb []string, na, nb string, threshold float64) bool {
	short, long := min(len(ta), len(tb)), max(len(ta), len(tb))
	return na == nb && float64(short) >= threshold*float64(long) && similar(ta, tb, threshold)
}

// similar decides whether two queries (their distinct tokens in order)
// with the same negation words (negationKey; the caller checks) are one:
// their token sets overlap by at least threshold (Jaccard), a word one
// edit from its match counting as the same word (a typo), and the shared
// content words come in the same order ("arterioles larger than venules"
// is not "venules larger than arterioles").
func similar(ua, ub []string, threshold float64) bool {
	// Exact matches first; a pair that cannot pass even if every word
	// left over on the shorter side were a typo of one on the other is
	// out before any edit distance is computed.
	var mbuf [32]int
	var ubuf [32]bool
	match := mbuf[:0] // position in ub, or -1
	if len(ua) > len(mbuf) {
		match = make([]int, 0, len(ua))
	}
	match = match[:len(ua)]
	used := ubuf[:0]
	if len(ub) > len(ubuf) {
		used = make([]bool, 0, len(ub))
	}
	used = used[:len(ub)]
	exact, fuzzyA, fuzzyB := 0, 0, 0
	for i, t := range ua {
		match[i] = -1
		for j, u := range ub {
			if !used[j] && u == t {
				match[i], used[j] = j, true
				exact++
				break
			}
		}
		if match[i] < 0 && typoable(t) {
			fuzzyA++
		}
	}
	for j, u := range ub {
		if !used[j] && typoable(u) {
			fuzzyB++
		}
	}
	if !passes(exact+min(fuzzyA, fuzzyB), len(ua), len(ub), threshold) {
		return false
	}
	matched := exact
	for i, t := range ua {
		if match[i] >= 0 || !typoable(t) {
			continue
		}
		for j, u := range ub {
			if !used[j] && oneEdit(t, u) {
				match[i], used[j] = j, true
				matched++
				break
			}
		}
	}
	if !passes(matched, len(ua), len(ub), threshold) {
		return false
	}
	// A content word on each side that matches nothing on the other is a
	// word substituted ("increase" for "reduce"): another question, as a
	// negation is, however much else the two share. Only typos, stop
	// words and words added on one side merge.
	if unmatchedContent(ua, func(i int) bool { return match[i] >= 0 }) && unmatchedContent(ub, func(j int) bool { return used[j] }) {
		return false
	}
	last := -1
	for i, t := range ua {
		if match[i] < 0 || stopWord(t) {
			continue
		}
		if match[i] < last {
			return false
		}
		last = match[i]
	}
	return true
}

// unmatchedContent reports whether a content word (not a stopWord) of
// ts is left unmatched (matched(i) false).
func unmatchedContent(ts []string, matched func(int) bool) bool {
	for i, t := range ts {
		if !matched(i) && !stopWord(t) {
			return true
		}
	}
	return false
}

// passes reports whether matched words of two queries of na and nb
// distinct words reach the Jaccard threshold.
func passes(matched, na, nb int, threshold float64) bool {
	union := na + nb - matched
	return union > 0 && float64(matched)/float64(union) >= threshold
}

// typoable reports whether a word may be a typo of another: four letters
// or more and no digits (codes and numbers differ in earnest).
func typoable(t string) bool {
	if len(t) < 4 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			return false
		}
	}
	return true
}

// uniq keeps the first occurrence of each token, in order.
func uniq(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// stopWord is a function word, which a query's meaning does not hang on.
func stopWord(t string) bool {
	switch t {
	case "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "was", "were", "be", "do", "does", "did", "how", "what", "i", "my", "me", "it", "with", "at", "by", "from", "than", "that", "this", "can", "should":
		return true
	}
	return false
}

// oneEdit reports whether two words of four letters or more are one edit
// apart: one letter changed, added, dropped, or two neighbours swapped.
// Words with digits are codes and numbers, never typos of each other.
func oneEdit(a, b string) bool {
	if a == b || len(a)-len(b) > 2 || len(b)-len(a) > 2 || !typoable(a) || !typoable(b) {
		return false
	}
	if isASCII(a) && isASCII(b) {
		return oneEditOf([]byte(a), []byte(b))
	}
	return oneEditOf([]rune(a), []rune(b))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// oneEditOf is oneEdit over letters (bytes of ASCII words, else runes).
func oneEditOf[T byte | rune](ra, rb []T) bool {
	if len(ra) < 4 || len(rb) < 4 {
		return false
	}
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	switch len(rb) - len(ra) {
	case 0:
		first, second := -1, -1
		for i := range ra {
			if ra[i] != rb[i] {
				switch {
				case first < 0:
					first = i
				case second < 0:
					second = i
				default:
					return false
				}
			}
		}
		switch {
		case first >= 0 && second < 0:
			return true
		case second >= 0:
			return second == first+1 && ra[first] == rb[second] && ra[second] == rb[first]
		}
		return false
	case 1:
		i := 0
		for i < len(ra) && ra[i] == rb[i] {
			i++
		}
		for ; i < len(ra); i++ {
			if ra[i] != rb[i+1] {
				return false
			}
		}
		return true
	}
	return false
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
// log never asked), how often it was asked in the note.
func Draft(picks []Pick) []*gate.Query {
	out := make([]*gate.Query, 0, len(picks))
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
			ID: ID(p.Key), Text: p.Text, Gold: map[string]int{}, Segments: []string{p.Segment}, Source: source,
			Note: note,
		})
	}
	return out
}

// times says a count of log lines in words.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
