package setfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

// Load reads and validates an eval set file (JSONL or TREC qrels).
func Load(path string) (*gate.Set, error) {
	f, err := input.Open(path)
	if err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("open eval set: %w", err)}
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads and validates an eval set. The format is detected from the
// first non-blank line: a JSON object means JSONL, anything else TREC qrels
// (`qid iter docid grade`, or the three-column BEIR `query-id corpus-id score`
// with an optional header). name is used in error messages.
func Parse(r io.Reader, name string) (*gate.Set, error) {
	return parseSet(r, name, false)
}

// LoadDraft reads a set that may still be being labelled: a JSONL query
// with no relevant gold document is allowed (see Query.Labelled); every
// other rule holds. It is what `sample` writes and `label` edits.
func LoadDraft(path string) (*gate.Set, error) {
	f, err := input.Open(path)
	if err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("open eval set: %w", err)}
	}
	defer f.Close()
	return ParseDraft(f, path)
}

// ParseDraft is LoadDraft on a reader; name is used in messages.
func ParseDraft(r io.Reader, name string) (*gate.Set, error) { return parseSet(r, name, true) }

func parseSet(r io.Reader, name string, draft bool) (*gate.Set, error) {
	s := gate.NewSet(name)
	hash := sha256.New()
	r = io.TeeReader(r, hash)
	var qrels *qrelsParser
	err := input.EachLine(r, name, gate.MaxSetLineBytes, func(line []byte, n int) error {
		if s.Format == "" {
			if input.LooksJSON(line) {
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
			if prev := s.Query(q.ID); prev != nil {
				return input.Errf(name, n, "id", "duplicate query id %q (first on line %d)", input.ClipID(q.ID), prev.Line)
			}
			s.Add(q)
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
		return nil, &gate.InputError{File: name, Err: err}
	}
	s.Fingerprint = "sha256:" + hex.EncodeToString(hash.Sum(nil))
	if len(s.Queries) == 0 {
		return nil, input.Errf(name, 0, "", "eval set is empty: no queries")
	}
	var onlyZero []string
	for _, q := range s.Queries {
		q.Prepare()
		if doc, sec, mixed := q.MixedUnits(); mixed {
			return nil, input.Errf(name, q.Line, "gold", "query %q labels a document (%s) and a section (%s): a query is scored in one unit; label the document's sections, or split the query in two", input.ClipID(q.ID), doc, sec)
		}
		if q.Relevant() == 0 && s.Format == "qrels" && !draft {
			// TREC qrels have no way to say "unanswerable": a query judged
			// only grade 0 is one, scored 0 where trec_eval's means are asked.
			q.Unanswerable, q.OnlyZero = true, true
			onlyZero = append(onlyZero, q.ID)
		}
		if q.Relevant() == 0 && !q.Unanswerable && !draft {
			return nil, input.Errf(name, q.Line, "gold", "query %q has no relevant gold document (grade > 0); label one (recallgate label) or mark it \"unanswerable\": true", input.ClipID(q.ID))
		}
		if q.Relevant() > 0 && q.Unanswerable {
			return nil, input.Errf(name, q.Line, "unanswerable", "query %q is marked unanswerable but has relevant gold documents", input.ClipID(q.ID))
		}
	}
	if err := namesReadApart(s); err != nil {
		return nil, err
	}
	if len(onlyZero) > 0 {
		if len(onlyZero) == len(s.Queries) {
			return nil, input.Errf(name, 0, "", "no query of the qrels has a relevant document (grade > 0): nothing to score")
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d %s of the qrels %s judged only grade 0 (no relevant document): kept apart as unanswerable, and scored 0 in the trec_eval means: %s",
			len(onlyZero), gate.Plural(len(onlyZero), "query", "queries"), gate.Plural(len(onlyZero), "is", "are"), gate.JoinFirst(onlyZero, 10)))
	}
	return s, nil
}

// rawQuery is the JSONL shape of one eval-set line.
type rawQuery struct {
	ID           *string                          `json:"id"`
	Query        *string                          `json:"query"`
	Gold         goldMap                          `json:"gold"`
	Segments     []string                         `json:"segments"`
	Source       string                           `json:"source"`
	Evidence     []string                         `json:"evidence"`
	Unanswerable bool                             `json:"unanswerable"`
	Note         string                           `json:"note"`
	Notes        map[string]string                `json:"notes"`
	Verified     string                           `json:"verified"`
	Judgments    map[string]goldMap               `json:"judgments"`
	Labellers    map[string]gate.MarkLine         `json:"labellers"`
	Adjudicated  map[string]gate.AdjudicationLine `json:"adjudicated"`
	FoundBy      []string                         `json:"found_by_search"`
}

func parseQueryLine(line []byte, file string, n int) (*gate.Query, error) {
	var raw rawQuery
	if err := input.DecodeStrict(line, &raw); err != nil {
		ie := input.JSONLineError(file, n, err)
		if hint := setFieldHint(ie.Field); hint != "" && ie.Err.Error() == "unknown field" {
			ie.Err = errors.New("unknown field; " + hint)
		}
		return nil, ie
	}
	if raw.ID == nil || strings.TrimSpace(*raw.ID) == "" {
		return nil, input.Errf(file, n, "id", "required and must not be empty")
	}
	id := *raw.ID
	if err := checkQueryID(file, n, "id", id); err != nil {
		return nil, err
	}
	if raw.Query == nil || strings.TrimSpace(*raw.Query) == "" {
		return nil, input.Errf(file, n, "query", "query %q: required and must not be empty", input.ClipID(id))
	}
	if raw.Gold == nil {
		return nil, input.Errf(file, n, "gold", "query %q: required (an object of doc id → grade 0–3; {} only with \"unanswerable\": true)", input.ClipID(id))
	}
	q := &gate.Query{
		ID: id, Text: *raw.Query, Gold: make(map[string]int, len(raw.Gold)),
		Segments: raw.Segments, Source: raw.Source, Evidence: raw.Evidence,
		Unanswerable: raw.Unanswerable, Note: raw.Note, Line: n,
	}
	for who, note := range raw.Notes {
		if strings.TrimSpace(who) == "" {
			return nil, input.Errf(file, n, "notes", "query %q: empty labeller name", input.ClipID(id))
		}
		if q.Notes == nil {
			q.Notes = map[string]string{}
		}
		q.Notes[who] = note
	}
	if raw.Verified != "" {
		v, err := time.Parse("2006-01-02", raw.Verified)
		if err != nil {
			return nil, input.Errf(file, n, "verified", "query %q: %q is not a date like 2026-11-30", input.ClipID(id), raw.Verified)
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
			return nil, input.Errf(file, n, "gold", "query %q: empty document id", input.ClipID(id))
		}
		if err := plainName(file, n, "gold", "document id", doc); err != nil {
			return nil, err
		}
		g, err := parseGrade(num.String())
		if err != nil {
			return nil, input.Errf(file, n, "gold."+doc, "query %q: %v", input.ClipID(id), err)
		}
		q.Gold[doc] = g
	}
	for who, grades := range raw.Judgments {
		if strings.TrimSpace(who) == "" {
			return nil, input.Errf(file, n, "judgments", "query %q: empty labeller name", input.ClipID(id))
		}
		mine := map[string]int{}
		for doc, num := range grades {
			g, err := parseGrade(num.String())
			if err != nil {
				return nil, input.Errf(file, n, "judgments."+who+"."+doc, "query %q: %v", input.ClipID(id), err)
			}
			mine[doc] = g
		}
		if name, ok := strings.CutPrefix(who, gate.JudgePrefix); ok {
			q.Judge(name).Grades = mine
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
func parseRecord(raw *rawQuery, q *gate.Query, file string, n int) error {
	day := func(field, v string) (time.Time, error) {
		if v == "" {
			return time.Time{}, nil
		}
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return t, input.Errf(file, n, field, "query %q: %q is not a date like 2026-11-30", input.ClipID(q.ID), v)
		}
		return t, nil
	}
	for who, m := range raw.Labellers {
		if strings.TrimSpace(who) == "" {
			return input.Errf(file, n, "labellers", "query %q: empty labeller name", input.ClipID(q.ID))
		}
		if name, ok := strings.CutPrefix(who, gate.JudgePrefix); ok {
			if err := parseJudge(q, name, m, file, n); err != nil {
				return err
			}
			continue
		}
		if m.Fingerprint != "" || m.Reasons != nil {
			return input.Errf(file, n, "labellers."+who, "query %q: a fingerprint and reasons belong to a judge (a labeller named %s<name>), not to a person", q.ID, gate.JudgePrefix)
		}
		v, err := day("labellers."+who+".verified", m.Verified)
		if err != nil {
			return err
		}
		for d, sec := range m.Seconds {
			if sec < 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
				return input.Errf(file, n, "labellers."+who+".seconds."+d, "query %q: %v is not a number of seconds", input.ClipID(q.ID), sec)
			}
		}
		if q.Marks == nil {
			q.Marks = map[string]*gate.Mark{}
		}
		q.Marks[who] = &gate.Mark{Verified: v, Unanswerable: m.Unanswerable, Unsure: m.Unsure, Seconds: m.Seconds}
	}
	for doc, a := range raw.Adjudicated {
		if err := plainName(file, n, "adjudicated", "document id", doc); err != nil {
			return err
		}
		g, err := parseGrade(a.Grade.String())
		if err != nil {
			return input.Errf(file, n, "adjudicated."+doc+".grade", "query %q: %v", input.ClipID(q.ID), err)
		}
		if strings.TrimSpace(a.By) == "" {
			return input.Errf(file, n, "adjudicated."+doc+".by", "query %q: who decided is required", input.ClipID(q.ID))
		}
		on, err := day("adjudicated."+doc+".on", a.On)
		if err != nil {
			return err
		}
		if q.Adjudicated == nil {
			q.Adjudicated = map[string]gate.Adjudication{}
		}
		q.Adjudicated[doc] = gate.Adjudication{Grade: g, By: a.By, On: on, Grades: a.Grades}
	}
	for _, doc := range raw.FoundBy {
		if err := plainName(file, n, "found_by_search", "document id", doc); err != nil {
			return err
		}
	}
	q.FoundBySearch = raw.FoundBy
	for name, j := range q.Judges {
		if j.Fingerprint == "" {
			return input.Errf(file, n, "labellers."+gate.JudgePrefix+name+".fingerprint", "query %q: a judge's grades need the fingerprint of the judge that gave them", q.ID)
		}
	}
	return nil
}
