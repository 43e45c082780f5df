package httpretriever

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/input"
)

// TestHitsCappedWithOneWarning: an answer with more than
// input.MaxKeptHits(k) hits keeps the first ones in rank order, and the
// retriever warns once however many answers are cut.
func TestHitsCappedWithOneWarning(t *testing.T) {
	const n = 2500
	var b strings.Builder
	b.WriteString(`{"took":3,"result":{"meta":[1,{"x":[]}],"hits":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"d%d","s":%d,"extra":{"deep":[[1],[2]]}}`, i, n-i)
	}
	b.WriteString(`]},"after":{"a":[1,2]}}`)
	body := b.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	t.Cleanup(srv.Close)
	var warnings []string
	r, err := New(Config{URL: srv.URL, Hits: "result.hits", Doc: "id", Score: "s", Warn: func(s string) { warnings = append(warnings, s) }}, nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		hits, err := r.Retrieve(context.Background(), q, 150)
		if err != nil || len(hits) != input.MaxKeptHits(150) || hits[0].Doc != "d0" || hits[len(hits)-1].Doc != fmt.Sprintf("d%d", input.MaxKeptHits(150)-1) {
			t.Fatalf("%d hits, %v", len(hits), err)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "answered query q7 with 2500 hits: only the first 1500 are kept") {
		t.Errorf("warnings: %q", warnings)
	}
	if hits, err := r.Retrieve(context.Background(), q, 300); err != nil || len(hits) != n {
		t.Errorf("k=300 keeps all %d: %d, %v", n, len(hits), err)
	}
}

// TestDeepAnswerRefused: an answer nested deeper than gate.MaxJSONDepth
// is refused, whatever the hits path.
func TestDeepAnswerRefused(t *testing.T) {
	r, err := New(Config{URL: "http://127.0.0.1:1", Hits: "hits", Doc: "doc"}, nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	deep := `{"hits":[{"doc":"a"}],"x":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "}"
	if _, _, err := r.parse([]byte(deep), 10); err == nil || !strings.Contains(err.Error(), "nested more than 64 levels deep") {
		t.Errorf("%v", err)
	}
	for body, want := range map[string]string{
		`{"hits":{"doc":"a"}}`:                   `"hits" in the answer is not an array (it is an object)`,
		`{"hits":"a"}`:                           `"hits" in the answer is not an array (it is a string)`,
		`{"other":[]}`:                           `answer has no "hits"`,
		`{"hits":[{"doc":"a"},]}`:                "answer is not JSON",
		`{"hits":[{"doc":"a"}],"x":[1,2,}`:       "answer is not JSON",
		`{"hits":[{"doc":"a"},{"nodoc":1}]}`:     `hit 1 has no "doc"`,
		`{"hits":[{"doc":"a"}]`:                  "answer is not JSON",
		`{"x":{"hits":[]},"hits":[{"doc":"a"}]}`: "",
	} {
		hits, _, err := r.parse([]byte(body), 10)
		if want == "" {
			if err != nil || len(hits) != 1 {
				t.Errorf("%s: %v %v", body, hits, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// TestContextStreamedAndBounded: the context path's array is read one
// passage at a time: past the cap it is refused, deep nesting inside a
// passage is refused at the depth bound, and a well-formed context after
// the hits is read whole.
func TestContextStreamedAndBounded(t *testing.T) {
	r, err := New(Config{URL: "http://127.0.0.1:1", Hits: "hits", Doc: "doc", Context: "answer.context"}, nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	deep := `{"hits":[{"doc":"a"}],"answer":{"context":[{"doc":"a","text":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}]}}`
	if _, _, err := r.parse([]byte(deep), 10); err == nil || !strings.Contains(err.Error(), "nested more than 64 levels deep") {
		t.Errorf("deep: %v", err)
	}
	flood := `{"hits":[{"doc":"a"}],"answer":{"context":[` + strings.Repeat(`{"doc":"a"},`, 1000) + `{"doc":"a"}]}}`
	if _, _, err := r.parseAnswer([]byte(flood), 1000); err == nil || !strings.Contains(err.Error(), `"answer.context" in the answer holds more than 1000 passages`) {
		t.Errorf("flood: %v", err)
	}
	ok := `{"hits":[{"doc":"a"}],"answer":{"abstained":false,"context":[{"doc":"a","chunk":"a#1","text":"x y","tokens":2},{"doc":"b"}]}}`
	ctx, _, err := r.parseAnswer([]byte(ok), 1000)
	if err != nil || len(ctx) != 2 || ctx[0].Chunk != "a#1" || *ctx[0].Tokens != 2 || ctx[1].Doc != "b" {
		t.Errorf("ok: %+v %v", ctx, err)
	}
	for body, want := range map[string]string{
		`{"hits":[],"answer":{"context":{"doc":"a"}}}`: `"answer.context" in the answer is not an array of passages (it is an object)`,
		`{"hits":[],"answer":{"context":"a"}}`:         `"answer.context" in the answer is not an array of passages (it is a string)`,
		`{"hits":[],"answer":{"context":[{"x":1}]}}`:   `context passage 0 has no "doc"`,
	} {
		if _, _, err := r.parseAnswer([]byte(body), 1000); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}
