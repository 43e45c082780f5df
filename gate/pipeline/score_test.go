package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestScoreRunJSONIsScoreJSON: the spilled JSON report is byte for byte
// the one written from a whole scorecard — on the demo's head run with
// passages and evidence, with one query cut out (missing) — and its card
// keeps no documents; other formats are not spilled.
func TestScoreRunJSONIsScoreJSON(t *testing.T) {
	set, err := setfile.Load(filepath.Join("..", "..", "frozen-set", "queries.jsonl"))
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
	whole, err := runfile.ScoreRunFile(set, run, d)
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

// TestValidateCountsDisputes: validate says how many documents are
// disputed and decided and how many queries someone was unsure of.
func TestValidateCountsDisputes(t *testing.T) {
	set := put(t, t.TempDir(), "set.jsonl", `{"id":"q1","query":"x","gold":{"a":3},"judgments":{"ana":{"a":3,"b":1},"ben":{"a":0,"b":2}},"labellers":{"ben":{"unsure":true}}}
{"id":"q2","query":"y","gold":{"c":1},"judgments":{"ana":{"c":3},"ben":{"c":1}},"adjudicated":{"c":{"grade":1,"by":"cara"}}}
`)
	var out, errb bytes.Buffer
	if err := Validate(context.Background(), testEnv(&errb), ValidateOptions{Set: set}, &out); err != nil {
		t.Fatal(err)
	}
	if want := "adjudication: 2 disputed documents (more than a grade apart, or relevant against not), 1 decided; 1 queries marked unsure"; !strings.Contains(out.String(), want) {
		t.Errorf("validate:\n%s\nwant %s", out.String(), want)
	}
}
