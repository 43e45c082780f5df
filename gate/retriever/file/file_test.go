package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/retrieval"
	"github.com/recallgate/recallgate/gate/runfile"
)

func TestRetrieve(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.trec")
	if err := os.WriteFile(p, []byte("q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := r.Retrieve(context.Background(), &gate.Query{ID: "q1"}, 2)
	if err != nil || len(hits) != 3 || hits[0].Doc != "a" || hits[2].Doc != "c" {
		t.Errorf("hits %+v err %v", hits, err)
	}
	if _, err := r.Retrieve(context.Background(), &gate.Query{ID: "q2"}, 2); err == nil || !strings.Contains(err.Error(), "no result") {
		t.Errorf("missing query: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none")); !gate.IsInput(err) {
		t.Errorf("missing file: %v", err)
	}
}

// TestAnswerKeepsContext: a run line's context and abstain come back
// through Answer, byte for byte what the line held.
func TestAnswerKeepsContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.jsonl")
	line := `{"id":"q1","hits":[{"doc":"a"}],"context":[{"doc":"a","chunk":"a#2","text":"Settings → Keys","tokens":4}],"abstain":true}`
	if err := os.WriteFile(p, []byte(line+"\n"+`{"id":"q2","hits":[]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Answer(context.Background(), &gate.Query{ID: "q1"}, 5)
	if err != nil || len(a.Context) != 1 || a.Context[0].Text != "Settings → Keys" || *a.Context[0].Tokens != 4 || a.Abstain == nil || !*a.Abstain {
		t.Fatalf("q1: %+v %v", a, err)
	}
	if a, err := r.Answer(context.Background(), &gate.Query{ID: "q2"}, 5); err != nil || a.Context != nil || a.Abstain != nil {
		t.Fatalf("q2: %+v %v", a, err)
	}
	res, err := retrieval.All(context.Background(), "head", &gate.Set{Queries: []*gate.Query{{ID: "q1"}}}, r, retrieval.Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := runfile.WriteRun(&b, res, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(b.String()); got != line {
		t.Errorf("written back\n%s\nwant\n%s", got, line)
	}
}
