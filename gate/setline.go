package gate

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"
	"time"
)

// Labelled reports whether the query has a relevant gold document or is
// marked unanswerable: whether a person has labelled it.
func (q *Query) Labelled() bool { return q.relevant > 0 || q.Unanswerable }

// Judge returns the query's record of the judge name, made when absent
// (the set reader fills it).
func (q *Query) Judge(name string) *JudgeGrades { return q.judge(name) }

// NewSet returns an empty set read from path, for a reader to Add to.
func NewSet(path string) *Set { return &Set{Path: path, byID: map[string]*Query{}} }

// Add appends a query read from the set file (ids are the reader's to keep
// apart).
func (s *Set) Add(q *Query) { s.add(q) }

// add appends q and indexes it by id.
func (s *Set) add(q *Query) {
	s.Queries = append(s.Queries, q)
	s.byID[q.ID] = q
}

// MarkLine is the JSONL shape of a Mark (and, for a judge, of its
// fingerprint and reasons).
type MarkLine struct {
	Verified     string             `json:"verified,omitempty"`
	Unanswerable bool               `json:"unanswerable,omitempty"`
	Unsure       bool               `json:"unsure,omitempty"`
	Seconds      map[string]float64 `json:"seconds,omitempty"`
	Fingerprint  string             `json:"fingerprint,omitempty"`
	Reasons      map[string]string  `json:"reasons,omitempty"`
}

// AdjudicationLine is the JSONL shape of an Adjudication.
type AdjudicationLine struct {
	Grade  json.Number    `json:"grade"`
	By     string         `json:"by"`
	On     string         `json:"on"`
	Grades map[string]int `json:"grades,omitempty"`
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

// MarshalLine writes the query as one eval-set JSONL line (no newline),
// keys in a fixed order, empty optional fields left out.
func (q *Query) MarshalLine() ([]byte, error) {
	type line struct {
		ID           string                      `json:"id"`
		Query        string                      `json:"query"`
		Gold         map[string]int              `json:"gold"`
		Segments     []string                    `json:"segments,omitempty"`
		Source       string                      `json:"source,omitempty"`
		Evidence     []string                    `json:"evidence,omitempty"`
		Unanswerable bool                        `json:"unanswerable,omitempty"`
		Note         string                      `json:"note,omitempty"`
		Notes        map[string]string           `json:"notes,omitempty"`
		Verified     string                      `json:"verified,omitempty"`
		Judgments    map[string]map[string]int   `json:"judgments,omitempty"`
		Labellers    map[string]MarkLine         `json:"labellers,omitempty"`
		Adjudicated  map[string]AdjudicationLine `json:"adjudicated,omitempty"`
		FoundBy      []string                    `json:"found_by_search,omitempty"`
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
			l.Labellers = map[string]MarkLine{}
		}
		l.Labellers[who] = MarkLine{Verified: day(m.Verified), Unanswerable: m.Unanswerable, Unsure: m.Unsure, Seconds: m.Seconds}
	}
	if len(q.Judges) > 0 {
		l.Judgments = maps.Clone(q.Judgments) // never q's own map
		if l.Judgments == nil {
			l.Judgments = map[string]map[string]int{}
		}
	}
	for name, j := range q.Judges {
		if l.Labellers == nil {
			l.Labellers = map[string]MarkLine{}
		}
		grades := j.Grades
		if grades == nil {
			grades = map[string]int{}
		}
		l.Judgments[JudgePrefix+name] = grades
		l.Labellers[JudgePrefix+name] = MarkLine{Fingerprint: j.Fingerprint, Reasons: j.Reasons}
	}
	for doc, a := range q.Adjudicated {
		if l.Adjudicated == nil {
			l.Adjudicated = map[string]AdjudicationLine{}
		}
		l.Adjudicated[doc] = AdjudicationLine{Grade: json.Number(strconv.Itoa(a.Grade)), By: a.By, On: day(a.On), Grades: a.Grades}
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
