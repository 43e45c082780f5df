package report

import (
	"bytes"
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
