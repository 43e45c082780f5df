package runfile

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

func readAll(t *testing.T, in string) ([]gate.Result, error) {
	t.Helper()
	var out []gate.Result
	err := ReadRun(strings.NewReader(in), "run", func(r gate.Result) error {
		r.Hits = append([]gate.Hit(nil), r.Hits...)
		out = append(out, r)
		return nil
	})
	return out, err
}

func docsOf(r gate.Result) string {
	var d []string
	for _, h := range r.Hits {
		d = append(d, h.Doc)
	}
	return strings.Join(d, " ")
}

func TestReadRunJSONL(t *testing.T) {
	rs, err := readAll(t, `{"id":"q1","hits":[{"doc":"a","chunk":"a#2","score":12.1,"text":"t"},{"doc":"b"}]}
{"id":"q2","hits":[]}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || docsOf(rs[0]) != "a b" || rs[0].Hits[0].Chunk != "a#2" || rs[0].Hits[0].Score != 12.1 || rs[1].Line != 2 {
		t.Errorf("got %+v", rs)
	}
}

func TestReadRunTRECOrdersLikeTrecEval(t *testing.T) {
	// Rank column disagrees with the scores on purpose: trec_eval ignores it,
	// sorts by score descending and breaks ties by docid descending.
	rs, err := readAll(t, "q1 Q0 a 1 1.0 run\nq1 Q0 b 2 3.0 run\nq1 Q0 c 3 1.0 run\nq1 Q0 d 4 2 run\nq2 Q0 z 1 -1e-3 run\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || docsOf(rs[0]) != "b d c a" || docsOf(rs[1]) != "z" {
		t.Errorf("got %q / %q", docsOf(rs[0]), docsOf(rs[1]))
	}
}

func TestReadRunErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
		line           int
	}{
		{"hit without doc", `{"id":"q1","hits":[{"doc":"a"},{"chunk":"c"}]}`, "hits[1].doc: query \"q1\": hit without a document id", 1},
		{"missing hits", `{"id":"q1"}`, "hits: query \"q1\": required", 1},
		{"unknown field", `{"id":"q1","hits":[{"doc":"a","rank":1}]}`, "rank: unknown field", 1},
		{"duplicate query", `{"id":"q1","hits":[]}` + "\n" + `{"id":"q1","hits":[]}`, "appears twice", 2},
		{"empty", "", "run is empty", 0},
		{"trec bad score", "q1 Q0 a 1 high run\n", "score: \"high\" is not a finite number", 1},
		{"trec NaN score", "q1 Q0 a 1 NaN run\n", "is not a finite number", 1},
		{"trec inf score", "q1 Q0 a 1 inf run\n", "score: \"inf\" is not a finite number", 1},
		{"trec -Inf score", "q1 Q0 a 1 -Infinity run\n", "is not a finite number", 1},
		{"trec huge score", "q1 Q0 a 1 1e999 run\n", "is not a finite number", 1},
		{"json huge score", `{"id":"q1","hits":[{"doc":"a","score":1e999}]}`, "score: wrong type: got JSON number 1e999, want a finite number", 1},
		{"json string score", `{"id":"q1","hits":[{"doc":"a","score":"12"}]}`, "score: wrong type: got JSON string, want a finite number", 1},
		{"trec fields", "q1 Q0 a 1 2.0\n", "got 5 fields", 1},
		{"trec split block", "q1 Q0 a 1 1 r\nq2 Q0 a 1 1 r\nq1 Q0 b 2 0.5 r\n", "second block (first block on line 1)", 3},
		{"bad json", `{"id":"q1","hits":[`, "invalid JSON", 1},
		{"huge id", `{"id":"q1","hits":[]}` + "\n" + `{"id":"` + strings.Repeat("z", gate.MaxRunIDBytes+1) + `","hits":[]}`, "id: 4097 bytes, over the 4096-byte limit of a query id", 2},
		{"huge id, context first", `{"context":[],"id":"` + strings.Repeat("z", gate.MaxRunIDBytes+1) + `","hits":[{"doc":"a"}]}`, "id: 4097 bytes, over the 4096-byte limit", 1},
		{"trec huge qid", strings.Repeat("z", gate.MaxRunIDBytes+1) + " Q0 a 1 1 r\n", "qid: 4097 bytes, over the 4096-byte limit of a query id", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll(t, tt.in)
			var ie *gate.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an InputError", err)
			}
			if ie.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q (line %d), want line %d and %q", err, ie.Line, tt.line, tt.want)
			}
		})
	}
}

func TestReadRunLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":"q1","hits":[`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"doc":"some/long/document/path","text":"lorem ipsum dolor sit amet"}`)
	}
	b.WriteString("]}\n")
	rs, err := readAll(t, b.String())
	if err != nil || len(rs) != 1 || len(rs[0].Hits) != 20000 {
		t.Fatalf("err %v, %d results", err, len(rs))
	}
}

func TestFastFloatMatchesStrconv(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "100.0", "0.1", "0.3", "12.125", "-0.000001", "123456789012345", "1234567.89012345", "3.14159265358979", "99.99", "7.", ".5", "1e3", "--1", "1.2.3", "", "-", "0.30000000000000004", "1234567890123456"} {
		got, ok := fastFloat([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if ok && (err != nil || got != want) {
			t.Errorf("fastFloat(%q) = %v, strconv %v (%v)", s, got, want, err)
		}
	}
	if _, ok := fastFloat([]byte("12.5")); !ok {
		t.Error("plain decimal not taken by the fast path")
	}
}

func FuzzFastFloat(f *testing.F) {
	for _, s := range []string{"1.5", "-0.25", "100.0", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := fastFloat([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || got != want {
			t.Fatalf("fastFloat(%q) = %v, strconv %v (%v)", s, got, want, err)
		}
	})
}

func TestContextAndAbstainRoundTrip(t *testing.T) {
	line := `{"id":"q1","hits":[{"doc":"a"}],"context":[{"doc":"a","chunk":"a#2","text":"Settings → Keys","tokens":4},{"doc":"b"}],"abstain":false}`
	r, err := ParseResult([]byte(line), "run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Context) != 2 || r.Context[0].Chunk != "a#2" || r.Context[0].Tokens == nil || *r.Context[0].Tokens != 4 || r.Context[1].Tokens != nil {
		t.Fatalf("context = %+v", r.Context)
	}
	if r.Abstain == nil || *r.Abstain {
		t.Fatalf("abstain = %v", r.Abstain)
	}
	var b bytes.Buffer
	if err := WriteRun(&b, []gate.Result{r}, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(b.String()); got != line {
		t.Errorf("written\n%s\nwant\n%s", got, line)
	}
	// No context key: nil; an empty one: kept as empty, and written back.
	for _, tc := range []struct {
		line  string
		empty bool
	}{{`{"id":"q1","hits":[]}`, false}, {`{"id":"q1","hits":[],"context":[]}`, true}} {
		r, err := ParseResult([]byte(tc.line), "run.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if (r.Context != nil) != tc.empty {
			t.Errorf("%s: context = %#v", tc.line, r.Context)
		}
		b.Reset()
		if err := WriteRun(&b, []gate.Result{r}, nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != tc.line {
			t.Errorf("written %s, want %s", got, tc.line)
		}
	}
	for line, want := range map[string]string{
		`{"id":"q1","hits":[],"context":[{"text":"x"}]}`:            "context[0].doc",
		`{"id":"q1","hits":[],"context":[{"doc":"a","tokens":-1}]}`: "context[0].tokens",
		`{"id":"q1","hits":[],"context":{"doc":"a"}}`:               "context",
		`{"id":"q1","hits":[],"abstain":"yes"}`:                     "abstain",
	} {
		_, err := ParseResult([]byte(line), "run.jsonl")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to name %s", line, err, want)
		}
	}
}
