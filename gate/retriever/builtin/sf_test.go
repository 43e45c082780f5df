package builtin

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/retrieval"
	"github.com/recallgate/recallgate/gate/setfile"
	"github.com/recallgate/recallgate/internal/shareddata"
)

// TestSciFactBM25Quality pins the ranking quality of the default BM25 on the
// BEIR SciFact test queries in ../shared/data. The published BM25 "flat"
// figures (Anserini/Pyserini BEIR regressions: title and text as one field,
// k1 = 0.9, b = 0.4) are nDCG@10 0.679 and R@100 0.925.
func TestSciFactBM25Quality(t *testing.T) {
	dir := shareddata.Path(t, "data/scifact") + "/"
	for _, f := range []string{"corpus.jsonl.gz", "qrels.tsv", "queries.jsonl"} {
		shareddata.Path(t, "data/scifact/"+f)
	}
	start := time.Now()
	ix, err := Build(readSnap(t, dir+"corpus.jsonl.gz"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	indexed := time.Now()
	set, err := setfile.Load(dir + "qrels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if err := setfile.LoadQueryTexts(set, dir+"queries.jsonl"); err != nil {
		t.Fatal(err)
	}
	res, err := retrieval.All(context.Background(), "scifact", set, ix, retrieval.Options{K: 100, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SciFact: index %v, 300 queries %v", indexed.Sub(start).Round(time.Millisecond), time.Since(indexed).Round(time.Millisecond))
	c, err := gate.ScoreResults(set, res, gate.Depth{Candidates: 100, Context: 10})
	if err != nil {
		t.Fatal(err)
	}
	ndcg, recall := c.Summary.NDCG, c.Summary.Recall
	t.Logf("SciFact: %d chunks, nDCG@10 %.4f, R@100 %.4f", ix.Chunks(), ndcg, recall)
	if math.Abs(ndcg-0.679) > 0.02 || math.Abs(recall-0.925) > 0.02 {
		t.Errorf("nDCG@10 %.4f / R@100 %.4f: more than 0.02 from the published BM25 0.679 / 0.925", ndcg, recall)
	}
	// Pin the measured values so any change to analysis or scoring shows.
	if math.Round(ndcg*1e4) != 6811 || math.Round(recall*1e4) != 9220 {
		t.Errorf("measured nDCG@10 %.4f R@100 %.4f, pinned 0.6811 / 0.9220", ndcg, recall)
	}
}
