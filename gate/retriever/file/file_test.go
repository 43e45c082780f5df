package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
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
