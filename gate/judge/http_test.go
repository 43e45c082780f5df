package judge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/config"
)

// TestHTTPJudge: the templated request carries the pair, the answer is
// read at its dot paths, and the key in the header is never printed, not
// even when the service echoes it in an error.
func TestHTTPJudge(t *testing.T) {
	const key = "sk-judge-secret-123"
	var got map[string]any
	answer := `{"out":{"grade":2,"why":"it answers"},"usage":{"total":31}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(401)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &got); err != nil {
			w.WriteHeader(400)
			return
		}
		if got["doc"] == "bad" {
			w.WriteHeader(400)
			io.WriteString(w, "refused key "+key)
			return
		}
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	j := &config.Judge{Name: "llm", Type: "http", URL: srv.URL + "/grade",
		Body:    `{"q": {{query}}, "doc": {{doc}}, "text": {{text}}, "grades": {{grades}}, "rule": {{guideline}}, "id": {{query_id}}}`,
		Headers: map[string]string{"Authorization": "Bearer ${JUDGE_KEY}"}, GradePath: "out.grade", ReasonPath: "out.why", TokensPath: "usage.total"}
	retries := 0
	j.Retries = &retries
	tr, err := newHTTP(j, Options{Config: &config.Config{Path: "recallgate.toml"}, Getenv: func(k string) string {
		if k == "JUDGE_KEY" {
			return key
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{QueryID: "q1", Query: `say "hi"`, Doc: "d1", Text: "line\nbreak", Grades: []string{"no", "yes"}, Guideline: "be strict"}
	a, err := tr.Grade(context.Background(), req)
	if err != nil || a != (Answer{Grade: 2, Reason: "it answers", Tokens: 31}) {
		t.Fatalf("got %+v, %v", a, err)
	}
	if got["q"] != `say "hi"` || got["text"] != "line\nbreak" || got["rule"] != "be strict" || got["id"] != "q1" || len(got["grades"].([]any)) != 2 {
		t.Errorf("the request carried %v", got)
	}
	req.Doc = "bad"
	_, err = tr.Grade(context.Background(), req)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("error %v: want HTTP 400 without the key", err)
	}
	req.Doc = "d1"
	answer = `{"out":{"grade":9}}`
	if _, err := tr.Grade(context.Background(), req); err == nil || !strings.Contains(err.Error(), "grade 9 is off the scale") {
		t.Errorf("grade 9: %v", err)
	}
	answer = `{"out":{"grade":"2"}}`
	if _, err := tr.Grade(context.Background(), req); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("a grade that is a string: %v", err)
	}
}
