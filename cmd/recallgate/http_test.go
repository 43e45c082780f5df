package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// searchServer answers {"query":…} with the doc ids that appear in the
// query text ("… a b"), after delay. Path /broken answers 500 for "second".
func searchServer(t testing.TB, delay time.Duration, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls != nil {
			calls.Add(1)
		}
		req, ok := readSearch(w, r)
		if !ok {
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		if strings.HasSuffix(r.URL.Path, "/broken") && req.Query == "second" {
			http.Error(w, "shard failure", 500)
			return
		}
		docs := map[string][]string{"first": {"a", "x", "b"}, "second": {"d", "c"}, "third": {"y", "z", "w", "e"}}[req.Query]
		var hits []string
		for _, d := range docs {
			hits = append(hits, fmt.Sprintf(`{"doc":%q,"score":1}`, d))
		}
		fmt.Fprintf(w, `{"results":[%s]}`, strings.Join(hits, ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// searchRequest is a test service's request: the query, k and the
// variant marker some configs add to the body.
type searchRequest struct {
	Query string `json:"query"`
	K     int    `json:"k"`
	V     string `json:"v"`
}

// readSearch decodes a test service's request, answering 400 when the
// body is not one (false).
func readSearch(w http.ResponseWriter, r *http.Request) (searchRequest, bool) {
	var req searchRequest
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return req, false
	}
	return req, true
}

func httpConfig(url, extra string) string {
	return fmt.Sprintf(`set = "set.jsonl"
[depth]
candidates = 3
context = 2
[base.retriever]
type = "http"
url = %q
body = '{"query": {{query}}, "k": {{k}}}'
hits = "results"
doc = "doc"
score = "score"
retries = 1
%s
[head.retriever]
type = "file"
path = "run.jsonl"
`, url, extra)
}

func TestGateHTTPRetriever(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	srv := searchServer(t, 0, nil)
	cfg := write(t, dir, "ok.toml", httpConfig(srv.URL+"/search", ""))
	code, out, errs := rg(t, "gate", "--config", cfg)
	if code != 0 || !strings.HasPrefix(out, "PASS") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	cfg = write(t, dir, "broken.toml", httpConfig(srv.URL+"/broken", ""))
	code, _, errs = rg(t, "gate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "base: 1 query could not be retrieved") || !strings.Contains(errs, "q2: HTTP 500") || !strings.Contains(errs, "shard failure") {
		t.Errorf("persistent 500: exit %d, want 3\n%s", code, errs)
	}
	cfg = write(t, dir, "down.toml", httpConfig("http://127.0.0.1:1/search", ""))
	if code, _, errs := rg(t, "gate", "--config", cfg); code != 3 || !strings.Contains(errs, "preflight request failed") {
		t.Errorf("unreachable: exit %d\n%s", code, errs)
	}
	cfg = write(t, dir, "env.toml", httpConfig(srv.URL+"/search", "headers = { Authorization = \"Bearer ${RG_TEST_TOKEN}\" }"))
	if code, _, errs := rg(t, "gate", "--config", cfg); code != 2 || !strings.Contains(errs, "unset environment variable RG_TEST_TOKEN") {
		t.Errorf("unset token: exit %d\n%s", code, errs)
	}
}

func TestGateHTTPTimeout(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	srv := searchServer(t, 2*time.Second, nil)
	cfg := write(t, dir, "slow.toml", httpConfig(srv.URL+"/search", "timeout = \"100ms\""))
	start := time.Now()
	code, _, errs := rg(t, "gate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "preflight") || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("exit %d after %v\n%s", code, time.Since(start), errs)
	}
}
