package builtin

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/shareddata"
)

var update = flag.Bool("update", false, "rewrite testdata/scifact-hits.golden from this code")

// sciFactVariants are the index shapes the hits golden pins: the default
// (flat title), the title as a field of its own, and chunks.
var sciFactVariants = []struct {
	name string
	opts func() Options
}{
	{"default", DefaultOptions},
	{"title_boost=2", func() Options { o := DefaultOptions(); o.TitleBoost = 2; return o }},
	{"chunk_words=60,overlap=10,k1=1.2,b=0.75", func() Options {
		o := DefaultOptions()
		o.ChunkWords, o.ChunkOverlap, o.K1, o.B = 60, 10, 1.2, 0.75
		return o
	}},
}

// sciFactQueries are SciFact's test queries (those qrels.tsv judges), in
// the order of queries.jsonl.
func sciFactQueries(tb testing.TB) [][2]string {
	tb.Helper()
	dir := shareddata.Path(tb, "data/scifact")
	qrels, err := os.ReadFile(filepath.Join(dir, "qrels.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	judged := map[string]bool{}
	for _, line := range strings.Split(string(qrels), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] != "query-id" {
			judged[f[0]] = true
		}
	}
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var r *bufio.Scanner
	if strings.HasSuffix(f.Name(), ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatal(err)
		}
		r = bufio.NewScanner(gz)
	} else {
		r = bufio.NewScanner(f)
	}
	r.Buffer(nil, 1<<20)
	var out [][2]string
	for r.Scan() {
		var q struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(r.Bytes(), &q); err != nil {
			tb.Fatal(err)
		}
		if judged[q.ID] {
			out = append(out, [2]string{q.ID, q.Text})
		}
	}
	if len(out) != 300 {
		tb.Fatalf("%d judged SciFact queries, want 300", len(out))
	}
	return out
}

// hitsHash hashes every hit of every query (its rank, document, chunk id,
// the score's exact bits and its text) at depth 100.
func hitsHash(ix *Index, queries [][2]string) string {
	var h hash.Hash = sha256.New()
	for _, q := range queries {
		for rank, hit := range ix.Search(q[1], 100) {
			fmt.Fprintf(h, "%s\t%d\t%s\t%s\t%016x\t%x\n", q[0], rank, hit.Doc, hit.Chunk, math.Float64bits(hit.Score), sha256.Sum256([]byte(hit.Text)))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestSciFactHitsUnchanged compares every hit (id, chunk, score bits,
// text, order) of SciFact's 300 queries at depth 100 with the golden made
// by the index before its dense accumulator, parallel build and shared
// text: any change to a score or a tie's order shows. -update rewrites it.
func TestSciFactHitsUnchanged(t *testing.T) {
	corpus := shareddata.Path(t, "data/scifact/corpus.jsonl.gz")
	queries := sciFactQueries(t)
	var got strings.Builder
	for _, v := range sciFactVariants {
		ix, err := Build(corpus, v.opts())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&got, "%s %d %s\n", v.name, ix.Chunks(), hitsHash(ix, queries))
	}
	golden := filepath.Join("testdata", "scifact-hits.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("SciFact hits changed:\n got %s\nwant %s", got.String(), want)
	}
}

// BenchmarkSciFactSearch answers SciFact's 300 queries at depth 100 on
// one goroutine (the index built once, outside the timing).
func BenchmarkSciFactSearch(b *testing.B) {
	corpus := shareddata.Path(b, "data/scifact/corpus.jsonl.gz")
	queries := sciFactQueries(b)
	ix, err := Build(corpus, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, q := range queries {
			ix.Search(q[1], 100)
		}
	}
}
