package gate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// benchCase builds an in-memory set and a run of nq queries × nh hits, as
// JSONL or TREC.
func benchCase(b *testing.B, nq, nh int, trec bool) (*Set, []byte) {
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
	s, err := ParseSet(strings.NewReader(set.String()), "bench")
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
		sc := NewScorer(set, DefaultDepth())
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
	sc := NewScorer(set, DefaultDepth())
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
		if _, err := Compare(card, card, DefaultThresholds()); err != nil {
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
		if _, err := ScoreRunFile(set, path, DefaultDepth()); err != nil {
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
				sc := NewScorer(set, DefaultDepth())
				if mode == "spilled" {
					sc.spill = discard{}
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

func (discard) Put(QueryScore) error { return nil }

// BenchmarkContextStage is the final-context stage's share of scoring a
// SciFact-shaped run with passages (300 queries × 100 hits of about 200
// words, one required fact each): "documents" scores without the stage,
// "packed" with recallgate's packing, "own" with the pipeline's context of
// 10 passages.
func BenchmarkContextStage(b *testing.B) {
	words := strings.Repeat("cell protein expression in the tumour sample ", 25)
	var set strings.Builder
	results := make([]Result, 300)
	for q := range results {
		fmt.Fprintf(&set, `{"id":"q%d","query":"x","gold":{"d%d":1},"evidence":["tumour sample 7"]}`+"\n", q, q)
		r := Result{ID: fmt.Sprintf("q%d", q)}
		for h := 0; h < 100; h++ {
			r.Hits = append(r.Hits, Hit{Doc: fmt.Sprintf("d%d", (q+h)%5183), Chunk: fmt.Sprintf("d%d#0", (q+h)%5183), Score: float64(100 - h), Text: words})
		}
		for _, h := range r.Hits[:10] {
			r.Context = append(r.Context, Passage{Doc: h.Doc, Chunk: h.Chunk, Text: h.Text})
		}
		results[q] = r
	}
	s, err := ParseSet(strings.NewReader(set.String()), "bench")
	if err != nil {
		b.Fatal(err)
	}
	d := Depth{Candidates: 100, Context: 10}
	for _, mode := range []string{"documents", "packed", "own"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			var seen Seen
			for i := 0; i < b.N; i++ {
				for _, r := range results {
					q := s.Query(r.ID)
					switch mode {
					case "documents":
						scoreDocuments(q, r.Hits, d, &seen)
					case "packed":
						ScoreQuery(q, r.Hits, d, &seen)
					case "own":
						ScoreResult(q, r, d, &seen)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/300-queries")
		})
	}
}
