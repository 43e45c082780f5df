package httpretriever

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestHitOffsetsAndSection: start, end and section paths read a hit's
// byte offsets and section anchor; a hit without them has none; an
// offset that is no whole number, or one without the other, is refused
// naming the hit and the path.
func TestHitOffsetsAndSection(t *testing.T) {
	answer := `{"hits":[{"doc":"guide","loc":{"from":12,"to":40},"sec":"retention"},{"doc":"faq"}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, answer) }))
	defer srv.Close()
	cfg := Config{URL: srv.URL, Hits: "hits", Doc: "doc", Start: "loc.from", End: "loc.to", Section: "sec"}
	r := newRetriever(t, cfg, nil)
	q := &gate.Query{ID: "q1", Text: "x"}
	hits, err := r.Retrieve(context.Background(), q, 10)
	if err != nil {
		t.Fatal(err)
	}
	h := hits[0]
	if h.Start == nil || h.End == nil || *h.Start != 12 || *h.End != 40 || h.Section != "retention" {
		t.Errorf("first hit %+v", h)
	}
	if hits[1].Start != nil || hits[1].End != nil || hits[1].Section != "" {
		t.Errorf("second hit %+v", hits[1])
	}
	for _, c := range []struct{ answer, want string }{
		{`{"hits":[{"doc":"g","loc":{"from":1.5,"to":4}}]}`, `hit 0: "loc.from" is a number, not a byte offset`},
		{`{"hits":[{"doc":"g","loc":{"from":-1,"to":4}}]}`, `hit 0: "loc.from" is a number, not a byte offset`},
		{`{"hits":[{"doc":"g","loc":{"from":"3","to":4}}]}`, `hit 0: "loc.from" is a string, not a byte offset`},
		{`{"hits":[{"doc":"g","loc":{"to":4}}]}`, `hit 0 has one of "loc.from" and "loc.to" but not the other`},
	} {
		answer = c.answer
		_, err := r.Retrieve(context.Background(), q, 10)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.answer, err, c.want)
		}
	}
}
