package runfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// benchCase builds an in-memory set and a run of nq queries × nh hits, as
// JSONL or TREC.
func benchCase(b *testing.B, nq, nh int, trec bool) (*gate.Set, []byte) {
	b.Helper()
	var set strings.Builder
	var run bytes.Buffer
	for q := 0; q < nq; q++ {
		fmt.Fprintf(&set, `{"id":"q%d","query":"x","gold":{"d%d":3,"d%d":1,"d%d":0}}`+"\n", q, q%nh, (q+1)%nh, (q+2)%nh)
		if !trec {
			fmt.Fprintf(&run, `{"id":"q%d","hits":[`, q)
		}
		for h := 0; h < nh; h++ {
			if trec {
				fmt.Fprintf(&run, "q%d Q0 d%d %d %d.5 bench\n", q, h, h+1, nh-h)
				continue
			}
			if h > 0 {
				run.WriteByte(',')
			}
			fmt.Fprintf(&run, `{"doc":"d%d","chunk":"d%d#0","score":%d.5}`, h, h, nh-h)
		}
		if !trec {
			run.WriteString("]}\n")
		}
	}
	s, err := setfile.Parse(strings.NewReader(set.String()), "bench")
	if err != nil {
		b.Fatal(err)
	}
	return s, run.Bytes()
}

func benchmarkScore(b *testing.B, trec bool) {
	set, run := benchCase(b, 1000, 1000, trec)
	b.SetBytes(int64(len(run)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc := gate.NewScorer(set, gate.DefaultDepth())
		if err := ReadRun(bytes.NewReader(run), "bench", sc.Add); err != nil {
			b.Fatal(err)
		}
		if _, err := sc.Card(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/1k-queries×1k-hits")
}

// BenchmarkScoreJSONL streams and scores 1,000 queries × 1,000 hits of JSONL.
func BenchmarkScoreJSONL(b *testing.B) { benchmarkScore(b, false) }

// BenchmarkScoreTREC streams and scores 1,000 queries × 1,000 hits of a TREC run.
func BenchmarkScoreTREC(b *testing.B) { benchmarkScore(b, true) }

// BenchmarkCompare compares two scored runs of 1,000 queries.
func BenchmarkCompare(b *testing.B) {
	set, run := benchCase(b, 1000, 100, false)
	sc := gate.NewScorer(set, gate.DefaultDepth())
	if err := ReadRun(bytes.NewReader(run), "bench", sc.Add); err != nil {
		b.Fatal(err)
	}
	card, err := sc.Card()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := gate.Compare(card, card, gate.DefaultThresholds()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScoreRunFileTREC is the command's path on a TREC file of 1,000
// queries × 1,000 hits: cut into segments at query boundaries, one a core.
func BenchmarkScoreRunFileTREC(b *testing.B) {
	set, run := benchCase(b, 1000, 1000, true)
	path := filepath.Join(b.TempDir(), "run.trec")
	if err := os.WriteFile(path, run, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(run)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ScoreRunFile(set, path, gate.DefaultDepth()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/1k-queries×1k-hits")
}

// BenchmarkMemoryPerQuery reports the heap a scorecard keeps per query
// (after scoring 2,000 queries × 100 hits, a forced GC): what grows with
// the number of queries. "whole" keeps every query's documents (compare,
// gate, text reports); "spilled" is what `score --format json` keeps, the
// documents gone to the spill.
func BenchmarkMemoryPerQuery(b *testing.B) {
	const nq = 2000
	set, run := benchCase(b, nq, 100, true)
	for _, mode := range []string{"whole", "spilled"} {
		b.Run(mode, func(b *testing.B) {
			var kept uint64
			for i := 0; i < b.N; i++ {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				sc := gate.NewScorer(set, gate.DefaultDepth())
				if mode == "spilled" {
					sc = gate.NewSpilledScorer(set, gate.DefaultDepth(), discard{})
				}
				if err := ReadRun(bytes.NewReader(run), "bench", sc.Add); err != nil {
					b.Fatal(err)
				}
				card, err := sc.Card()
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				kept = after.HeapAlloc - before.HeapAlloc
				runtime.KeepAlive(card)
			}
			b.ReportMetric(float64(kept)/nq, "B/query")
		})
	}
}

// discard is a Spill that drops what it is given.
type discard struct{}

func (discard) Put(gate.QueryScore) error { return nil }
