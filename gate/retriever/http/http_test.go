package httpretriever

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

var q = &gate.Query{ID: "q7", Text: `rotate "api" key`}

func newRetriever(t *testing.T, cfg Config, env map[string]string) *Retriever {
	t.Helper()
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	r, err := New(cfg, nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResponseShapes(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		cfg    Config
	}{
		{"elasticsearch", `{"took":3,"hits":{"total":{"value":2},"hits":[{"_id":"c1","_score":7.5,"_source":{"doc_id":"security/api-keys","text":"Rotate keys"}},{"_id":"c2","_score":2,"_source":{"doc_id":"admin/tokens","text":"t"}}]}}`,
			Config{Hits: "hits.hits", Doc: "_source.doc_id", Chunk: "_id", Score: "_score", Text: "_source.text"}},
		{"qdrant", `{"result":[{"id":101,"score":0.91,"payload":{"doc":"security/api-keys","chunk":"security/api-keys#2","text":"Rotate keys"}},{"id":102,"score":0.5,"payload":{"doc":"admin/tokens"}}],"status":"ok"}`,
			Config{Hits: "result", Doc: "payload.doc", Chunk: "payload.chunk", Score: "score", Text: "payload.text"}},
		{"plain", `{"results":[{"doc":"security/api-keys","score":1,"text":"Rotate keys"},{"doc":"admin/tokens","score":0.2}]}`,
			Config{Hits: "results", Doc: "doc", Score: "score", Text: "text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer s3cret-token" {
					http.Error(w, "no auth", 401)
					return
				}
				b, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(b, &got); err != nil {
					http.Error(w, "bad body: "+string(b), 400)
					return
				}
				io.WriteString(w, tt.answer)
			}))
			defer srv.Close()
			cfg := tt.cfg
			cfg.URL = srv.URL + "/search"
			cfg.Body = `{"query": {{query}}, "size": {{k}}, "qid": {{id}}}`
			cfg.Headers = map[string]string{"Authorization": "Bearer ${RETRIEVER_TOKEN}"}
			r := newRetriever(t, cfg, map[string]string{"RETRIEVER_TOKEN": "s3cret-token"})
			hits, err := r.Retrieve(context.Background(), q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got["query"] != `rotate "api" key` || got["size"] != 10.0 || got["qid"] != "q7" {
				t.Errorf("request body %v", got)
			}
			if len(hits) != 2 || hits[0].Doc != "security/api-keys" || hits[1].Doc != "admin/tokens" || hits[0].Text != "Rotate keys" || hits[0].Score == 0 {
				t.Errorf("hits %+v", hits)
			}
		})
	}
}

func TestRetryAfterOn429ThenSuccess(t *testing.T) {
	var calls atomic.Int32
	var gaps []time.Duration
	last := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		gaps = append(gaps, now.Sub(last))
		last = now
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, `{"results":[{"doc":"a"}]}`)
	}))
	defer srv.Close()
	r := newRetriever(t, Config{URL: srv.URL, Hits: "results", Doc: "doc", Retries: 3}, nil)
	hits, err := r.Retrieve(context.Background(), q, 5)
	if err != nil || len(hits) != 1 || calls.Load() != 2 {
		t.Fatalf("hits %v err %v calls %d", hits, err, calls.Load())
	}
	if gaps[1] < 900*time.Millisecond {
		t.Errorf("retried after %v, want Retry-After's 1s", gaps[1])
	}
}

func TestPersistent500GivesUp(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "index offline", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	r := newRetriever(t, Config{URL: srv.URL + "/s?api_key=hidden", Hits: "results", Doc: "doc", Retries: 2}, nil)
	_, err := r.Retrieve(context.Background(), q, 5)
	if err == nil || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "gave up after 2 retries") || !strings.Contains(err.Error(), "index offline") {
		t.Errorf("err %v", err)
	}
	if strings.Contains(err.Error(), "hidden") {
		t.Errorf("the URL's query string leaked: %v", err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls, want 3 (1 + 2 retries)", calls.Load())
	}
}

func TestClientErrorIsNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "bad query", http.StatusBadRequest)
	}))
	defer srv.Close()
	r := newRetriever(t, Config{URL: srv.URL, Hits: "results", Doc: "doc"}, nil)
	if _, err := r.Retrieve(context.Background(), q, 5); err == nil || calls.Load() != 1 {
		t.Errorf("err %v calls %d", err, calls.Load())
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	r := newRetriever(t, Config{URL: srv.URL, Hits: "results", Doc: "doc"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.Retrieve(ctx, q, 5)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

func TestTruncatedAndOversizedBodies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/truncated":
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, `{"results":[{"doc":"a"`)
		case "/big":
			io.WriteString(w, `{"results":[`+strings.Repeat(`{"doc":"aaaaaaaaaa"},`, 1000)+`{"doc":"b"}]}`)
		case "/notjson":
			io.WriteString(w, `<html>oops</html>`)
		case "/nodoc":
			io.WriteString(w, `{"results":[{"id":"x"}]}`)
		}
	}))
	defer srv.Close()
	for path, want := range map[string]string{
		"/truncated": "unexpected EOF",
		"/big":       "over the size limit",
		"/notjson":   "answer is not JSON",
		"/nodoc":     `hit 0 has no "doc"`,
	} {
		r := newRetriever(t, Config{URL: srv.URL + path, Hits: "results", Doc: "doc", MaxBody: 4096, Retries: 1}, nil)
		if _, err := r.Retrieve(context.Background(), q, 5); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", path, err, want)
		}
	}
}

func TestSecretsNeverInErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A server that echoes the header back in its error page.
		http.Error(w, "denied for "+r.Header.Get("X-Api-Key"), http.StatusForbidden)
	}))
	defer srv.Close()
	r := newRetriever(t, Config{URL: srv.URL, Hits: "results", Doc: "doc", Headers: map[string]string{"X-Api-Key": "${KEY}"}}, map[string]string{"KEY": "topsecretvalue"})
	_, err := r.Retrieve(context.Background(), q, 5)
	if err == nil || strings.Contains(err.Error(), "topsecretvalue") || !strings.Contains(err.Error(), "***") {
		t.Errorf("err %v", err)
	}
	if _, err := New(Config{URL: srv.URL, Doc: "doc", Headers: map[string]string{"X": "${NOPE}"}}, nil, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "unset environment variable NOPE") {
		t.Errorf("unset variable: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"junk":                          0,
		"Thu, 01 Jan 2026 00:00:05 GMT": 5 * time.Second,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

// FuzzParseAnswer: the response path extraction never panics and every
// hit it returns has a document id.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"hits":{"hits":[{"_id":"c1","_score":7.5,"_source":{"doc_id":"d","text":"t"}}]}}`,
		`{"hits":{"hits":[{"_source":{"doc_id":12}}]}}`,
		`{"hits":{"hits":"nope"}}`,
		`[1,2,3]`,
	} {
		f.Add(s)
	}
	r, err := New(Config{URL: "http://127.0.0.1:1", Hits: "hits.hits", Doc: "_source.doc_id", Chunk: "_id", Score: "_score", Text: "_source.text"}, nil, func(string) string { return "" })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		hits, _, err := r.parse([]byte(body), input.MinKeptHits)
		if err != nil {
			return
		}
		for _, h := range hits {
			if h.Doc == "" {
				t.Fatal("a hit without a doc id")
			}
		}
	})
}

// countingRefuser is a transport whose every dial is refused, counting tries.
type countingRefuser struct{ tries atomic.Int64 }

