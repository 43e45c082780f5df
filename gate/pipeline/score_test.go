package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
)

// TestScoreRunJSONIsScoreJSON: the spilled JSON report is byte for byte
// the one written from a whole scorecard — on the demo's head run with
// passages and evidence, with one query cut out (missing) — and its card
// keeps no documents; other formats are not spilled.
func TestScoreRunJSONIsScoreJSON(t *testing.T) {
	set, err := gate.LoadSet(filepath.Join("..", "..", "frozen-set", "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "frozen-set", "runs", "head.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if !strings.HasPrefix(l, `{"id":"q07"`) {
			kept = append(kept, l)
		}
	}
	run := put(t, t.TempDir(), "head.jsonl", strings.Join(kept, "\n")+"\n")
	d := gate.DefaultDepth()
	whole, err := gate.ScoreRunFile(set, run, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Missing) != 1 || whole.Missing[0] != "q07" {
		t.Fatalf("missing %v, want q07", whole.Missing)
	}
	for _, f := range []report.Format{report.JSON, report.Markdown, report.Text} {
		var want, got bytes.Buffer
		if err := report.Score(&want, whole, f); err != nil {
			t.Fatal(err)
		}
		scored, err := ScoreRun(set, run, d, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := scored.Write(&got); err != nil {
			t.Fatal(err)
		}
		scored.Close()
		if got.String() != want.String() {
			t.Errorf("%s: spilled report differs from the whole one:\n%s", f, got.String())
		}
		spilled := false
		for _, q := range scored.Card.Queries {
			if q.Docs == nil && q.Returned > 0 {
				spilled = true
			}
		}
		if spilled != (f == report.JSON) {
			t.Errorf("%s: card without documents: %v", f, spilled)
		}
	}
	if !strings.Contains(mustJSON(t, set, run), `"passages"`) {
		t.Error("the demo run's passages are not in the report: the case tests less than it says")
	}
}

func mustJSON(t *testing.T, set *gate.Set, run string) string {
	t.Helper()
	scored, err := ScoreRun(set, run, gate.DefaultDepth(), report.JSON)
	if err != nil {
		t.Fatal(err)
	}
	defer scored.Close()
	var b bytes.Buffer
	if err := scored.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
