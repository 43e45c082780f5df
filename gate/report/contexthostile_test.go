package report

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// TestHostileContextEscaped: chunk ids, documents and passage text from a
// hostile head's own context reach the Context block (facts lost, context
// misses) of every format inert: no raw control character anywhere; in
// the comment no raw tag, live mention or bidi control; in HTML no tag
// outside the page's own; in JUnit no CDATA end; in the comment and the
// text no workflow command at a line's start.
func TestHostileContextEscaped(t *testing.T) {
	set, err := setfile.Parse(strings.NewReader(`{"id":"q1","query":"rotate key","gold":{"keys":1},"evidence":["Settings → Keys"]}`+"\n"), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Depth{Candidates: 5, Context: 3}
	evil := hostile + " ]]> \x1b[31m\r\n::warning::y \u202e"
	base, err := gate.ScoreResults(set, []gate.Result{{ID: "q1", Hits: []gate.Hit{{Doc: "keys"}},
		Context: []gate.Passage{{Doc: "keys", Chunk: "keys#2 " + evil, Text: "Open Settings → Keys now"}}}}, d)
	if err != nil {
		t.Fatal(err)
	}
	head, err := gate.ScoreResults(set, []gate.Result{{ID: "q1", Hits: []gate.Hit{{Doc: "keys"}},
		Context: []gate.Passage{{Doc: "keys", Text: evil + " more words here"}, {Doc: "keys", Chunk: evil, Text: "nothing"}}}}, d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gate.Compare(base, head, gate.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != gate.Fail {
		t.Fatalf("verdict %s", c.Verdict)
	}
	for _, f := range []Format{Markdown, Text, HTML, JUnit, JSON} {
		full := string(render(t, c, f))
		out := full
		if f == Markdown {
			// An id is a code span, inert as written (TestIDsAreCodeSpans);
			// what must not be raw is everything outside them.
			out = outsideCodeSpans(full)
			if strings.Contains(full, "\x1b") || strings.Contains(full, "\u202e") {
				t.Errorf("markdown carries a control or bidi character raw, in a code span or not")
			}
		}
		raws := []string{"\x1b"}
		switch f {
		case Markdown:
			raws = append(raws, "<img", "<script>alert", "\u202e")
		case HTML:
			raws = append(raws, "<img", "<script>alert")
		case Text, JUnit:
			raws = append(raws, "\u202e", "\ufffd")
		}
		for _, raw := range raws {
			if strings.Contains(out, raw) {
				t.Errorf("%s carries %q raw", f, raw)
			}
		}
		if f == Markdown {
			t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInert(t, full, evil) })
		}
		if f == Markdown && (strings.Contains(out, "@octocat") || strings.Contains(out, "](javascript:")) {
			t.Errorf("markdown carries a live mention or link:\n%s", out)
		}
		if f == JUnit && strings.Count(out, "]]>") > strings.Count(out, "<![CDATA[") {
			t.Errorf("junit closes a CDATA section the input opened:\n%s", out)
		}
		if f == Markdown || f == Text {
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "::") {
					t.Errorf("%s line starts a workflow command: %q", f, line)
				}
			}
		}
	}
}
