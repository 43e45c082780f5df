package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// MaxGrade is the highest relevance grade a gold label may carry.
const MaxGrade = 3

// Query is one frozen query of the eval set with its document-level gold labels.
type Query struct {
	// ID identifies the query across runs and reports.
	ID string
	// Text is what the user typed; empty for sets loaded from TREC qrels.
	Text string
	// Gold maps a document id to its grade, 0–3; relevant means grade > 0.
	Gold map[string]int
	// Segments are user-declared groups such as "keyword" or "known-failure".
	Segments []string
	// Source says where the query came from: "log", "ticket", "synthetic", ….
	Source string
	// Evidence lists facts the final context must contain.
	Evidence []string
	// Unanswerable marks a query whose answer is not in the corpus; it has no
	// relevant gold document and is kept out of the document metrics.
	Unanswerable bool
	// Note is a free-form remark for the people who keep the set (sample
	// writes where the query came from).
	Note string
	// Notes are each labeller's own remarks (labeller → note), kept apart
	// from Note and from each other, so a second labeller stays blind.
	Notes map[string]string
	// OnlyZero marks a TREC qrels query whose judgements are all grade 0:
	// qrels cannot say "unanswerable", so it is kept apart as one, and
	// counts as 0 in the trec_eval means (Summary.TrecEval).
	OnlyZero bool
	// Verified is the day the labels were last checked by a person (zero
	// when not given).
	Verified time.Time
	// Judgments keeps each labeller's own grades (labeller → doc → grade,
	// 0 included: judged not relevant), so two people's labels can be
	// compared; Gold holds the grades the set uses.
	Judgments map[string]map[string]int
	// Marks are each labeller's own unanswerable/unsure marks, dates and
	// times per judgement (labeller → mark).
	Marks map[string]*Mark
	// Adjudicated holds the grades decided where labellers disagreed
	// (document → decision); they win over the labellers' grades.
	Adjudicated map[string]Adjudication
	// Judges are the grades judge programs gave (judge name, without
	// JudgePrefix → its record), kept apart from Judgments: a judge is no
	// person, its grades never count as judged nor derive gold unless a
	// policy applies them (gate/judge). The file keeps them as the
	// labeller JudgePrefix+name of "judgments" and "labellers".
	Judges map[string]*JudgeGrades
	// FoundBySearch lists documents a labeller found by searching the
	// corpus, outside every retriever's pool: evidence that all of them
	// miss it.
	FoundBySearch []string
	// Line is the line of the set file the query was read from (its first
	// line, for qrels).
	Line int

	relevant  int       // number of gold docs with grade > 0
	idealDCGs []float64 // idealDCGs[k-1] is the ideal DCG at depth k
}

// Relevant returns the number of relevant (grade > 0) gold documents.
func (q *Query) Relevant() int { return q.relevant }

// RelevantDocs returns the relevant gold document ids, highest grade first,
// then by id.
func (q *Query) RelevantDocs() []string {
	docs := make([]string, 0, q.relevant)
	for d, g := range q.Gold {
		if g > 0 {
			docs = append(docs, d)
		}
	}
	q.sortByGrade(docs)
	return docs
}

// sortByGrade orders doc ids by descending gold grade, then by id.
func (q *Query) sortByGrade(docs []string) {
	sort.Slice(docs, func(i, j int) bool {
		gi, gj := q.Gold[docs[i]], q.Gold[docs[j]]
		if gi != gj {
			return gi > gj
		}
		return docs[i] < docs[j]
	})
}

// idealDCG is the DCG of the best possible ranking cut to k.
func (q *Query) idealDCG(k int) float64 {
	if k <= 0 || len(q.idealDCGs) == 0 {
		return 0
	}
	if k > len(q.idealDCGs) {
		k = len(q.idealDCGs)
	}
	return q.idealDCGs[k-1]
}

