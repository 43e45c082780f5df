package gate

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/shareddata"
)

// TestAutoKind: keyword means keyword-like, not "no question mark".
func TestAutoKind(t *testing.T) {
	for _, tc := range []struct{ text, kind string }{
		{"rotate api key", "keyword"},
		{"dlq redrive", "keyword"},
		{"TP-429", "keyword"},
		{"max_tokens limit exceeded error batch job", "keyword"},      // a code among 6 words
		{"max_tokens limit exceeded error in batch job", "statement"}, // "in"
		{"sso saml okta setup guide", "keyword"},
		{"how do I rotate an api key", "question"},
		{"rate limits?", "question"},
		{"set up the queue", "statement"},                                      // a function word
		{"0-dimensional biomaterials show inductive properties.", "statement"}, // a sentence
		{"ERR_42 retry backoff", "keyword"},
		{"ALDH1 expression is associated with poorer prognosis for breast cancer primary tumors.", "statement"}, // 12 words
		{"Vitamin D deficiency causes rickets in children", "statement"},
		{"", "statement"},
	} {
		if got := autoSegments(tc.text)[0]; got != tc.kind {
			t.Errorf("%q is %s, want %s", tc.text, got, tc.kind)
		}
	}
}

// TestSciFactClaimsAreNotKeywords: SciFact's claims are sentences; before
// the keyword-like rule, every one without a question mark was "keyword".
func TestSciFactClaimsAreNotKeywords(t *testing.T) {
	data, err := os.ReadFile(shareddata.Path(t, "data/scifact/queries.jsonl"))
	if err != nil {
		t.Fatalf("the SciFact queries from ../shared/data (beside the checkout): %v", err)
	}
	kinds := map[string]int{}
	total := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var q struct{ Text string }
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		kinds[autoSegments(q.Text)[0]]++
		total++
	}
	t.Logf("%d SciFact claims: %v", total, kinds)
	if kinds["keyword"]*20 > total {
		t.Errorf("%d of %d SciFact claims are keyword-like (want under 5%%): %v", kinds["keyword"], total, kinds)
	}
}
