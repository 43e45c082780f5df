package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// peakHeap is how far the heap grew above where it stood before fn, at
// its highest while fn ran (runtime.ReadMemStats every millisecond, the
// collector held to 10% of headroom so garbage does not pass for use).
func peakHeap(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		top := base
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc)
			select {
			case <-stop:
				peak <- top - base
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	return <-peak
}

// TestBaselineIDsTheSetLacksNotKept: a drift baseline padded with 24 MB
// of queries the set never had is read in the memory of a line or two,
// not of the file (the reader kept every line: a 230 MB baseline peaked
// at 515 MB), and still compares the set's two queries.
func TestBaselineIDsTheSetLacksNotKept(t *testing.T) {
	f := newDriftFixture(t)
	out, err := os.OpenFile(f.baseline, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	const lacking = 80_000
	for i := range lacking {
		fmt.Fprintf(w, `{"id":"gone-%07d","hits":[`, i)
		for j := range 6 {
			if j > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"doc":"pages/never-seen-%07d-%d","score":%d.5}`, i, j, 9-j)
		}
		w.WriteString("]}\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	fi, _ := os.Stat(f.baseline)
	_, set := load(t, filepath.Join(f.dir, "recallgate.toml"))
	var b *BaselineRun
	grew := peakHeap(func() { b, err = LoadBaseline(context.Background(), f.baseline, set, 2) })
	if err != nil || len(b.Set.Queries) != 2 || len(b.Results) != 2 {
		t.Fatalf("LoadBaseline: %v %+v", err, b)
	}
	t.Logf("a %d MB baseline, %d of its queries not in the set: the heap grew %.1f MB at most", fi.Size()>>20, lacking, float64(grew)/(1<<20))
	if limit := uint64(fi.Size() / 6); grew > limit {
		t.Errorf("reading a %d-byte baseline grew the heap by %d bytes, over %d: the queries the set lacks were kept", fi.Size(), grew, limit)
	}
}

// TestBaselineCountsWhatTheSetLacks: a baseline without the queries'
// text hashes (a plain run) counts the queries today's set lacks, in
// both formats, and keeps only the set's.
func TestBaselineCountsWhatTheSetLacks(t *testing.T) {
	f := newDriftFixture(t)
	_, set := load(t, filepath.Join(f.dir, "recallgate.toml"))
	for name, run := range map[string]string{
		"run.jsonl": `{"id":"x1","hits":[{"doc":"a"}]}
{"id":"q1","hits":[{"doc":"fruit/apple"}]}
{"id":"x2","hits":[]}
{"id":"q2","hits":[{"doc":"fruit/cherry"},{"doc":"fruit/banana"}]}
{"id":"x3","hits":[{"doc":"b"}]}
`,
		"run.trec": "x1 Q0 a 1 3 r\nx1 Q0 b 2 2 r\nq1 Q0 fruit/apple 1 1 r\nx2 Q0 a 1 1 r\nq2 Q0 fruit/cherry 1 2 r\nq2 Q0 fruit/banana 2 1 r\nx3 Q0 c 1 1 r\nx3 Q0 d 2 0 r\n",
	} {
		p := filepath.Join(f.dir, name)
		put(t, f.dir, name, run)
		b, err := LoadBaseline(context.Background(), p, set, 2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.Removed != 3 || len(b.Set.Queries) != 2 || len(b.Results[1].Hits) != 2 || b.Results[1].Hits[1].Doc != "fruit/banana" {
			t.Errorf("%s: removed %d, queries %d, results %+v; want 3 removed, q1 and q2 kept", name, b.Removed, len(b.Set.Queries), b.Results)
		}
	}
	// A block of a query the set lacks, then the same again, is a
	// repeated id nobody keeps: a set query's repeated block still is not.
	put(t, f.dir, "twice.trec", "q1 Q0 a 1 1 r\nx1 Q0 b 1 1 r\nq1 Q0 c 1 1 r\nq2 Q0 d 1 1 r\n")
	if _, err := LoadBaseline(context.Background(), filepath.Join(f.dir, "twice.trec"), set, 2); !gate.IsInput(err) || err == nil {
		t.Errorf("q1's second block: %v, want refused", err)
	}
}
