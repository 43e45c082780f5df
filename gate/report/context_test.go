package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestContextNotApplicable: a query without evidence has an evidence
// coverage of "n/a" in every report (never 1.0), and every report says
// which context each side used.
func TestContextNotApplicable(t *testing.T) {
	set, err := setfile.Parse(strings.NewReader(`{"id":"q1","query":"rotate key","gold":{"keys":1},"evidence":["Settings → Keys"]}`+"\n"+
		`{"id":"q2","query":"token expiry","gold":{"tokens":1}}`+"\n"), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	n := 4
	d := gate.Depth{Candidates: 5, Context: 3}
	base, err := gate.ScoreResults(set, []gate.Result{
		{ID: "q1", Hits: []gate.Hit{{Doc: "keys"}}, Context: []gate.Passage{{Doc: "keys", Chunk: "keys#2", Text: "Open Settings → Keys now", Tokens: &n}}},
		{ID: "q2", Hits: []gate.Hit{{Doc: "tokens"}}, Context: []gate.Passage{{Doc: "tokens", Chunk: "tokens#1", Text: "Tokens expire."}}},
	}, d)
	if err != nil {
		t.Fatal(err)
	}
	head, err := gate.ScoreResults(set, []gate.Result{
		{ID: "q1", Hits: []gate.Hit{{Doc: "keys", Chunk: "keys#1", Text: "Keys are secrets."}}},
		{ID: "q2", Hits: []gate.Hit{{Doc: "tokens", Chunk: "tokens#1", Text: "Tokens expire."}}},
	}, d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gate.Compare(base, head, gate.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	own, packed := "context: the pipeline's own", "context: packed by recallgate from the hits, context_tokens = 2000"
	for _, f := range []Format{Text, JSON, Markdown, HTML} {
		out := string(render(t, c, f))
		flat := strings.NewReplacer("&#95;", "_", "&#39;", "'", "\\u0026#39;", "'").Replace(out)
		if f == JSON || f == HTML {
			if !strings.Contains(out, `"evidence_coverage":"n/a"`) && !strings.Contains(out, `"evidence_coverage": "n/a"`) {
				t.Errorf("%s: q2's coverage is not n/a", f)
			}
			if f == JSON && (!strings.Contains(out, `"source": "the pipeline's own"`) || !strings.Contains(out, `"source": "packed by recallgate from the hits, context_tokens = 2000"`)) {
				t.Errorf("%s: the sides' context sources are not named", f)
			}
			continue
		}
		if !strings.Contains(flat, own) || !strings.Contains(flat, packed) {
			t.Errorf("%s: the sides' context sources are not named:\n%s", f, out)
		}
		if !strings.Contains(flat, "| `q2` | 1.000 → 1.000 | n/a → n/a |") && !strings.Contains(flat, "q2  1.000 → 1.000  n/a → n/a") {
			t.Errorf("%s: q2's coverage is not n/a:\n%s", f, out)
		}
	}
	if x := string(render(t, c, JUnit)); !strings.Contains(x, "evidence n/a -&gt; n/a") || !strings.Contains(x, `name="context_head" value="context: packed by recallgate`) {
		t.Errorf("junit: no n/a or context source:\n%s", x)
	}
	if page := string(render(t, c, HTML)); !strings.Contains(page, "base context: the pipeline&#39;s own; head context: packed by recallgate") {
		t.Errorf("html: no context line")
	}
	for _, f := range []Format{Text, Markdown, JSON} {
		var b bytes.Buffer
		if err := Score(&b, base, f); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); !strings.Contains(out, "n/a") || !strings.Contains(out, "the pipeline's own") {
			t.Errorf("score %s: no n/a or source:\n%s", f, out)
		}
	}
	// Facts lost name the passages: the base's keys#2, the head's keys#1.
	if md := string(render(t, c, Markdown)); !strings.Contains(md, "| `q1` | Settings → Keys | lost | `keys#2` (base) | `keys#1` |") {
		t.Errorf("markdown context block:\n%s", md)
	}
}
