package gate

import (
	"math"
	"strings"
	"testing"
)

// l3 is log2(3), the discount of rank 2.
var l3 = math.Log2(3)

func query(gold map[string]int) *Query {
	q := &Query{ID: "q", Text: "t", Gold: gold}
	q.prepare()
	return q
}

func hits(docs ...string) []Hit {
	hs := make([]Hit, len(docs))
	for i, d := range docs {
		doc, chunk, _ := strings.Cut(d, "#")
		hs[i] = Hit{Doc: doc, Chunk: chunk}
	}
	return hs
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestScoreQuery(t *testing.T) {
	tests := []struct {
		name                   string
		gold                   map[string]int
		hits                   []Hit
		depth                  Depth
		recall, prec, ndcg, rr float64
		first, returned        int
	}{
		{
			name: "binary, first hit at rank 2",
			gold: map[string]int{"a": 1, "b": 1}, hits: hits("x", "a", "y", "b"), depth: Depth{Candidates: 50, Context: 2},
			// P@2 = 1/2; DCG = 0 + 1/log2(3); ideal = 1 + 1/log2(3).
			recall: 1, prec: 0.5, ndcg: (1 / l3) / (1 + 1/l3), rr: 0.5, first: 2, returned: 4,
		},
		{
			name: "fewer hits than k keeps k as denominator",
			gold: map[string]int{"a": 1}, hits: hits("a"), depth: Depth{Candidates: 50, Context: 5},
			recall: 1, prec: 0.2, ndcg: 1, rr: 1, first: 1, returned: 1,
		},
		{
			name: "duplicate chunks of one doc collapse to the first",
			gold: map[string]int{"a": 1, "b": 1}, hits: hits("a#1", "a#2", "a#3", "b#1"), depth: Depth{Candidates: 50, Context: 2},
			// deduplicated list is [a b]: both relevant in the top 2.
			recall: 1, prec: 1, ndcg: 1, rr: 1, first: 1, returned: 2,
		},
		{
			name: "grade 0 gold doc is judged non-relevant",
			gold: map[string]int{"a": 0, "b": 2}, hits: hits("a", "b"), depth: Depth{Candidates: 50, Context: 2},
			// relevant = {b}; DCG = 0 + 2/log2(3); ideal grades [2 0] → 2.
			recall: 1, prec: 0.5, ndcg: (2 / l3) / 2, rr: 0.5, first: 2, returned: 2,
		},
		{
			name: "graded nDCG with the ideal order reversed",
			gold: map[string]int{"a": 3, "b": 2, "c": 1}, hits: hits("c", "b", "a"), depth: Depth{Candidates: 50, Context: 3},
			// DCG = 1/1 + 2/log2(3) + 3/2; ideal = 3/1 + 2/log2(3) + 1/2.
			recall: 1, prec: 1, ndcg: (1 + 2/l3 + 1.5) / (3 + 2/l3 + 0.5), rr: 1, first: 1, returned: 3,
		},
		{
			name: "recall cut at the candidate depth, rr over the whole list",
			gold: map[string]int{"a": 1, "b": 1}, hits: hits("x", "y", "a", "b"), depth: Depth{Candidates: 3, Context: 2},
			recall: 0.5, prec: 0, ndcg: 0, rr: 1.0 / 3, first: 3, returned: 4,
		},
		{
			name: "first relevant doc beyond the candidate depth",
			gold: map[string]int{"a": 1}, hits: hits("x", "y", "a"), depth: Depth{Candidates: 2, Context: 1},
			recall: 0, prec: 0, ndcg: 0, rr: 1.0 / 3, first: 3, returned: 3,
		},
		{
			name: "ideal cut to k",
			gold: map[string]int{"a": 1, "b": 1, "c": 1}, hits: hits("a"), depth: Depth{Candidates: 50, Context: 2},
			// DCG = 1; ideal = 1 + 1/log2(3); recall 1/3.
			recall: 1.0 / 3, prec: 0.5, ndcg: 1 / (1 + 1/l3), rr: 1, first: 1, returned: 1,
		},
		{
			name: "nothing returned",
			gold: map[string]int{"a": 2}, hits: nil, depth: Depth{Candidates: 50, Context: 5},
			recall: 0, prec: 0, ndcg: 0, rr: 0, first: 0, returned: 0,
		},
		{
			name: "relevant doc repeated after a non-relevant one",
			gold: map[string]int{"a": 1}, hits: hits("x#1", "a#1", "x#2", "a#2"), depth: Depth{Candidates: 50, Context: 1},
			recall: 1, prec: 0, ndcg: 0, rr: 0.5, first: 2, returned: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScoreQuery(query(tt.gold), tt.hits, tt.depth, nil)
			if !near(s.Recall, tt.recall) || !near(s.Precision, tt.prec) || !near(s.NDCG, tt.ndcg) || !near(s.RR, tt.rr) {
				t.Errorf("got recall %v P %v nDCG %v RR %v, want %v %v %v %v", s.Recall, s.Precision, s.NDCG, s.RR, tt.recall, tt.prec, tt.ndcg, tt.rr)
			}
			if s.FirstHitRank != tt.first || s.Returned != tt.returned {
				t.Errorf("got first %d returned %d, want %d %d", s.FirstHitRank, s.Returned, tt.first, tt.returned)
			}
		})
	}
}

