package gate

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseSetJSONL(t *testing.T) {
	in := `{"id":"q07","query":"rotate api key","gold":{"security/api-keys":3,"admin/tokens":1},"segments":["keyword"],"source":"ticket","evidence":["Settings → Keys"],"note":"n"}

{"id":"q08","query":"no answer","gold":{},"unanswerable":true}
`
	s, err := ParseSet(strings.NewReader(in), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "jsonl" || len(s.Queries) != 2 || s.Answerable() != 1 {
		t.Fatalf("format %s, %d queries, %d answerable", s.Format, len(s.Queries), s.Answerable())
	}
	q := s.Query("q07")
	if q.Line != 1 || q.Relevant() != 2 || q.Gold["security/api-keys"] != 3 || q.Source != "ticket" || q.Segments[0] != "keyword" {
		t.Errorf("q07 = %+v", q)
	}
	if got := strings.Join(q.RelevantDocs(), ","); got != "security/api-keys,admin/tokens" {
		t.Errorf("relevant docs %s", got)
	}
	if s.Query("q08").Line != 3 {
		t.Errorf("q08 line %d, want 3", s.Query("q08").Line)
	}
}

func TestParseSetQrels(t *testing.T) {
	for name, in := range map[string]string{
		"trec": "1 0 d1 2\n1 0 d2 0\n2 0 d3 1\n",
		"beir": "query-id\tcorpus-id\tscore\n1\td1\t2\n1\td2\t0\n2\td3\t1\n",
	} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSet(strings.NewReader(in), "qrels")
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != "qrels" || len(s.Queries) != 2 {
				t.Fatalf("%s, %d queries", s.Format, len(s.Queries))
			}
			q := s.Query("1")
			if q.Gold["d1"] != 2 || q.Gold["d2"] != 0 || q.Relevant() != 1 {
				t.Errorf("query 1 gold %v", q.Gold)
			}
		})
	}
}

func TestParseSetErrors(t *testing.T) {
	good := `{"id":"q1","query":"a","gold":{"d":1}}` + "\n"
	tests := []struct {
		name, in, want string
		line           int
	}{
		{"bad JSON on line 7", gen(6) + `{"id":"q9","query":` + "\n", "invalid JSON", 7},
		{"unknown field", `{"id":"q1","query":"a","gold":{"d":1},"golds":{}}`, "golds: unknown field", 1},
		{"text for query", `{"id":"q1","text":"a","gold":{"d":1}}`, `text: unknown field; did you mean "query"?`, 1},
		{"qid for id", `{"qid":"q1","query":"a","gold":{"d":1}}`, `qid: unknown field; did you mean "id"?`, 1},
		{"no near field", `{"id":"q1","query":"a","gold":{"d":1},"frobnicate":1}`, "frobnicate: unknown field; a set line takes id, query, gold, segments,", 1},
		{"grade as a string", `{"id":"q1","query":"a","gold":{"d":"1"}}`, `gold.d: grade must be a number 0–3, got "1"`, 1},
		{"grade as an object", `{"id":"q1","query":"a","gold":{"d":{}}}`, `gold.d: grade must be a number 0–3, got an object`, 1},
		{"grade 5", good + `{"id":"q2","query":"a","gold":{"d":5}}`, "gold.d: query \"q2\": grade 5 is outside 0–3", 2},
		{"fractional grade", `{"id":"q2","query":"a","gold":{"d":1.5}}`, "not an integer", 1},
		{"duplicate id", good + good, "duplicate query id \"q1\" (first on line 1)", 2},
		{"empty file", "\n\n", "eval set is empty", 0},
		{"no relevant gold", `{"id":"q1","query":"a","gold":{"d":0}}`, "no relevant gold document", 1},
		{"unanswerable with gold", `{"id":"q1","query":"a","gold":{"d":1},"unanswerable":true}`, "marked unanswerable but has relevant", 1},
		{"missing id", `{"query":"a","gold":{"d":1}}`, "id: required", 1},
		{"missing query", `{"id":"q","gold":{"d":1}}`, "query: query \"q\": required", 1},
		{"missing gold", `{"id":"q","query":"a"}`, "gold: query \"q\": required", 1},
		{"wrong type", `{"id":7,"query":"a","gold":{"d":1}}`, "id: wrong type", 1},
		{"trailing data", `{"id":"q","query":"a","gold":{"d":1}} x`, "unexpected data", 1},
		{"qrels grade out of range", "1 0 d 4\n", "grade 4 is outside", 1},
		{"qrels short line", "1 0 d 1\n2 0 d\n", "has 3 fields, want 4", 2},
		{"qrels duplicate pair", "1 0 d 1\n1 0 d 2\n", "judged twice (first on line 1)", 2},
		{"qrels duplicate pair across blocks", "1 0 d 1\n2 0 e 1\n1 0 d 2\n", "judged twice (first in the query's earlier lines, which start on line 1)", 3},
		{"qrels no relevant", "1 0 d 0\n", "no query of the qrels has a relevant document", 0},
		{"garbage", "hello\n", "not a qrels line", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSet(strings.NewReader(tt.in), "set.jsonl")
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an InputError", err)
			}
			if ie.Line != tt.line || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "set.jsonl") {
				t.Errorf("got %q (line %d), want line %d and %q", err, ie.Line, tt.line, tt.want)
			}
		})
	}
}

// gen returns n valid, distinct eval-set lines.
func gen(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(`{"id":"g` + string(rune('a'+i)) + `","query":"x","gold":{"d":1}}` + "\n")
	}
	return b.String()
}

func TestParseSetGoldObjectErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"id":"q","query":"a","gold":{"d":1,"d":2}}`: "gold.d: document listed twice",
		`{"id":"q","query":"a","gold":{"d":"2"}}`:     "grade must be a number",
		`{"id":"q","query":"a","gold":["d"]}`:         "gold must be an object",
	} {
		_, err := ParseSet(strings.NewReader(in), "s.jsonl")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "s.jsonl:1:") {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestSetRefusesControlCharacters(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"id":"q1\n::set-output name=verdict::pass","query":"x","gold":{"a":1}}`, `s.jsonl:1: id: query id "q1\n::set-output name=verdict::pass" has a control character (U+000A at byte 2)`},
		{`{"id":"q1","query":"x","gold":{"a\r::error::x":1}}`, `s.jsonl:1: gold: document id "a\r::error::x" has a control character (U+000D at byte 1)`},
		{`{"id":"q1","query":"x","gold":{"a":1},"segments":["kw\u001b[31m"]}`, `s.jsonl:1: segments: segment "kw\x1b[31m" has a control character (U+001B at byte 2)`},
		{`{"id":"q1","query":"x","gold":{"a":1},"source":"log\u2028x"}`, `s.jsonl:1: source: source "log\u2028x" has a control character (U+2028 at byte 3)`},
		{"q1 0 d\x1b[0m 1\n", `s.jsonl:1: document id "d\x1b[0m" has a control character (U+001B at byte 1)`},
	} {
		_, err := ParseSet(strings.NewReader(tt.in), "s.jsonl")
		if err == nil || !IsInput(err) || err.Error()[:len(tt.want)] != tt.want {
			t.Errorf("%q: %v\nwant %s…", tt.in, err, tt.want)
		}
	}
	// Query text may hold anything: reports flatten it.
	if _, err := ParseSet(strings.NewReader(`{"id":"q1","query":"line one\nline two","gold":{"a":1}}`), "s.jsonl"); err != nil {
		t.Errorf("a multi-line query text: %v", err)
	}
}

func TestDuplicateKeysRefused(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"id":"q1","query":"x","gold":{"a":1},"id":"q2"}`, `s.jsonl:1: id: key listed twice`},
		{`{"id":"q1","query":"x","gold":{"a":1,"a":0}}`, `s.jsonl:1: gold.a: document listed twice`},
		{`{"id":"q1","query":"x","gold":{"a":1},"judgments":{"ana":{"b":0,"b":2}}}`, `s.jsonl:1: judgments.ana.b: document listed twice`},
	} {
		_, err := ParseSet(strings.NewReader(tt.in), "s.jsonl")
		if err == nil || !strings.Contains(err.Error(), "s.jsonl:1") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
	if err := CheckDuplicateKeys([]byte(`[{"a":1},{"a":2}]`)); err != nil {
		t.Errorf("the same key in two objects: %v", err)
	}
}

// TestQrelsJudgedOnlyZero: a TREC qrels query judged only grade 0 is not a
// refusal of the file: it is kept apart as unanswerable with one warning,
// and scored 0 in the means trec_eval would print (averaged over it too).
func TestQrelsJudgedOnlyZero(t *testing.T) {
	qrels := "q1 0 a 1\nq1 0 b 0\nq2 0 c 0\nq2 0 d 0\nq3 0 e 2\nq4 0 f 0\n"
	s, err := ParseSet(strings.NewReader(qrels), "qrels.txt")
	if err != nil {
		t.Fatal(err)
	}
	if q := s.Query("q2"); !q.Unanswerable || !q.OnlyZero || s.Answerable() != 2 {
		t.Errorf("q2 %+v, %d answerable", q, s.Answerable())
	}
	if len(s.Warnings) != 1 || s.Warnings[0] != "2 queries of the qrels are judged only grade 0 (no relevant document): kept apart as unanswerable, and scored 0 in the trec_eval means: q2, q4" {
		t.Errorf("warnings %q", s.Warnings)
	}
	// q1 finds a at rank 1 (recall 1, P@2 1/2, nDCG 1, RR 1); q3 finds e at
	// rank 2 (recall 1, P@2 1/2, nDCG 2/log2(3) / 2 = 0.6309, RR 1/2).
	sc := NewScorer(s, Depth{Candidates: 10, Context: 2})
	for _, r := range []Result{{ID: "q1", Hits: hits("a", "x")}, {ID: "q2", Hits: hits("c")}, {ID: "q3", Hits: hits("x", "e")}, {ID: "q4"}} {
		if err := sc.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	te := c.Summary.TrecEval
	ndcg3 := 1 / math.Log2(3)
	if c.Summary.Queries != 2 || te == nil || te.Queries != 4 || !near(te.Recall, 2.0/4) || !near(te.Precision, 1.0/4) || !near(te.NDCG, (1+ndcg3)/4) || !near(te.RR, 1.5/4) {
		t.Errorf("summary %+v trec_eval %+v", c.Summary, te)
	}
	if !near(c.Summary.Recall, 1) || !near(c.Summary.NDCG, (1+ndcg3)/2) {
		t.Errorf("the answerable means %+v", c.Summary)
	}
	if w := c.Warnings(); len(w) == 0 || !strings.HasPrefix(w[0], "2 queries of the qrels") {
		t.Errorf("scorecard warnings %q", w)
	}
	// JSONL sets still refuse a query with no relevant document.
	if _, err := ParseSet(strings.NewReader(`{"id":"q1","query":"x","gold":{"a":0}}`), "s.jsonl"); err == nil {
		t.Error("a JSONL query with only grade 0 passed")
	}
}