// prepare derives the cached counts used by scoring.
func (q *Query) prepare() {
	grades := make([]int, 0, len(q.Gold))
	q.relevant = 0
	for _, g := range q.Gold {
		if g > 0 {
			q.relevant++
		}
		grades = append(grades, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	q.idealDCGs = make([]float64, len(grades))
	sum := 0.0
	for i, g := range grades {
		sum += float64(g) / math.Log2(float64(i+2))
		q.idealDCGs[i] = sum
	}
}

// Set is a frozen, hand-labelled evaluation set, in file order.
type Set struct {
	// Path is the file the set was read from, as given.
	Path string
	// Format is "jsonl" or "qrels".
	Format string
	// Queries are in file order (order of first appearance, for qrels).
	Queries []*Query
	// Fingerprint is "sha256:" and the hex SHA-256 of the file's bytes.
	Fingerprint string
	// Warnings say what reading the set had to assume (qrels queries
	// judged only grade 0).
	Warnings []string

	byID map[string]*Query
}

// Query returns the query with the given id, or nil.
func (s *Set) Query(id string) *Query { return s.byID[id] }

// Answerable returns the number of queries not marked unanswerable.
func (s *Set) Answerable() int {
	n := 0
	for _, q := range s.Queries {
		if !q.Unanswerable {
			n++
		}
	}
	return n
}

// Shard returns the set restricted to shard i of n (1-based): the queries
// at positions i-1, i-1+n, i-1+2n, … The shard keeps the set's fingerprint.
func (s *Set) Shard(i, n int) (*Set, error) {
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %d/%d: want 1 ≤ i ≤ n", i, n)
	}
	out := &Set{Path: s.Path, Format: s.Format, Fingerprint: s.Fingerprint, byID: map[string]*Query{}}
	for k, q := range s.Queries {
		if k%n == i-1 {
			out.add(q)
		}
	}
	return out, nil
}

// Only is the set with just the queries keep accepts (the same
// fingerprint: it is a view of one file), and the ids it left out, in set
// order.
func (s *Set) Only(keep func(id string) bool) (*Set, []string) {
	out := &Set{Path: s.Path, Format: s.Format, Fingerprint: s.Fingerprint, Warnings: s.Warnings, byID: map[string]*Query{}}
	var left []string
	for _, q := range s.Queries {
		if keep(q.ID) {
			out.add(q)
		} else {
			left = append(left, q.ID)
		}
	}
	return out, left
}

// LoadQueryTexts gives the queries of a qrels set their text, from a JSONL
// file of {"id","text"} lines (the BEIR queries format; "query" is accepted
// for "text"). Lines for ids outside the set are ignored; a set query left
// without text is an error, since it could not be retrieved.
func (s *Set) LoadQueryTexts(path string) error {
	f, err := openInput(path)
	if err != nil {
		return &InputError{File: path, Err: fmt.Errorf("open queries: %w", err)}
	}
	defer f.Close()
	err = eachLine(f, path, MaxSetLineBytes, func(line []byte, n int) error {
		var raw struct {
			ID       string          `json:"id"`
			Text     string          `json:"text"`
			Query    string          `json:"query"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := DecodeStrict(line, &raw); err != nil {
			return jsonLineError(path, n, err)
		}
		if q := s.byID[raw.ID]; q != nil {
			q.Text = raw.Text
			if q.Text == "" {
				q.Text = raw.Query
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, q := range s.Queries {
		if strings.TrimSpace(q.Text) == "" {
			return inputErr(path, 0, "", "query %q of set %s has no text here", ClipID(q.ID), s.Path)
		}
	}
	return nil
}

// LoadSet reads and validates an eval set file (JSONL or TREC qrels).
func LoadSet(path string) (*Set, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, &InputError{File: path, Err: fmt.Errorf("open eval set: %w", err)}
	}
	defer f.Close()
	return ParseSet(f, path)
}

// ParseSet reads and validates an eval set. The format is detected from the
// first non-blank line: a JSON object means JSONL, anything else TREC qrels
// (`qid iter docid grade`, or the three-column BEIR `query-id corpus-id score`
// with an optional header). name is used in error messages.
func ParseSet(r io.Reader, name string) (*Set, error) {
	return parseSet(r, name, false)
}

// LoadDraft reads a set that may still be being labelled: a JSONL query
// with no relevant gold document is allowed (see Query.Labelled); every
// other rule holds. It is what `sample` writes and `label` edits.
func LoadDraft(path string) (*Set, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, &InputError{File: path, Err: fmt.Errorf("open eval set: %w", err)}
	}
	defer f.Close()
	return ParseDraft(f, path)
}

// ParseDraft is LoadDraft on a reader; name is used in messages.
func ParseDraft(r io.Reader, name string) (*Set, error) { return parseSet(r, name, true) }

// Labelled reports whether the query has a relevant gold document or is
// marked unanswerable: whether a person has labelled it.
func (q *Query) Labelled() bool { return q.relevant > 0 || q.Unanswerable }

func parseSet(r io.Reader, name string, draft bool) (*Set, error) {
	s := &Set{Path: name, byID: map[string]*Query{}}
	hash := sha256.New()
	r = io.TeeReader(r, hash)
	var qrels *qrelsParser
	err := eachLine(r, name, MaxSetLineBytes, func(line []byte, n int) error {
		if s.Format == "" {
			if looksJSON(line) {
				s.Format = "jsonl"
			} else {
				s.Format = "qrels"
				qrels = &qrelsParser{set: s}
			}
		}
		if s.Format == "jsonl" {
			q, err := parseQueryLine(line, name, n)
			if err != nil {
				return err
			}
			if prev, dup := s.byID[q.ID]; dup {
				return inputErr(name, n, "id", "duplicate query id %q (first on line %d)", ClipID(q.ID), prev.Line)
			}
			s.add(q)
			return nil
		}
		if err := qrels.line(line, name, n); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return nil, &InputError{File: name, Err: err}
	}
	s.Fingerprint = "sha256:" + hex.EncodeToString(hash.Sum(nil))
	if len(s.Queries) == 0 {
		return nil, inputErr(name, 0, "", "eval set is empty: no queries")
	}
	var onlyZero []string
	for _, q := range s.Queries {
		q.prepare()
		if q.relevant == 0 && s.Format == "qrels" && !draft {
			// TREC qrels have no way to say "unanswerable": a query judged
			// only grade 0 is one, scored 0 where trec_eval's means are asked.
			q.Unanswerable, q.OnlyZero = true, true
			onlyZero = append(onlyZero, q.ID)
		}
		if q.relevant == 0 && !q.Unanswerable && !draft {
			return nil, inputErr(name, q.Line, "gold", "query %q has no relevant gold document (grade > 0); label one (recallgate label) or mark it \"unanswerable\": true", ClipID(q.ID))
		}
		if q.relevant > 0 && q.Unanswerable {
			return nil, inputErr(name, q.Line, "unanswerable", "query %q is marked unanswerable but has relevant gold documents", ClipID(q.ID))
		}
	}
	if err := s.namesReadApart(); err != nil {
		return nil, err
	}
	if len(onlyZero) > 0 {
		if len(onlyZero) == len(s.Queries) {
			return nil, inputErr(name, 0, "", "no query of the qrels has a relevant document (grade > 0): nothing to score")
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d %s of the qrels %s judged only grade 0 (no relevant document): kept apart as unanswerable, and scored 0 in the trec_eval means: %s",
			len(onlyZero), Plural(len(onlyZero), "query", "queries"), Plural(len(onlyZero), "is", "are"), JoinFirst(onlyZero, 10)))
	}
	return s, nil
}

func (s *Set) add(q *Query) {
	s.Queries = append(s.Queries, q)
	s.byID[q.ID] = q
}

// rawQuery is the JSONL shape of one eval-set line.
type rawQuery struct {
	ID           *string            `json:"id"`
	Query        *string            `json:"query"`
	Gold         goldMap            `json:"gold"`
	Segments     []string           `json:"segments"`
	Source       string             `json:"source"`
	Evidence     []string           `json:"evidence"`
	Unanswerable bool               `json:"unanswerable"`
	Note         string             `json:"note"`
	Notes        map[string]string  `json:"notes"`
	Verified     string             `json:"verified"`
	Judgments    map[string]goldMap `json:"judgments"`
	Labellers    map[string]rawMark `json:"labellers"`
	Adjudicated  map[string]rawAdj  `json:"adjudicated"`
	FoundBy      []string           `json:"found_by_search"`
}

// rawMark is the JSONL shape of a Mark (and, for a judge, of its
// fingerprint and reasons).
type rawMark struct {
	Verified     string             `json:"verified,omitempty"`
	Unanswerable bool               `json:"unanswerable,omitempty"`
	Unsure       bool               `json:"unsure,omitempty"`
	Seconds      map[string]float64 `json:"seconds,omitempty"`
	Fingerprint  string             `json:"fingerprint,omitempty"`
	Reasons      map[string]string  `json:"reasons,omitempty"`
}

// rawAdj is the JSONL shape of an Adjudication.
type rawAdj struct {
	Grade  json.Number    `json:"grade"`
	By     string         `json:"by"`
	On     string         `json:"on"`
	Grades map[string]int `json:"grades,omitempty"`
}

func parseQueryLine(line []byte, file string, n int) (*Query, error) {
	var raw rawQuery
	if err := DecodeStrict(line, &raw); err != nil {
		ie := jsonLineError(file, n, err)
		if hint := setFieldHint(ie.Field); hint != "" && ie.Err.Error() == "unknown field" {
			ie.Err = errors.New("unknown field; " + hint)
		}
		return nil, ie
	}
	if raw.ID == nil || strings.TrimSpace(*raw.ID) == "" {
		return nil, inputErr(file, n, "id", "required and must not be empty")
	}
	id := *raw.ID
	if err := checkQueryID(file, n, "id", id); err != nil {
		return nil, err
	}
	if raw.Query == nil || strings.TrimSpace(*raw.Query) == "" {
		return nil, inputErr(file, n, "query", "query %q: required and must not be empty", ClipID(id))
	}
	if raw.Gold == nil {
		return nil, inputErr(file, n, "gold", "query %q: required (an object of doc id → grade 0–3; {} only with \"unanswerable\": true)", ClipID(id))
	}
	q := &Query{
		ID: id, Text: *raw.Query, Gold: make(map[string]int, len(raw.Gold)),
		Segments: raw.Segments, Source: raw.Source, Evidence: raw.Evidence,
		Unanswerable: raw.Unanswerable, Note: raw.Note, Line: n,
	}
	for who, note := range raw.Notes {
		if strings.TrimSpace(who) == "" {
			return nil, inputErr(file, n, "notes", "query %q: empty labeller name", ClipID(id))
		}
		if q.Notes == nil {
			q.Notes = map[string]string{}
		}
		q.Notes[who] = note
	}
	if raw.Verified != "" {
		v, err := time.Parse("2006-01-02", raw.Verified)
		if err != nil {
			return nil, inputErr(file, n, "verified", "query %q: %q is not a date like 2026-11-30", ClipID(id), raw.Verified)
		}
		q.Verified = v
	}
	if err := plainName(file, n, "source", "source", raw.Source); err != nil {
		return nil, err
	}
	for _, seg := range raw.Segments {
		if err := plainName(file, n, "segments", "segment", seg); err != nil {
			return nil, err
		}
	}
	for doc, num := range raw.Gold {
		if strings.TrimSpace(doc) == "" {
			return nil, inputErr(file, n, "gold", "query %q: empty document id", ClipID(id))
		}
		if err := plainName(file, n, "gold", "document id", doc); err != nil {
			return nil, err
		}
		g, err := parseGrade(num.String())
		if err != nil {
			return nil, inputErr(file, n, "gold."+doc, "query %q: %v", ClipID(id), err)
		}
		q.Gold[doc] = g
	}
	for who, grades := range raw.Judgments {
		if strings.TrimSpace(who) == "" {
			return nil, inputErr(file, n, "judgments", "query %q: empty labeller name", ClipID(id))
		}
		mine := map[string]int{}
		for doc, num := range grades {
			g, err := parseGrade(num.String())
			if err != nil {
				return nil, inputErr(file, n, "judgments."+who+"."+doc, "query %q: %v", ClipID(id), err)
			}
			mine[doc] = g
		}
		if name, ok := strings.CutPrefix(who, JudgePrefix); ok {
			q.judge(name).Grades = mine
			continue
		}
		if q.Judgments == nil {
			q.Judgments = map[string]map[string]int{}
		}
		q.Judgments[who] = mine
	}
	if err := parseRecord(&raw, q, file, n); err != nil {
		return nil, err
	}
	return q, nil
}

// parseRecord reads the judgements record beyond the grades: marks,
// adjudications and documents found by search.
func parseRecord(raw *rawQuery, q *Query, file string, n int) error {
	day := func(field, v string) (time.Time, error) {
		if v == "" {
			return time.Time{}, nil
		}
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return t, inputErr(file, n, field, "query %q: %q is not a date like 2026-11-30", ClipID(q.ID), v)
		}
		return t, nil
	}
	for who, m := range raw.Labellers {
		if strings.TrimSpace(who) == "" {
			return inputErr(file, n, "labellers", "query %q: empty labeller name", ClipID(q.ID))
		}
		if name, ok := strings.CutPrefix(who, JudgePrefix); ok {
			if err := parseJudge(q, name, m, file, n); err != nil {
				return err
			}
			continue
		}
		if m.Fingerprint != "" || m.Reasons != nil {
			return inputErr(file, n, "labellers."+who, "query %q: a fingerprint and reasons belong to a judge (a labeller named %s<name>), not to a person", q.ID, JudgePrefix)
		}
		v, err := day("labellers."+who+".verified", m.Verified)
		if err != nil {
			return err
		}
		for d, sec := range m.Seconds {
			if sec < 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
				return inputErr(file, n, "labellers."+who+".seconds."+d, "query %q: %v is not a number of seconds", ClipID(q.ID), sec)
			}
		}
		if q.Marks == nil {
			q.Marks = map[string]*Mark{}
		}
		q.Marks[who] = &Mark{Verified: v, Unanswerable: m.Unanswerable, Unsure: m.Unsure, Seconds: m.Seconds}
	}
	for doc, a := range raw.Adjudicated {
		if err := plainName(file, n, "adjudicated", "document id", doc); err != nil {
			return err
		}
		g, err := parseGrade(a.Grade.String())
		if err != nil {
			return inputErr(file, n, "adjudicated."+doc+".grade", "query %q: %v", ClipID(q.ID), err)
		}
		if strings.TrimSpace(a.By) == "" {
			return inputErr(file, n, "adjudicated."+doc+".by", "query %q: who decided is required", ClipID(q.ID))
		}
		on, err := day("adjudicated."+doc+".on", a.On)
		if err != nil {
			return err
		}
		if q.Adjudicated == nil {
			q.Adjudicated = map[string]Adjudication{}
		}
		q.Adjudicated[doc] = Adjudication{Grade: g, By: a.By, On: on, Grades: a.Grades}
	}
	for _, doc := range raw.FoundBy {
		if err := plainName(file, n, "found_by_search", "document id", doc); err != nil {
			return err
		}
	}
	q.FoundBySearch = raw.FoundBy
	for name, j := range q.Judges {
		if j.Fingerprint == "" {
			return inputErr(file, n, "labellers."+JudgePrefix+name+".fingerprint", "query %q: a judge's grades need the fingerprint of the judge that gave them", q.ID)
		}
	}
	return nil
}

// MarshalLine writes the query as one eval-set JSONL line (no newline),
// keys in a fixed order, empty optional fields left out.
func (q *Query) MarshalLine() ([]byte, error) {
	type line struct {
		ID           string                    `json:"id"`
		Query        string                    `json:"query"`
		Gold         map[string]int            `json:"gold"`
		Segments     []string                  `json:"segments,omitempty"`
		Source       string                    `json:"source,omitempty"`
		Evidence     []string                  `json:"evidence,omitempty"`
		Unanswerable bool                      `json:"unanswerable,omitempty"`
		Note         string                    `json:"note,omitempty"`
		Notes        map[string]string         `json:"notes,omitempty"`
		Verified     string                    `json:"verified,omitempty"`
		Judgments    map[string]map[string]int `json:"judgments,omitempty"`
		Labellers    map[string]rawMark        `json:"labellers,omitempty"`
		Adjudicated  map[string]rawAdj         `json:"adjudicated,omitempty"`
		FoundBy      []string                  `json:"found_by_search,omitempty"`
	}
	l := line{ID: q.ID, Query: q.Text, Gold: q.Gold, Segments: q.Segments, Source: q.Source, Evidence: q.Evidence,
		Unanswerable: q.Unanswerable, Note: q.Note, Notes: q.Notes, Judgments: q.Judgments, FoundBy: q.FoundBySearch}
	day := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.Format("2006-01-02")
	}
	for who, m := range q.Marks {
		if l.Labellers == nil {
			l.Labellers = map[string]rawMark{}
		}
		l.Labellers[who] = rawMark{Verified: day(m.Verified), Unanswerable: m.Unanswerable, Unsure: m.Unsure, Seconds: m.Seconds}
	}
	if len(q.Judges) > 0 {
		l.Judgments = maps.Clone(q.Judgments) // never q's own map
		if l.Judgments == nil {
			l.Judgments = map[string]map[string]int{}
		}
	}
	for name, j := range q.Judges {
		if l.Labellers == nil {
			l.Labellers = map[string]rawMark{}
		}
		grades := j.Grades
		if grades == nil {
			grades = map[string]int{}
		}
		l.Judgments[JudgePrefix+name] = grades
		l.Labellers[JudgePrefix+name] = rawMark{Fingerprint: j.Fingerprint, Reasons: j.Reasons}
	}
	for doc, a := range q.Adjudicated {
		if l.Adjudicated == nil {
			l.Adjudicated = map[string]rawAdj{}
		}
		l.Adjudicated[doc] = rawAdj{Grade: json.Number(strconv.Itoa(a.Grade)), By: a.By, On: day(a.On), Grades: a.Grades}
	}
	if l.Gold == nil {
		l.Gold = map[string]int{}
	}
	if !q.Verified.IsZero() {
		l.Verified = q.Verified.Format("2006-01-02")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Prepare recomputes what scoring derives from the gold labels, after a
// caller changed them (the labelling tool).
func (q *Query) Prepare() { q.prepare() }

// goldMap decodes the gold object keeping its order-independent content but
// rejecting a document id given twice, which a plain map would hide.
type goldMap map[string]json.Number

// UnmarshalJSON implements json.Unmarshaler.
func (g *goldMap) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("gold must be an object of document id → grade")
	}
	m := goldMap{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return err
		}
		num, ok := vt.(json.Number)
		if !ok {
			return fmt.Errorf("gold.%s: grade must be a number 0–%d, got %s", key, MaxGrade, jsonShown(vt))
		}
		if _, dup := m[key]; dup {
			return fmt.Errorf("gold.%s: document listed twice", key)
		}
		m[key] = num
	}
	*g = m
	return nil
}

// parseGrade accepts an integer grade in 0..MaxGrade.
func parseGrade(s string) (int, error) {
	g, err := strconv.Atoi(s)
	if err != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) && !strings.ContainsAny(s, "eE") {
			g, err = int(f), nil
		} else {
			return 0, fmt.Errorf("grade %s is not an integer 0–%d", s, MaxGrade)
		}
	}
	if g < 0 || g > MaxGrade {
		return 0, fmt.Errorf("grade %d is outside 0–%d", g, MaxGrade)
	}
	return g, nil
}

// qrelsParser accumulates TREC qrels lines into queries. Fields are split
// on ASCII white space, as trec_eval splits them, without a copy of the
// line; a query's id is made once for its run of lines.
type qrelsParser struct {
	set     *Set
	columns int // 4 for TREC qrels, 3 for BEIR TSV
	last    *Query
	// judged keeps the documents of the current run of lines (last's) and
	// their lines: a second judgement there is told with the first one's
	// line; one in an earlier block of the query, with that block's start.
	judged []judgedAt
}

type judgedAt struct {
	doc  string
	line int
}

func (p *qrelsParser) line(line []byte, file string, n int) error {
	fields, count := fields6(line)
	if p.columns == 0 {
		switch count {
		case 4, 3:
			p.columns = count
		default:
			return inputErr(file, n, "", "not a JSON object and not a qrels line (want `qid iter docid grade`, got %d fields)", count)
		}
		if p.columns == 3 {
			if _, err := strconv.Atoi(string(fields[2])); err != nil {
				return nil // BEIR header: query-id corpus-id score
			}
		}
	}
	if count != p.columns {
		return inputErr(file, n, "", "qrels line has %d fields, want %d like the first line", count, p.columns)
	}
	docField := fields[2]
	if p.columns == 3 {
		docField = fields[1]
	}
	q := p.last
	if q == nil || q.ID != string(fields[0]) {
		qid := string(fields[0])
		if err := checkQueryID(file, n, "", qid); err != nil {
			return err
		}
		if q = p.set.byID[qid]; q == nil {
			q = &Query{ID: qid, Gold: map[string]int{}, Line: n}
			p.set.add(q)
		}
		p.last, p.judged = q, p.judged[:0]
	}
	doc := string(docField)
	if err := plainName(file, n, "", "document id", doc); err != nil {
		return err
	}
	g, err := parseGrade(string(fields[p.columns-1]))
	if err != nil {
		return inputErr(file, n, "grade", "query %q doc %q: %v", ClipID(q.ID), doc, err)
	}
	if _, dup := q.Gold[doc]; dup {
		for _, j := range p.judged {
			if j.doc == doc {
				return inputErr(file, n, "", "query %q doc %q is judged twice (first on line %d)", ClipID(q.ID), doc, j.line)
			}
		}
		return inputErr(file, n, "", "query %q doc %q is judged twice (first in the query's earlier lines, which start on line %d)", ClipID(q.ID), doc, q.Line)
	}
	q.Gold[doc] = g
	p.judged = append(p.judged, judgedAt{doc, n})
	return nil
}

// jsonLineError turns an encoding/json error into an InputError naming the
// field when it can.
func jsonLineError(file string, n int, err error) *InputError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var dup *DuplicateKeyError
	msg := err.Error()
	switch {
	case errors.As(err, &dup):
		field := strings.TrimPrefix(strings.TrimPrefix(dup.Path, "$"), ".")
		if field != "" {
			field += "."
		}
		what := "key listed twice"
		if field == "gold." || strings.HasPrefix(field, "judgments.") {
			what = "document listed twice"
		}
		return inputErr(file, n, field+dup.Key, "%s (a reader would keep only one of them)", what)
	case errors.As(err, &syn):
		return inputErr(file, n, "", "invalid JSON at column %d: %s", syn.Offset, strings.TrimPrefix(msg, "json: "))
	case errors.As(err, &typ):
		return inputErr(file, n, typ.Field, "wrong type: got JSON %s, want %s", typ.Value, jsonTypeName(typ.Type))
	case strings.HasPrefix(msg, "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
		return inputErr(file, n, field, "unknown field")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return inputErr(file, n, "", "invalid JSON: the line ends inside the object")
	}
	return inputErr(file, n, "", "invalid JSON: %s", strings.TrimPrefix(msg, "json: "))
}

// Judged reports whether anyone graded doc for the query: it has a gold
// grade (0 included) or a grade in some labeller's judgments.
func (q *Query) Judged(doc string) bool {
	if _, ok := q.Gold[doc]; ok {
		return true
	}
	for _, grades := range q.Judgments {
		if _, ok := grades[doc]; ok {
			return true
		}
	}
	return false
}

// RecordsJudgements reports whether the set says which documents were
// judged not relevant (a grade-0 label or per-labeller judgments): only
// then can an unjudged document be told from a judged non-relevant one.
func (s *Set) RecordsJudgements() bool {
	for _, q := range s.Queries {
		if len(q.Judgments) > 0 || len(q.Gold) > q.relevant {
			return true
		}
	}
	return false
}

// plainName refuses a name with a control character (a line break, an
// escape sequence): ids, segments and sources are printed in logs, PR
// comments and annotations, where a line break could forge a line of
// output (a workflow command such as ::set-output).
// checkQueryID refuses a set's query id past MaxRunIDBytes (as a run's
// is refused), or one plainName refuses.
func checkQueryID(file string, n int, field, id string) error {
	if len(id) > MaxRunIDBytes {
		return inputErr(file, n, field, "%d bytes, over the %d-byte limit of a query id: %s", len(id), MaxRunIDBytes, ClipID(id))
	}
	return plainName(file, n, field, "query id", id)
}

func plainName(file string, n int, field, what, s string) error {
	if r, i, bad := ControlChar(s); bad {
		return inputErr(file, n, field, "%s %q has a control character (U+%04X at byte %d): names are printed in logs and reports, where it could forge a line", what, ClipID(s), r, i)
	}
	if r, i, bad := InvisibleChar(s); bad {
		kind := "an invisible character"
		if IsBidiControl(r) {
			kind = "a bidi control"
		}
		return inputErr(file, n, field, "%s %s has %s (U+%04X at byte %d): it would read as another name in reports and reviews", what, ShowName(ClipID(s)), kind, r, i)
	}
	return nil
}

// namesReadApart refuses two query ids, two gold document ids or two
// segment names of the set that read the same (FoldName) but differ: a
// full-width "ｑ1" beside "q1", or a joiner kept between two letters. A
// reviewer could not tell them apart in a report.
func (s *Set) namesReadApart() error {
	type seen struct {
		name string
		line int
	}
	ids, docs, segs := map[string]seen{}, map[string]seen{}, map[string]seen{}
	check := func(m map[string]seen, line int, field, what, name string) error {
		f := FoldName(name)
		if prev, ok := m[f]; ok && prev.name != name {
			return inputErr(s.Path, line, field, "%s %s reads the same as %s (line %d): they differ only by invisible or full-width characters; use one spelling", what, ShowName(name), ShowName(prev.name), prev.line)
		}
		if _, ok := m[f]; !ok {
			m[f] = seen{name, line}
		}
		return nil
	}
	for _, q := range s.Queries {
		if err := check(ids, q.Line, "id", "query id", q.ID); err != nil {
			return err
		}
		for _, seg := range q.Segments {
			if err := check(segs, q.Line, "segments", "segment", seg); err != nil {
				return err
			}
		}
		gold := make([]string, 0, len(q.Gold))
		for d := range q.Gold {
			gold = append(gold, d)
		}
		sort.Strings(gold)
		for _, d := range gold {
			if err := check(docs, q.Line, "gold", "document id", d); err != nil {
				return err
			}
		}
	}
	return nil
}

// ControlChar finds the first control character of s (line and paragraph
// separators included): the rune, its byte offset, and whether there is one.
func ControlChar(s string) (rune, int, bool) {
	for i, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return r, i, true
		}
	}
	return 0, 0, false
}

// jsonTypeName says what JSON a Go type takes, for messages that must not
// speak Go ("a string", not "string"; "an object", not "map[string]gate.goldMap").
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a finite number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// jsonShown writes a JSON token as the line gave it: a string quoted
// ("1", not 1), an object or array named.
func jsonShown(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "an object"
	}
	return fmt.Sprint(tok)
}

// setFieldAliases are the names other tools and habits give a set line's
// fields.
var setFieldAliases = map[string]string{
	"text": "query", "question": "query", "q": "query", "query_text": "query", "claim": "query",
	"qid": "id", "query_id": "id", "_id": "id", "query-id": "id",
	"relevant": "gold", "qrels": "gold", "labels": "gold", "grades": "gold", "relevance": "gold",
	"relevant_docs": "gold", "answers": "gold", "expected": "gold", "golds": "gold",
	"segment": "segments", "tags": "segments", "answerable": "unanswerable",
}

// setFieldHint says which field a set line's unknown top-level field
// most likely meant ("text" → did you mean "query"?), or lists the fields
// a line takes; "" for a nested field.
func setFieldHint(field string) string {
	if field == "" || strings.Contains(field, ".") {
		return ""
	}
	t := reflect.TypeOf(rawQuery{})
	known := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		known = append(known, t.Field(i).Tag.Get("json"))
	}
	want := setFieldAliases[strings.ToLower(field)]
	for _, k := range known {
		if strings.EqualFold(k, field) || strings.EqualFold(k+"s", field) {
			want = k
		}
	}
	if want != "" {
		return fmt.Sprintf("did you mean %q? (a set line is {\"id\": …, \"query\": …, \"gold\": {doc: grade}})", want)
	}
	return "a set line takes " + strings.Join(known, ", ")
}

// parseJudge reads a judge's labellers entry: its fingerprint and reasons
// only (a judge has no dates, marks or timings).
func parseJudge(q *Query, name string, m rawMark, file string, n int) error {
	field := "labellers." + JudgePrefix + name
	if strings.TrimSpace(name) == "" {
		return inputErr(file, n, field, "query %q: a judge needs a name after %q", q.ID, JudgePrefix)
	}
	if m.Verified != "" || m.Unanswerable || m.Unsure || m.Seconds != nil {
		return inputErr(file, n, field, "query %q: a judge's entry holds its fingerprint and reasons only (verified, unanswerable, unsure and seconds are a person's)", q.ID)
	}
	if r, i, bad := ControlChar(m.Fingerprint); bad {
		return inputErr(file, n, field+".fingerprint", "query %q: control character U+%04X at byte %d", q.ID, r, i)
	}
	j := q.judge(name)
	j.Fingerprint, j.Reasons = m.Fingerprint, m.Reasons
	return nil
}

// ReplaceQueryLines is data (a JSONL set file's bytes) with the line of
// each query of qs (Query.Line) replaced by its MarshalLine, every other
// byte as it was: the one way a set file is rewritten (the labelling
// page, the judge).
func ReplaceQueryLines(data []byte, qs ...*Query) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	for _, q := range qs {
		if q.Line < 1 || q.Line > len(lines) {
			return nil, fmt.Errorf("query %s: line %d is not in the file", q.ID, q.Line)
		}
		line, err := q.MarshalLine()
		if err != nil {
			return nil, err
		}
		nl := ""
		if strings.HasSuffix(lines[q.Line-1], "\n") {
			nl = "\n"
		}
		lines[q.Line-1] = string(line) + nl
	}
	return []byte(strings.Join(lines, "")), nil
}
