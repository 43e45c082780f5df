package builtin

import (
	"fmt"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestLabelsSurviveRechunking: the demo set was labelled on whole
// documents; re-chunking the index (200-word chunks, then 50-word chunks)
// needs no relabelling, because labels name documents and scoring
// collapses chunks to their document first. A run whose chunks are split
// finer, in the same document order, scores exactly the same.
func TestLabelsSurviveRechunking(t *testing.T) {
	set, err := setfile.Load("../../../frozen-set/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Depth{Candidates: 5, Context: 3}
	score := func(res []gate.Result) *gate.Scorecard {
		t.Helper()
		sc, err := gate.ScoreResults(set, res, d)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	run := func(chunkWords int) []gate.Result {
		t.Helper()
		o := DefaultOptions()
		o.ChunkWords = chunkWords
		ix, err := Build("../../../frozen-set/corpus", o)
		if err != nil {
			t.Fatal(err)
		}
		var out []gate.Result
		for _, q := range set.Queries {
			out = append(out, gate.Result{ID: q.ID, Hits: ix.Search(q.Text, 40)})
		}
		return out
	}
	coarse, fine := run(200), run(50)
	// Every gold document is reachable at both chunk sizes: no label
	// points at a chunk id that re-chunking could have renamed.
	docs := func(res []gate.Result) map[string]bool {
		m := map[string]bool{}
		for _, r := range res {
			for _, h := range r.Hits {
				m[h.Doc] = true
			}
		}
		return m
	}
	cd, fd := docs(coarse), docs(fine)
	for _, q := range set.Queries {
		for doc := range q.Gold {
			if !cd[doc] || !fd[doc] {
				t.Errorf("%s: gold %s not among the documents of both chunkings (200: %v, 50: %v)", q.ID, doc, cd[doc], fd[doc])
			}
		}
	}
	if sc := score(fine); sc.Summary.Queries != set.Answerable() {
		t.Errorf("the 50-word run scored %d queries", sc.Summary.Queries)
	}
	// The 200-word run split into four finer chunks per hit, same order:
	// identical scores, query by query.
	var split []gate.Result
	for _, r := range coarse {
		var hs []gate.Hit
		for _, h := range r.Hits {
			for i := 0; i < 4; i++ {
				hs = append(hs, gate.Hit{Doc: h.Doc, Chunk: fmt.Sprintf("%s/%d", h.Chunk, i), Score: h.Score})
			}
		}
		split = append(split, gate.Result{ID: r.ID, Hits: hs})
	}
	a, b := score(coarse), score(split)
	// The document scores: the split hits carry no text, so no final
	// context to compare.
	a.Summary.Context, b.Summary.Context = nil, nil
	if fmt.Sprint(a.Summary) != fmt.Sprint(b.Summary) {
		t.Errorf("summary %+v vs %+v", a.Summary, b.Summary)
	}
	for i := range a.Queries {
		x, y := a.Queries[i], b.Queries[i]
		if x.Recall != y.Recall || x.Precision != y.Precision || x.NDCG != y.NDCG || x.RR != y.RR {
			t.Errorf("%s: %+v vs %+v", x.ID, x, y)
		}
	}
}
