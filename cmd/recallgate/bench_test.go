package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkGateFanOut runs `recallgate gate` over 200 queries on both sides
// against a loopback HTTP retriever that answers after 20 ms, with 8 queries
// in flight per side (16 in all). The ideal wall time is
// ceil(2·200/16) · 20 ms = 500 ms; the benchmark reports the ratio to it.
func BenchmarkGateFanOut(b *testing.B) {
	const queries, latency, perSide = 200, 20 * time.Millisecond, 8
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(latency)
		io.WriteString(w, `{"results":[{"doc":"d1","score":1}]}`)
	}))
	defer srv.Close()
	dir := b.TempDir()
	var set strings.Builder
	for i := 0; i < queries; i++ {
		fmt.Fprintf(&set, `{"id":"q%03d","query":"query %d","gold":{"d1":1}}`+"\n", i, i)
	}
	write(b, dir, "set.jsonl", set.String())
	side := func(name string) string {
		return fmt.Sprintf("[%s.retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\nconcurrency = %d\n", name, srv.URL, perSide)
	}
	cfg := write(b, dir, "rg.toml", "set = \"set.jsonl\"\n"+side("base")+side("head"))
	ideal := time.Duration((2*queries+2*perSide-1)/(2*perSide)) * latency
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if code, _, errs := rg(b, "gate", "--config", cfg, "--out", filepath.Join(dir, "r.txt")); code != 0 {
			b.Fatalf("exit %d: %s", code, errs)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "ms/gate")
	b.ReportMetric(float64(per)/float64(ideal), "x-ideal")
}
