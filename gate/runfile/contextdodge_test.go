package runfile

import (
	"strings"
	"testing"
)

// TestContextTokensBounded: a passage claiming 2^63−1 tokens is refused
// naming the query and the field (as the HTTP retriever refuses past
// 2^31−1), so a context's size can never wrap round to a negative sum.
func TestContextTokensBounded(t *testing.T) {
	big := `{"id":"q1","hits":[],"context":[{"doc":"a","tokens":9223372036854775807},{"doc":"b","tokens":9223372036854775807}]}`
	_, err := ParseResult([]byte(big), "run.jsonl")
	if err == nil || !strings.Contains(err.Error(), "context[0].tokens") || !strings.Contains(err.Error(), `"q1"`) {
		t.Fatalf("err = %v, want a refusal naming q1 and context[0].tokens", err)
	}
	ok := `{"id":"q1","hits":[],"context":[{"doc":"a","tokens":2147483647}]}`
	if _, err := ParseResult([]byte(ok), "run.jsonl"); err != nil {
		t.Errorf("2^31-1 tokens: %v", err)
	}
}

// TestRunContextErrorsNamed: a run line's context keeps its errors'
// fields and query through the one-passage-at-a-time reader.
func TestRunContextErrorsNamed(t *testing.T) {
	for line, want := range map[string]string{
		`{"id":"q1","hits":[],"context":[{"doc":"a","extra":1}]}`:                                                    `run.jsonl: context[0].extra: query "q1": unknown field`,
		`{"id":"q1","hits":[],"context":[{"doc":"a"},{"doc":"b","tokens":"x"}]}`:                                     `run.jsonl: context[1].tokens: query "q1": wrong type: got JSON string, want`,
		`{"id":"q1","hits":[],"context":"a"}`:                                                                        `run.jsonl: context: wrong type: got JSON string, want`,
		`{"id":"q1","hits":[],"context":[` + strings.Repeat(`{"doc":"a"},`, MaxRunContextPassages) + `{"doc":"a"}]}`: `run.jsonl: context[10000]: query "q1": the context holds more than 10000 passages`,
	} {
		_, err := ParseResult([]byte(line), "run.jsonl")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.80s: err = %v, want %q", line, err, want)
		}
	}
	line := `{"id":"q1","hits":[],"context":[` + strings.Repeat(`{"doc":"a"},`, MaxRunContextPassages-1) + `{"doc":"a"}]}`
	if r, err := ParseResult([]byte(line), "run.jsonl"); err != nil || len(r.Context) != MaxRunContextPassages {
		t.Errorf("at the cap: %d passages, %v", len(r.Context), err)
	}
}
