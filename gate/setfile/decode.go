package setfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

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
			return fmt.Errorf("gold.%s: grade must be a number 0–%d, got %s", key, gate.MaxGrade, input.JSONShown(vt))
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
			return 0, fmt.Errorf("grade %s is not an integer 0–%d", s, gate.MaxGrade)
		}
	}
	if g < 0 || g > gate.MaxGrade {
		return 0, fmt.Errorf("grade %d is outside 0–%d", g, gate.MaxGrade)
	}
	return g, nil
}

// qrelsParser accumulates TREC qrels lines into queries. Fields are split
// on ASCII white space, as trec_eval splits them, without a copy of the
// line; a query's id is made once for its run of lines.
type qrelsParser struct {
	set     *gate.Set
	columns int // 4 for TREC qrels, 3 for BEIR TSV
	last    *gate.Query
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
	fields, count := input.Fields6(line)
	if p.columns == 0 {
		switch count {
		case 4, 3:
			p.columns = count
		default:
			return input.Errf(file, n, "", "not a JSON object and not a qrels line (want `qid iter docid grade`, got %d fields)", count)
		}
		if p.columns == 3 {
			if _, err := strconv.Atoi(string(fields[2])); err != nil {
				return nil // BEIR header: query-id corpus-id score
			}
		}
	}
	if count != p.columns {
		return input.Errf(file, n, "", "qrels line has %d fields, want %d like the first line", count, p.columns)
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
		if q = p.set.Query(qid); q == nil {
			q = &gate.Query{ID: qid, Gold: map[string]int{}, Line: n}
			p.set.Add(q)
		}
		p.last, p.judged = q, p.judged[:0]
	}
	doc := string(docField)
	if err := plainName(file, n, "", "document id", doc); err != nil {
		return err
	}
	g, err := parseGrade(string(fields[p.columns-1]))
	if err != nil {
		return input.Errf(file, n, "grade", "query %q doc %q: %v", input.ClipID(q.ID), doc, err)
	}
	if _, dup := q.Gold[doc]; dup {
		for _, j := range p.judged {
			if j.doc == doc {
				return input.Errf(file, n, "", "query %q doc %q is judged twice (first on line %d)", input.ClipID(q.ID), doc, j.line)
			}
		}
		return input.Errf(file, n, "", "query %q doc %q is judged twice (first in the query's earlier lines, which start on line %d)", input.ClipID(q.ID), doc, q.Line)
	}
	q.Gold[doc] = g
	p.judged = append(p.judged, judgedAt{doc, n})
	return nil
}

// plainName refuses a name with a control character (a line break, an
// escape sequence): ids, segments and sources are printed in logs, PR
// comments and annotations, where a line break could forge a line of
// output (a workflow command such as ::set-output).
// checkQueryID refuses a set's query id past MaxRunIDBytes (as a run's
// is refused), or one plainName refuses.
func checkQueryID(file string, n int, field, id string) error {
	if len(id) > gate.MaxRunIDBytes {
		return input.Errf(file, n, field, "%d bytes, over the %d-byte limit of a query id: %s", len(id), gate.MaxRunIDBytes, input.ClipID(id))
	}
	return plainName(file, n, field, "query id", id)
}

func plainName(file string, n int, field, what, s string) error {
	if r, i, bad := input.ControlChar(s); bad {
		return input.Errf(file, n, field, "%s %q has a control character (U+%04X at byte %d): names are printed in logs and reports, where it could forge a line", what, input.ClipID(s), r, i)
	}
	if r, i, bad := gate.InvisibleChar(s); bad {
		kind := "an invisible character"
		if gate.IsBidiControl(r) {
			kind = "a bidi control"
		}
		return input.Errf(file, n, field, "%s %s has %s (U+%04X at byte %d): it would read as another name in reports and reviews", what, gate.ShowName(input.ClipID(s)), kind, r, i)
	}
	return nil
}

// namesReadApart refuses two query ids, two gold document ids or two
// segment names of the set that read the same (FoldName) but differ: a
// full-width "ｑ1" beside "q1", or a joiner kept between two letters. A
// reviewer could not tell them apart in a report.
func namesReadApart(s *gate.Set) error {
	type seen struct {
		name string
		line int
	}
	ids, docs, segs := map[string]seen{}, map[string]seen{}, map[string]seen{}
	check := func(m map[string]seen, line int, field, what, name string) error {
		f := gate.FoldName(name)
		if prev, ok := m[f]; ok && prev.name != name {
			return input.Errf(s.Path, line, field, "%s %s reads the same as %s (line %d): they differ only by invisible or full-width characters; use one spelling", what, gate.ShowName(name), gate.ShowName(prev.name), prev.line)
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
func parseJudge(q *gate.Query, name string, m gate.MarkLine, file string, n int) error {
	field := "labellers." + gate.JudgePrefix + name
	if strings.TrimSpace(name) == "" {
		return input.Errf(file, n, field, "query %q: a judge needs a name after %q", q.ID, gate.JudgePrefix)
	}
	if m.Verified != "" || m.Unanswerable || m.Unsure || m.Seconds != nil {
		return input.Errf(file, n, field, "query %q: a judge's entry holds its fingerprint and reasons only (verified, unanswerable, unsure and seconds are a person's)", q.ID)
	}
	if r, i, bad := input.ControlChar(m.Fingerprint); bad {
		return input.Errf(file, n, field+".fingerprint", "query %q: control character U+%04X at byte %d", q.ID, r, i)
	}
	j := q.Judge(name)
	j.Fingerprint, j.Reasons = m.Fingerprint, m.Reasons
	return nil
}