func (c *countingRefuser) RoundTrip(*http.Request) (*http.Response, error) {
	c.tries.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// TestPreflightDoesNotRetryARefusedConnection: the preflight gives up on a
// refused connection at the first try (nothing listens), while a query of
// the set still retries it (a service restarting mid-run).
func TestPreflightDoesNotRetryARefusedConnection(t *testing.T) {
	rt := &countingRefuser{}
	r, err := New(Config{URL: "http://127.0.0.1:1/search?q={{query}}", Hits: "hits", Doc: "doc", Retries: 3, Backoff: time.Millisecond}, &http.Client{Transport: rt}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	err = r.Preflight(context.Background())
	if err == nil || rt.tries.Load() != 1 || !strings.Contains(err.Error(), "nothing answers at that address") {
		t.Errorf("preflight: %d tries, %v", rt.tries.Load(), err)
	}
	rt.tries.Store(0)
	if _, err := r.Retrieve(context.Background(), q, 5); err == nil || rt.tries.Load() != 4 {
		t.Errorf("a query: %d tries (want 1 + 3 retries), %v", rt.tries.Load(), err)
	}
}

func TestAmbiguousAnswersRefused(t *testing.T) {
	r, err := New(Config{URL: "http://127.0.0.1:1", Hits: "hits", Doc: "doc", Score: "score"}, nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		`{"hits":[{"doc":"a"}]}{"hits":[]}`:           "answer has data after its JSON value",
		`{"hits":[{"doc":"a"}]} trailing`:             "answer has data after its JSON value",
		`{"hits":[{"doc":"a"}],"hits":[{"doc":"b"}]}`: `answer is ambiguous: key "hits" appears twice`,
		`{"hits":[{"doc":"a","doc":"b"}]}`:            `key "doc" appears twice in the object at $.hits[0]`,
		`{"hits":[{"doc":"a","score":"12.5"}]}`:       `hit 0: "score" is a string, not a number`,
		`{"hits":[{"doc":"a","score":true}]}`:         `hit 0: "score" is a boolean, not a number`,
		`{"hits":[{"doc":"a","score":1e999}]}`:        "score 1e999 is not a finite number",
	} {
		if _, _, err := r.parse([]byte(body), input.MinKeptHits); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	if hits, _, err := r.parse([]byte(`{"hits":[{"doc":"a","score":null},{"doc":"b"}]}`+"\n"), input.MinKeptHits); err != nil || len(hits) != 2 {
		t.Errorf("a null or absent score is no score: %v %v", hits, err)
	}
}

// TestAnswerContextAndAbstain: the context and abstain paths read a real
// pipeline's answer (hits, the final context after rerank and budget, the
// refusal flag under answer.abstained); a bad one is an error saying why.
func TestAnswerContextAndAbstain(t *testing.T) {
	answer := `{"hits":[{"doc":"security/api-keys","chunk":"security/api-keys#1","score":7.5},{"doc":"admin/tokens","score":2}],` +
		`"context":[{"doc":"security/api-keys","chunk":"security/api-keys#2","text":"Open Settings → Keys and press Rotate.","tokens":9},{"doc":"admin/tokens","chunk":"admin/tokens#1","text":"Tokens expire."}],` +
		`"answer":{"text":"Open Settings → Keys.","abstained":false}}`
	refused := `{"hits":[{"doc":"admin/tokens","score":0.1}],"context":[],"answer":{"text":"","abstained":true}}`
	serve := func(body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	cfg := Config{Hits: "hits", Doc: "doc", Chunk: "chunk", Score: "score", Context: "context", Abstain: "answer.abstained"}
	cfg.URL = serve(answer)
	a, err := newRetriever(t, cfg, nil).Answer(context.Background(), q, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Hits) != 2 || len(a.Context) != 2 || a.Context[0].Chunk != "security/api-keys#2" || a.Context[0].Tokens == nil || *a.Context[0].Tokens != 9 ||
		a.Context[1].Doc != "admin/tokens" || a.Context[1].Tokens != nil || !strings.Contains(a.Context[0].Text, "Settings → Keys") || a.Abstain == nil || *a.Abstain {
		t.Fatalf("answer: %+v", a)
	}
	cfg.URL = serve(refused)
	a, err = newRetriever(t, cfg, nil).Answer(context.Background(), q, 5)
	if err != nil || a.Context == nil || len(a.Context) != 0 || a.Abstain == nil || !*a.Abstain {
		t.Fatalf("refused: %+v %v", a, err)
	}
	// Nested paths inside the passage.
	cfg2 := Config{Hits: "hits", Doc: "doc", Context: "answer.sources", ContextDoc: "meta.doc_id", ContextText: "content", ContextTokens: "n_tokens"}
	cfg2.URL = serve(`{"hits":[],"answer":{"sources":[{"meta":{"doc_id":"a"},"content":"t","n_tokens":2}]}}`)
	a, err = newRetriever(t, cfg2, nil).Answer(context.Background(), q, 5)
	if err != nil || len(a.Context) != 1 || a.Context[0].Doc != "a" || a.Context[0].Text != "t" || *a.Context[0].Tokens != 2 || a.Abstain != nil {
		t.Fatalf("nested: %+v %v", a, err)
	}
	// Without the paths, an answer's context key is not read.
	plain := Config{Hits: "hits", Doc: "doc", URL: serve(answer)}
	if a, err := newRetriever(t, plain, nil).Answer(context.Background(), q, 5); err != nil || a.Context != nil || a.Abstain != nil {
		t.Fatalf("no paths: %+v %v", a, err)
	}
	for body, want := range map[string]string{
		`{"hits":[],"context":{"doc":"a"},"answer":{"abstained":false}}`:                `"context" in the answer is not an array`,
		`{"hits":[],"context":[{"text":"x"}],"answer":{"abstained":false}}`:             `passage 0 has no "doc"`,
		`{"hits":[],"context":[{"doc":"a","tokens":-1}],"answer":{"abstained":false}}`:  "negative",
		`{"hits":[],"context":[{"doc":"a","tokens":"3"}],"answer":{"abstained":false}}`: "not a whole number",
		`{"hits":[],"context":[],"answer":{"abstained":"yes"}}`:                         `"answer.abstained" in the answer is a string, not a boolean`,
		`{"hits":[],"context":[]}`:                `answer has no "answer.abstained"`,
		`{"hits":[],"answer":{"abstained":true}}`: `answer has no "context"`,
	} {
		cfg.URL = serve(body)
		_, err := newRetriever(t, cfg, nil).Answer(context.Background(), q, 5)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", body, err, want)
		}
	}
	if _, err := New(Config{URL: "http://127.0.0.1:1/", Doc: "doc", ContextDoc: "d"}, nil, nil); err == nil || !strings.Contains(err.Error(), "set context") {
		t.Errorf("context_doc without context: %v", err)
	}
}

// TestTextlessContextWarns: a context_text path that names nothing in the
// answer gives passages without text, where no fact can be found: one
// warning names the query and the path, never a silent zero coverage.
func TestTextlessContextWarns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"hits":[{"doc":"a"}],"answer":{"sources":[{"doc":"a","content":"Open Settings"},{"doc":"b","content":"x"}]}}`)
	}))
	t.Cleanup(srv.Close)
	var warned []string
	cfg := Config{URL: srv.URL, Hits: "hits", Doc: "doc", Context: "answer.sources", ContextText: "body", Warn: func(s string) { warned = append(warned, s) }}
	r := newRetriever(t, cfg, nil)
	for range 2 {
		if _, err := r.Answer(context.Background(), q, 5); err != nil {
			t.Fatal(err)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "query "+q.ID) || !strings.Contains(warned[0], `"body"`) || !strings.Contains(warned[0], "2 passages") {
		t.Fatalf("warnings %q, want one naming the query, the path and the passages", warned)
	}
	// The right path: no warning.
	warned = nil
	cfg.ContextText = "content"
	if _, err := newRetriever(t, cfg, nil).Answer(context.Background(), q, 5); err != nil || len(warned) != 0 {
		t.Fatalf("err %v, warnings %q", err, warned)
	}
}
