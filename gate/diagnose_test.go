package gate

import (
	"strings"
	"testing"
	"time"
)

// diagSet: q1 has gold g1 (3) and g2 (1); others one gold doc each.
func diagSet(t *testing.T, extra string) *Set {
	t.Helper()
	s, err := ParseSet(strings.NewReader(`{"id":"q1","query":"rotate api key","gold":{"g1":3,"g2":1},"segments":["known-failure"],"source":"ticket"}
{"id":"q2","query":"how do I create a queue?","gold":{"g3":1},"source":"log"}
{"id":"q3","query":"what is the maximum message size allowed","gold":{"g4":1},"source":"log"}
`+extra), "diag.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func scoreDocs(t *testing.T, s *Set, d Depth, runs map[string][]string) *Scorecard {
	t.Helper()
	sc := NewScorer(s, d)
	for id, docs := range runs {
		if err := sc.Add(Result{ID: id, Hits: hits(docs...)}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAttribution(t *testing.T) {
	s := diagSet(t, "")
	d := Depth{Candidates: 4, Context: 2}
	base := scoreDocs(t, s, d, map[string][]string{
		"q1": {"g1", "g2", "x", "y"},
		"q2": {"g3", "x"},
		"q3": {"x", "y"},
	})
	head := scoreDocs(t, s, d, map[string][]string{
		"q1": {"a", "b", "g2", "c", "g1"}, // g1 leaves the candidates (rank 5 > 4); g2 drops below the context
		"q2": {"x", "g3"},                 // g3 drops from rank 1 to 2: still in context, not a loss
		"q3": {"x", "y"},                  // zero recall both times; g4 is not in the corpus
	})
	corpus := map[string]bool{"g1": true, "g2": true, "g3": true, "a": true, "b": true, "c": true, "x": true, "y": true}
	c, err := CompareWith(base, head, Policy{Thresholds: Thresholds{MaxRecallDrop: 1, MaxNewMisses: 9}, Corpus: corpus})
	if err != nil {
		t.Fatal(err)
	}
	m := c.Query("q1").Moves
	if len(m) != 2 {
		t.Fatalf("q1 moves %+v", m)
	}
	if m[0].Doc != "g1" || m[0].Cause != CauseRetrieval || m[0].BaseRank != 1 || m[0].HeadRank != 5 || m[0].TookItsPlace != "a" {
		t.Errorf("g1 %+v", m[0])
	}
	if m[1].Doc != "g2" || m[1].Cause != CauseRanking || m[1].BaseRank != 2 || m[1].HeadRank != 3 || m[1].TookItsPlace != "b" {
		t.Errorf("g2 %+v", m[1])
	}
	if mv := c.Query("q2").Moves; len(mv) != 0 {
		t.Errorf("q2 lost nothing, got %+v", mv)
	}
	if mv := c.Query("q3").Moves; len(mv) != 1 || mv[0].Cause != CauseCorpus {
		t.Errorf("q3 %+v", mv)
	}
	// Without a corpus nothing is lost: the base never found g4 either.
	c2, _ := Compare(base, head, Thresholds{MaxRecallDrop: 1, MaxNewMisses: 9})
	if mv := c2.Query("q3").Moves; len(mv) != 0 {
		t.Errorf("q3 without corpus: the base never found g4, got %+v", mv)
	}
}

func TestWaiversSyntheticAndSegments(t *testing.T) {
	s := diagSet(t, `{"id":"q4","query":"synthetic question about keys","gold":{"g5":1},"source":"synthetic"}`+"\n")
	d := Depth{Candidates: 5, Context: 3}
	all := map[string][]string{"q1": {"g1", "g2"}, "q2": {"g3"}, "q3": {"g4"}, "q4": {"g5"}}
	base := scoreDocs(t, s, d, all)
	head := scoreDocs(t, s, d, map[string][]string{"q1": {"g1", "g2"}, "q2": {"x"}, "q3": {"g4"}, "q4": {"x"}})
	// The synthetic q4 lost its doc: not in the headline, not in the verdict.
	if base.Summary.Queries != 3 || base.SyntheticSummary.Queries != 1 {
		t.Fatalf("summaries %+v / %+v", base.Summary, base.SyntheticSummary)
	}
	c, err := Compare(base, head, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Fail || strings.Join(c.Regressed, ",") != "q2" || strings.Join(c.Synthetic, ",") != "q4" {
		t.Errorf("verdict %s regressed %v synthetic %v", c.Verdict, c.Regressed, c.Synthetic)
	}
	w := Waiver{Query: "q2", Reason: "index rebuild pending", Expires: time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)}
	c, err = CompareWith(base, head, Policy{Thresholds: DefaultThresholds(), Waivers: []Waiver{w}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Pass || len(c.Regressed) != 0 || strings.Join(c.Waived, ",") != "q2" || c.GateDelta != 0 {
		t.Errorf("waived: verdict %s regressed %v waived %v gate delta %v", c.Verdict, c.Regressed, c.Waived, c.GateDelta)
	}
	if _, err := CompareWith(base, head, Policy{Waivers: []Waiver{{Query: "nope"}}}); err == nil {
		t.Error("waiver for an unknown query: want an error")
	}
	seg := map[string]Segment{}
	for _, sg := range c.Segments {
		seg[sg.Kind+":"+sg.Name] = sg
	}
	if sg := seg["segment:known-failure"]; sg.Queries != 1 || sg.Base != 1 {
		t.Errorf("known-failure %+v", sg)
	}
	if sg := seg["source:log"]; sg.Queries != 2 || sg.Base != 1 || sg.Head != 0.5 {
		t.Errorf("source:log %+v", sg)
	}
	// Groups of exactly the same queries are one row naming the others.
	if sg := seg["source:log"]; strings.Join(sg.Also, ",") != "auto: long,auto: question" {
		t.Errorf("source:log (q2, q3) should absorb auto: long and auto: question (the same queries): %+v", sg)
	}
	if sg := seg["segment:known-failure"]; strings.Join(sg.Also, ",") != "source: ticket,auto: keyword,auto: short" {
		t.Errorf("known-failure (q1) should absorb the groups of q1 alone: %+v", sg)
	}
	if len(c.Segments) != 2 {
		t.Errorf("%d segment rows, want 2 after merging: %+v", len(c.Segments), c.Segments)
	}
	if _, ok := seg["source:synthetic"]; ok {
		t.Error("synthetic queries must stay out of the segments")
	}
}

func TestInconclusiveAndUnstable(t *testing.T) {
	s := thirtySet(t)
	base := card(t, s, nil)
	head := card(t, s, map[string][]Hit{"q07": hits("x")})
	th := DefaultThresholds()
	th.MaxNewMisses = 5
	th.RequireSignificance = true
	c, err := Compare(base, head, th)
	if err != nil {
		t.Fatal(err)
	}
	// One loss of 1.0 among 30: sign-flip p = 1, not significant.
	if c.Verdict != Inconclusive || c.Stats.PValue != 1 || c.Stats.Losses != 1 || c.Stats.Ties != 29 {
		t.Errorf("verdict %s stats %+v", c.Verdict, c.Stats)
	}
	// Five losses: p = 2/32 = 0.0625, still ≥ 0.05; seven: 2/128 < 0.05 → fail.
	lose := map[string][]Hit{}
	for _, id := range []string{"q01", "q02", "q03", "q04", "q05", "q06", "q07"} {
		lose[id] = hits("x")
	}
	th.MaxNewMisses = 10
	c, _ = Compare(base, card(t, s, lose), th)
	if c.Verdict != Fail || c.Stats.PValue != 2.0/128 {
		t.Errorf("seven losses: %s p %v", c.Verdict, c.Stats.PValue)
	}
	// An unstable query is shown apart and never counted as a flip.
	c, _ = CompareWith(base, head, Policy{Thresholds: DefaultThresholds(), Unstable: map[string]bool{"q07": true}})
	if c.Verdict != Pass || len(c.Regressed) != 0 || strings.Join(c.Unstable, ",") != "q07" {
		t.Errorf("unstable: %s %v %v", c.Verdict, c.Regressed, c.Unstable)
	}
}

func TestEvidenceCoverage(t *testing.T) {
	q := &Query{ID: "q", Text: "rotate key", Gold: map[string]int{"keys": 3, "tokens": 1},
		Evidence: []string{"Settings → Keys", "revoke the old one", "expires after 90 days"}}
	q.prepare()
	hs := []Hit{
		{Doc: "other", Chunk: "other#0", Text: "Unrelated words here."},
		{Doc: "keys", Chunk: "keys#0", Text: "Create a key under settings -> keys, then copy it."},
		{Doc: "keys", Chunk: "keys#0", Text: "Create a key under settings -> keys, then copy it."}, // duplicate chunk
		{Doc: "tokens", Chunk: "tokens#1", Text: "Tokens start with tpp_."},
		{Doc: "keys", Chunk: "keys#1", Text: "Deploy it, then revoke the old one."},
	}
	s := ScoreQuery(q, hs, Depth{Candidates: 10, Context: 3, ContextTokens: 20}, nil)
	e := s.Evidence
	// Budget 20 words: 3 + 10 + 4 = 17 fit; the last passage (7 words) does not.
	if e == nil || e.Passages != 3 || e.Tokens != 17 || e.NoText {
		t.Fatalf("evidence %+v", e)
	}
	if !e.Facts[0].Found || e.Facts[0].In != "keys" || e.Facts[1].Found || e.Facts[2].Found || e.Covered() != 1 {
		t.Errorf("facts %+v", e.Facts)
	}
	if strings.Join(e.GoldInContext, ",") != "keys,tokens" {
		t.Errorf("gold in context %v", e.GoldInContext)
	}
	s = ScoreQuery(q, hs, Depth{Candidates: 10, Context: 3}, nil)
	if s.Evidence.Covered() != 2 || s.Evidence.Passages != 4 {
		t.Errorf("default budget: %+v", s.Evidence)
	}
	s = ScoreQuery(q, hits("keys"), DefaultDepth(), nil)
	if !s.Evidence.NoText || s.Evidence.Covered() != 0 {
		t.Errorf("no text: %+v", s.Evidence)
	}
	if ScoreQuery(query(map[string]int{"a": 1}), hits("a"), DefaultDepth(), nil).Evidence != nil {
		t.Error("a query without evidence gets no evidence check")
	}
}

// TestAttributionOfASwap: the head loses its grade-3 gold doc and finds the
// grade-1 one, so recall does not move, but the query regressed and the
// lost one is attributed.
func TestAttributionOfASwap(t *testing.T) {
	s := diagSet(t, "")
	d := Depth{Candidates: 2, Context: 1}
	base := scoreDocs(t, s, d, map[string][]string{"q1": {"g1", "x"}, "q2": {"g3"}, "q3": {"g4"}})
	head := scoreDocs(t, s, d, map[string][]string{"q1": {"g2", "x"}, "q2": {"g3"}, "q3": {"g4"}})
	c, err := Compare(base, head, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	p := c.Query("q1")
	if p.Change != Regressed || p.RankingOnly || len(p.Moves) != 1 || p.Moves[0].Doc != "g1" || p.Moves[0].Cause != CauseRetrieval || p.Moves[0].TookItsPlace != "g2" {
		t.Errorf("q1 %s moves %+v", p.Change, p.Moves)
	}
	if len(c.Query("q2").Moves) != 0 {
		t.Error("q2 lost nothing")
	}
	if len(c.Regressed) != 1 || c.Regressed[0] != "q1" || len(p.Lost) != 1 || p.Lost[0] != "g1" || len(p.Gained) != 1 || p.Gained[0] != "g2" {
		t.Errorf("regressed %v, q1 lost %v gained %v", c.Regressed, p.Lost, p.Gained)
	}
}

// TestChangeByDocuments: how a query moved, by the relevant documents
// found at N, hand-decided for each case. Gold: a 3, b 1, c 1, d 2.
func TestChangeByDocuments(t *testing.T) {
	s, err := ParseSet(strings.NewReader(`{"id":"q1","query":"one","gold":{"a":3,"b":1,"c":1,"d":2}}`+"\n"), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := Depth{Candidates: 3, Context: 2}
	for _, tc := range []struct {
		name        string
		base, head  []string
		want        Change
		rankingOnly bool
		lost        []string
	}{
		{"same documents, same order", []string{"a", "b", "x"}, []string{"a", "b", "x"}, Unchanged, false, nil},
		{"same documents, other order", []string{"a", "x", "b"}, []string{"x", "b", "a"}, Unchanged, true, nil},
		{"fewer found", []string{"a", "b", "x"}, []string{"a", "x", "y"}, Regressed, false, []string{"b"}},
		{"more found", []string{"a", "x", "y"}, []string{"a", "b", "x"}, Improved, false, nil},
		{"grade 3 swapped for grade 1", []string{"a", "x", "y"}, []string{"b", "x", "y"}, Regressed, false, []string{"a"}},
		{"grade 1 swapped for grade 2", []string{"b", "x", "y"}, []string{"d", "x", "y"}, Improved, false, []string{"b"}},
		// b and c are both grade 1 at rank 1: nDCG@2 equal, the query did not move.
		{"equal grades, same rank", []string{"b", "x", "y"}, []string{"c", "x", "y"}, Unchanged, false, []string{"b"}},
		// Equal grades, the gained one ranks lower: nDCG@2 falls.
		{"equal grades, ranked lower", []string{"b", "x", "y"}, []string{"x", "c", "y"}, Regressed, false, []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := scoreDocs(t, s, d, map[string][]string{"q1": tc.base})
			head := scoreDocs(t, s, d, map[string][]string{"q1": tc.head})
			c, err := Compare(base, head, Thresholds{MaxRecallDrop: 1, MaxNewMisses: 9})
			if err != nil {
				t.Fatal(err)
			}
			p := c.Query("q1")
			if p.Change != tc.want || p.RankingOnly != tc.rankingOnly || strings.Join(p.Lost, ",") != strings.Join(tc.lost, ",") {
				t.Errorf("change %s ranking-only %v lost %v; want %s %v %v", p.Change, p.RankingOnly, p.Lost, tc.want, tc.rankingOnly, tc.lost)
			}
		})
	}
}
