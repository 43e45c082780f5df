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
	"strconv"
	"strings"
	"time"
)

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
