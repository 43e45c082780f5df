package gate

import (
	"fmt"
	"strings"
	"testing"
)

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