// TestScoreQueryDecimals pins two of the cases above to decimals worked out by hand.
func TestScoreQueryDecimals(t *testing.T) {
	s := ScoreQuery(query(map[string]int{"a": 1, "b": 1}), hits("x", "a", "y", "b"), Depth{Candidates: 50, Context: 2}, nil)
	if got := math.Round(s.NDCG*1e6) / 1e6; got != 0.386853 { // 0.630930 / 1.630930
		t.Errorf("nDCG@2 = %v, want 0.386853", got)
	}
	s = ScoreQuery(query(map[string]int{"a": 3, "b": 2, "c": 1}), hits("c", "b", "a"), Depth{Candidates: 50, Context: 3}, nil)
	if got := math.Round(s.NDCG*1e6) / 1e6; got != 0.789998 { // 3.761860 / 4.761860
		t.Errorf("nDCG@3 = %v, want 0.789998", got)
	}
}

func TestScorerSummary(t *testing.T) {
	set, err := ParseSet(strings.NewReader(`{"id":"a","query":"one","gold":{"d1":1}}
{"id":"b","query":"two","gold":{"d2":1,"d3":1}}
{"id":"c","query":"three","gold":{"d4":1}}
{"id":"u","query":"none","gold":{},"unanswerable":true}
`), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScorer(set, Depth{Candidates: 50, Context: 5})
	for _, r := range []Result{
		{ID: "a", Hits: hits("d1")},
		{ID: "b", Hits: hits("d2", "x")},
		{ID: "u", Hits: hits("x", "y")},
		{ID: "zz", Hits: hits("x")},
	} {
		if err := sc.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Add(Result{ID: "a"}); err == nil {
		t.Error("second result for a: want an error")
	}
	card, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	s := card.Summary
	// recalls 1, 0.5, 0 (c missing); P@5 0.2, 0.2, 0; RR 1, 1, 0.
	if s.Queries != 3 || !near(s.Recall, 0.5) || !near(s.Precision, 0.4/3) || !near(s.RR, 2.0/3) {
		t.Errorf("summary %+v", s)
	}
	if strings.Join(s.ZeroRecall, ",") != "c" || strings.Join(s.BelowHalf, ",") != "c" {
		t.Errorf("zero %v below %v", s.ZeroRecall, s.BelowHalf)
	}
	if strings.Join(card.Missing, ",") != "c" || strings.Join(card.Unknown, ",") != "zz" {
		t.Errorf("missing %v unknown %v", card.Missing, card.Unknown)
	}
	if len(card.Unanswerable) != 1 || card.Unanswerable[0].Returned != 2 {
		t.Errorf("unanswerable %+v", card.Unanswerable)
	}
	if w := card.Warnings(); len(w) != 2 || !strings.Contains(w[0], "query c is not in the run") {
		t.Errorf("warnings %q", w)
	}
}

func TestScorerRejectsForeignRun(t *testing.T) {
	set, err := ParseSet(strings.NewReader(`{"id":"a","query":"one","gold":{"d1":1}}`), "s")
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScorer(set, DefaultDepth())
	_ = sc.Add(Result{ID: "other"})
	if _, err := sc.Card(); err == nil || !strings.Contains(err.Error(), "wrong file") {
		t.Errorf("got %v, want a wrong-file error", err)
	}
}
