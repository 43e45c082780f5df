package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestScoreSpillKeepsTheFirstOfTwo: a query put twice (a run holding it in
// two segments, which the scoring then refuses) is no spill error, and the
// first entry stays; a query never put is an error when writing.
func TestScoreSpillKeepsTheFirstOfTwo(t *testing.T) {
	set, err := setfile.Parse(strings.NewReader(`{"id":"q1","query":"x","gold":{"a":1}}`+"\n"), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := NewScoreSpill(set, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	first := gate.QueryScore{ID: "q1", Recall: 1, Docs: []string{"a"}}
	if err := sp.Put(first); err != nil {
		t.Fatal(err)
	}
	if err := sp.Put(gate.QueryScore{ID: "q1", Docs: []string{"b"}}); err != nil {
		t.Errorf("second put: %v", err)
	}
	card := &gate.Scorecard{Set: set, Depth: gate.DefaultDepth(), Queries: []gate.QueryScore{{ID: "q1", Recall: 1}}}
	var b bytes.Buffer
	if err := sp.ScoreJSON(&b, card); err != nil || !strings.Contains(b.String(), `"docs": [
        "a"
      ]`) {
		t.Errorf("%v\n%s", err, b.String())
	}
	card.Queries = append(card.Queries, gate.QueryScore{ID: "q9"})
	if err := sp.ScoreJSON(&bytes.Buffer{}, card); err == nil || !strings.Contains(err.Error(), "q9 was never put") {
		t.Errorf("a query never put: %v", err)
	}
}

// TestScoreJSONCompactPastCompactDocs: a query entry with more than
// CompactDocs documents (a large cutoff) is one line, one with
// CompactDocs is indented as before, and the report decodes to the same
// values either way.
func TestScoreJSONCompactPastCompactDocs(t *testing.T) {
	set, err := setfile.Parse(strings.NewReader(`{"id":"q1","query":"x","gold":{"d0":1}}`+"\n"+`{"id":"q2","query":"y","gold":{"d0":1}}`+"\n"), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	docs := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("d%d", i))
		}
		return out
	}
	sp, err := NewScoreSpill(set, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	qs := []gate.QueryScore{{ID: "q1", Recall: 1, Found: 1, Relevant: 1, Docs: docs(CompactDocs)}, {ID: "q2", Recall: 1, Found: 1, Relevant: 1, Docs: docs(CompactDocs + 1)}}
	for _, q := range qs {
		if err := sp.Put(q); err != nil {
			t.Fatal(err)
		}
	}
	card := &gate.Scorecard{Set: set, Depth: gate.Depth{Candidates: 1000, Context: 10}, Queries: qs}
	var b bytes.Buffer
	if err := sp.ScoreJSON(&b, card); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var q2 string
	for _, l := range lines {
		if strings.HasPrefix(l, `    {"id":"q2",`) {
			q2 = l
		}
	}
	if !strings.Contains(b.String(), "      \"docs\": [\n        \"d0\",") || q2 == "" || !strings.Contains(q2, `"docs":["d0","d1",`) {
		t.Fatalf("q1 (100 docs) should be indented, q2 (101) one line:\n%.2000s", b.String())
	}
	var r ScoreReport
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	if len(r.Queries) != 2 || !reflect.DeepEqual(r.Queries[0].Docs, docs(CompactDocs)) || !reflect.DeepEqual(r.Queries[1].Docs, docs(CompactDocs+1)) || r.Queries[1].RecallAtN != 1 {
		t.Errorf("read back %+v", r.Queries)
	}
}
