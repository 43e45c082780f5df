package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestExperimentVariantsOfOneServiceTakeTurns (#50 item 11): four
// variants that call one search service (on 127.0.0.1) are retrieved one
// after another, so each one's latency is its own: the service never sees
// requests of two variants at once (each request waits 2 ms, so batched
// variants would overlap). A fifth variant on another service may run
// beside them.
func TestExperimentVariantsOfOneServiceTakeTurns(t *testing.T) {
	var mu sync.Mutex
	inFlight := map[string]int{}
	overlaps := 0
	handler := func(w http.ResponseWriter, r *http.Request) {
		req, ok := readSearch(w, r)
		if !ok {
			return
		}
		mu.Lock()
		inFlight[req.V]++
		if len(inFlight) > 1 {
			overlaps++
		}
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		if inFlight[req.V]--; inFlight[req.V] == 0 {
			delete(inFlight, req.V)
		}
		mu.Unlock()
		id := strings.Fields(req.Query)[0]
		fmt.Fprintf(w, `{"results":[{"doc":"%s"},{"doc":"other"}]}`, id)
	}
	one := httptest.NewServer(http.HandlerFunc(handler))
	t.Cleanup(one.Close)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"doc":"other"}]}`)
	}))
	t.Cleanup(other.Close)

	dir := t.TempDir()
	var set strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&set, `{"id":"q%02d","query":"d%02d please","gold":{"d%02d":1}}`+"\n", i, i, i)
	}
	write(t, dir, "set.jsonl", set.String())
	table := func(url, v string) string {
		return fmt.Sprintf("type = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}, \"k\": {{k}}, \"v\": \"%s\"}'\nhits = \"results\"\ndoc = \"doc\"\nretries = 1\n", url, v)
	}
	cfg := "set = \"set.jsonl\"\n[depth]\ncandidates = 2\ncontext = 1\n[base.retriever]\n" + table(one.URL+"/search", "base")
	for _, v := range []string{"a", "b", "c", "d"} {
		cfg += "[variant." + v + ".retriever]\n" + table(one.URL+"/search", v)
	}
	cfg += "[variant.elsewhere.retriever]\n" + table(other.URL+"/search", "elsewhere")
	path := write(t, dir, "experiment.toml", cfg)
	code, out, errs := rg(t, "experiment", "--config", path)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if overlaps != 0 {
		t.Errorf("the service saw requests of two variants at once %d times: their latencies include each other's", overlaps)
	}
}
