package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLatencyAtConcurrencyExcludesQueueWait: a command retriever that
// answers in 60 ms, asked at concurrency 4 through its one pipe, reports a
// p50 near 60 ms (not the ~240 ms its requests take from their start),
// the wait for the pipe apart, and a start-up that runs until its first
// answer (at least the 60 ms of it), in JSON and text.
func TestLatencyAtConcurrencyExcludesQueueWait(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	var set, run strings.Builder
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&set, `{"id":"q%d","query":"question %d","gold":{"a":1}}`+"\n", i, i)
		fmt.Fprintf(&run, `{"id":"q%d","hits":[{"doc":"a"}]}`+"\n", i)
	}
	write(t, dir, "set.jsonl", set.String())
	write(t, dir, "base.jsonl", run.String())
	write(t, dir, "sleeper.py", sleeper)
	cfg := write(t, dir, "rg.toml", `set = "set.jsonl"
[depth]
candidates = 3
context = 2
[base.retriever]
type = "file"
path = "base.jsonl"
[head.retriever]
type = "command"
command = ["python3", "sleeper.py", "0.060"]
concurrency = 4
`)
	jsonOut := filepath.Join(dir, "report.json")
	code, text, errs := rg(t, "gate", "--config", cfg, "--json-out", jsonOut)
	var rep struct {
		Latency struct {
			Head struct {
				P50      float64 `json:"p50_ms"`
				Startup  float64 `json:"startup_ms"`
				QueueP50 float64 `json:"queue_wait_p50_ms"`
				QueueP95 float64 `json:"queue_wait_p95_ms"`
			}
		}
	}
	if err := json.Unmarshal(must(os.ReadFile(jsonOut)), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, errs)
	}
	h := rep.Latency.Head
	t.Logf("head p50 %.1f ms, queue wait p50 %.1f ms p95 %.1f ms, start-up %.1f ms", h.P50, h.QueueP50, h.QueueP95, h.Startup)
	if h.P50 < 60 || h.P50 >= 150 || h.QueueP50 < 60 || h.Startup < 60 {
		t.Errorf("head latency %+v: want p50 60–150 ms (the answer's own time), a queue wait of 60 ms or more apart, a start-up of 60 ms or more", h)
	}
	if !strings.Contains(text, ", after a queue wait of p50 ") {
		t.Errorf("text report does not give the queue wait:\n%s", text)
	}
}
