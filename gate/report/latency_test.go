package report

import (
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// TestQueueWaitReportedApart: a side whose calls waited for the
// retriever's pipe shows the wait apart from its latency in the JSON
// (queue_wait_p50_ms, queue_wait_p95_ms) and in every other format's
// latency line; a side that never waited says nothing of it.
func TestQueueWaitReportedApart(t *testing.T) {
	f := newFixture(t, nil)
	c := f.compare(t)
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	c.Latency = [2]*gate.LatencyStats{
		gate.LatenciesQueued(ms(5, 5, 5, 5), ms(0, 0, 0, 0), 0),
		gate.LatenciesQueued(ms(60, 61, 60, 62), ms(0, 60, 120, 180), 250*time.Millisecond),
	}
	js := string(render(t, c, JSON))
	if !strings.Contains(js, `"queue_wait_p50_ms": 60`) || !strings.Contains(js, `"queue_wait_p95_ms": 180`) || !strings.Contains(js, `"p50_ms": 60,`) {
		t.Errorf("JSON latency:\n%s", js[strings.Index(js, `"latency"`):])
	}
	want := "head p50 60.0 ms, p95 62.0 ms, max 62.0 ms over 4 calls (243 ms in all, start-up 250 ms), after a queue wait of p50 60.0 ms, p95 180 ms (not in the latency)"
	for _, format := range []Format{Text, Markdown, HTML} {
		out := string(render(t, c, format))
		if !strings.Contains(out, want) || strings.Count(out, "queue wait") != 1 {
			t.Errorf("%s: want the head's latency line %q, and no queue wait for the base", format, want)
		}
	}
}
