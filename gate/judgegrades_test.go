package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJudgeGradesKeptApart: a judge's grades are read apart from people's
// (no document judged, no gold derived; labeller agreement:
// gate/agreement's TestLabellersLeaveTheJudgeOut), written
// back as they were, and a malformed judge entry is refused by line.
func TestJudgeGradesKeptApart(t *testing.T) {
	const line = `{"id":"q1","query":"one","gold":{"a":2},"judgments":{"alice":{"a":2,"b":0},"bob":{"a":2},"judge:llm":{"c":3,"a":0}},"labellers":{"judge:llm":{"fingerprint":"sha256:ab","reasons":{"c":"<b>says</b>"}}}}`
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSet(p)
	if err != nil {
		t.Fatal(err)
	}
	q := s.Queries[0]
	j := q.Judges["llm"]
	if j == nil || j.Fingerprint != "sha256:ab" || j.Grades["c"] != 3 || j.Reasons["c"] != "<b>says</b>" || len(q.Judgments) != 2 {
		t.Fatalf("judges %+v, judgments %v", j, q.Judgments)
	}
	q.Derive()
	if q.Judged("c") || q.Gold["a"] != 2 || len(q.Disputes()) != 0 {
		t.Errorf("the judge's grades count as a person's: judged c %v, gold %v, disputes %v", q.Judged("c"), q.Gold, q.Disputes())
	}
	out, err := q.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"judge:llm":{"a":0,"c":3}`) || !strings.Contains(string(out), `"judge:llm":{"fingerprint":"sha256:ab","reasons":{"c":"<b>says</b>"}}`) || len(q.Judgments) != 2 {
		t.Errorf("written back as %s", out)
	}
	for _, c := range []struct{ line, want string }{
		{`{"id":"q1","query":"one","gold":{},"judgments":{"judge:llm":{"c":3}}}`, "s.jsonl:1: labellers.judge:llm.fingerprint: query \"q1\": a judge's grades need the fingerprint"},
		{`{"id":"q1","query":"one","gold":{},"labellers":{"alice":{"fingerprint":"sha256:ab"}}}`, "s.jsonl:1: labellers.alice: query \"q1\": a fingerprint and reasons belong to a judge"},
		{`{"id":"q1","query":"one","gold":{},"judgments":{"judge:llm":{"c":3}},"labellers":{"judge:llm":{"fingerprint":"sha256:ab","unsure":true}}}`, "s.jsonl:1: labellers.judge:llm: query \"q1\": a judge's entry holds its fingerprint and reasons only"},
		{`{"id":"q1","query":"one","gold":{},"judgments":{"judge:llm":{"c":7}},"labellers":{"judge:llm":{"fingerprint":"sha256:ab"}}}`, "s.jsonl:1: judgments.judge:llm.c"},
	} {
		if err := os.WriteFile(p, []byte(c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSet(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.line, err, c.want)
		}
	}
}
