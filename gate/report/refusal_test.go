package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// refusalCard is the fixture's side with each answer's abstain signal:
// refuse lists the queries that abstain, every other answer says false.
func (f *fixture) refusalCard(t *testing.T, refuse ...string) *gate.Scorecard {
	t.Helper()
	sc := gate.NewScorer(f.set, gate.Depth{Candidates: 10, Context: 3})
	for _, q := range f.set.Queries {
		a := false
		for _, id := range refuse {
			a = a || id == q.ID
		}
		if err := sc.Add(gate.Result{ID: q.ID, Hits: []gate.Hit{{Doc: "doc/" + q.ID[1:]}}, Abstain: &a}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRefusalGolden: the base refuses only u1 (right); the head refuses
// q03 and answers u1. By hand: false answers 0/1 → 1/1 (u1), false
// refusals 0/10 → 1/10 (q03); both rules fail. Every format shows the
// block; the JSON read back renders the same Markdown.
func TestRefusalGolden(t *testing.T) {
	f := newFixture(t, nil)
	c, err := gate.Compare(f.refusalCard(t, "u1"), f.refusalCard(t, "q03"), gate.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != gate.Fail {
		t.Fatalf("verdict %s %q", c.Verdict, c.Reasons)
	}
	golden(t, "refusal.golden.txt", render(t, c, Text))
	md := render(t, c, Markdown)
	golden(t, "refusal.golden.md", md)
	golden(t, "refusal.golden.xml", render(t, c, JUnit))
	js := render(t, c, JSON)
	golden(t, "refusal.golden.json", js)
	html := string(render(t, c, HTML))
	for _, want := range []string{"False answers (unanswerable queries it would answer: a risk of invented answers): base 0/1; head 1/1: u1 (new)", "False refusals (answerable queries it would refuse): base 0/10; head 1/10: q03 (new)"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	r, err := ReadCompareReport(bytes.NewReader(js), "report.json")
	if err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if err := WriteCompareReport(&back, r, Markdown); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), md) {
		t.Errorf("Markdown from the JSON read back differs:\n%s", back.String())
	}
	// A refusal block read back may not carry a control character in an id.
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	m["refusal"].(map[string]any)["new_false_answers"] = []any{"u1\x1b[31m"}
	bad, _ := json.Marshal(m)
	if _, err := ReadCompareReport(bytes.NewReader(bad), "report.json"); err == nil || !strings.Contains(err.Error(), "refusal") {
		t.Errorf("hostile refusal id read back: %v", err)
	}
}
