package gate

import (
	"fmt"
	"strings"
	"testing"
)

// thirtySet is a set of thirty queries with one gold doc each: q01 → d01, ….
func thirtySet(t *testing.T) *Set {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, `{"id":"q%02d","query":"query %d","gold":{"d%02d":1}}`+"\n", i, i, i)
	}
	s, err := ParseSet(strings.NewReader(b.String()), "thirty.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// card scores a run in which every query finds its gold doc at rank 1 except
// where override gives another hit list.
func card(t *testing.T, s *Set, override map[string][]Hit) *Scorecard {
	t.Helper()
	sc := NewScorer(s, DefaultDepth())
	for _, q := range s.Queries {
		h, ok := override[q.ID]
		if !ok {
			h = hits("d" + q.ID[1:])
		}
		if err := sc.Add(Result{ID: q.ID, Hits: h}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := sc.Card()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompareOneLostGoldDocFails(t *testing.T) {
	s := thirtySet(t)
	base := card(t, s, nil)
	head := card(t, s, map[string][]Hit{"q07": hits("x", "y")})
	c, err := Compare(base, head, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Fail || strings.Join(c.Regressed, ",") != "q07" || len(c.Improved) != 0 {
		t.Fatalf("verdict %s regressed %v improved %v", c.Verdict, c.Regressed, c.Improved)
	}
	if !near(c.MeanDelta.Recall, -1.0/30) {
		t.Errorf("mean delta %v, want -1/30", c.MeanDelta.Recall)
	}
	p := c.Query("q07")
	if strings.Join(p.Lost, ",") != "d07" || len(p.Gained) != 0 || !p.NewMiss {
		t.Errorf("q07 %+v", p)
	}
	if len(c.Reasons) != 2 || !strings.Contains(c.Reasons[0], "dropped by 0.033 (limit 0.020, max_recall_drop)") ||
		!strings.Contains(c.Reasons[1], "1 query newly at zero recall (limit 0, max_new_misses): q07") {
		t.Errorf("reasons %q", c.Reasons)
	}
}

func TestCompareThresholds(t *testing.T) {
	s := thirtySet(t)
	base := card(t, s, nil)
	head := card(t, s, map[string][]Hit{"q07": hits("x", "y")})
	tests := []struct {
		name string
		th   Thresholds
		want Verdict
	}{
		{"drop above limit", Thresholds{MaxRecallDrop: 0.02, MaxNewMisses: 1}, Fail},
		{"drop within limit", Thresholds{MaxRecallDrop: 0.05, MaxNewMisses: 1}, Pass},
		{"drop equal to limit passes", Thresholds{MaxRecallDrop: 1.0 / 30, MaxNewMisses: 1}, Pass},
		{"new miss beyond limit", Thresholds{MaxRecallDrop: 0.05, MaxNewMisses: 0}, Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(base, head, tt.th)
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict != tt.want {
				t.Errorf("verdict %s, want %s (%q)", c.Verdict, tt.want, c.Reasons)
			}
		})
	}
}

func TestCompareNothingDropsPasses(t *testing.T) {
	s := thirtySet(t)
	c, err := Compare(card(t, s, nil), card(t, s, nil), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != Pass || len(c.Regressed)+len(c.Improved)+len(c.RankingOnly) != 0 {
		t.Errorf("%s %v %v %v", c.Verdict, c.Regressed, c.Improved, c.RankingOnly)
	}
}

func TestCompareMixedFlipsAndRankingOnly(t *testing.T) {
	s := thirtySet(t)
	base := card(t, s, map[string][]Hit{"q02": hits("x"), "q03": hits("x"), "q05": hits("x", "d05")})
	head := card(t, s, map[string][]Hit{
		"q01": hits("x"),        // regressed
		"q02": hits("d02"),      // improved
		"q03": hits("y", "d03"), // improved, found at rank 2
		"q04": hits("x", "d04"), // ranking only: still found, now rank 2
		"q05": hits("d05"),      // ranking only: moved up
	})
	c, err := Compare(base, head, Thresholds{MaxRecallDrop: 0.02, MaxNewMisses: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Regressed, ","); got != "q01" {
		t.Errorf("regressed %s", got)
	}
	if got := strings.Join(c.Improved, ","); got != "q02,q03" {
		t.Errorf("improved %s", got)
	}
	if got := strings.Join(c.RankingOnly, ","); got != "q04,q05" {
		t.Errorf("ranking only %s", got)
	}
	if c.Verdict != Pass { // mean recall rose by 1/30
		t.Errorf("verdict %s %q", c.Verdict, c.Reasons)
	}
	if p := c.Query("q03"); strings.Join(p.Gained, ",") != "d03" || !near(p.Delta.RR, 0.5) {
		t.Errorf("q03 %+v", p)
	}
}

func TestCompareRegressedOrder(t *testing.T) {
	set, err := ParseSet(strings.NewReader(`{"id":"a","query":"x","gold":{"d1":1,"d2":1}}
{"id":"b","query":"x","gold":{"d3":1}}
{"id":"c","query":"x","gold":{"d4":1,"d5":1}}
`), "s")
	if err != nil {
		t.Fatal(err)
	}
	score := func(rs ...Result) *Scorecard {
		sc := NewScorer(set, DefaultDepth())
		for _, r := range rs {
			if err := sc.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		c, err := sc.Card()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := score(Result{ID: "a", Hits: hits("d1", "d2")}, Result{ID: "b", Hits: hits("d3")}, Result{ID: "c", Hits: hits("d4", "d5")})
	head := score(Result{ID: "a", Hits: hits("d1")}, Result{ID: "b"}, Result{ID: "c", Hits: hits("d5")})
	c, err := Compare(base, head, DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	// b lost 1.0, a and c lost 0.5 each: b first, then a, c in set order.
	if got := strings.Join(c.Regressed, ","); got != "b,a,c" {
		t.Errorf("regressed order %s", got)
	}
}

func TestCompareRefusesMismatch(t *testing.T) {
	s := thirtySet(t)
	base := card(t, s, nil)
	other := card(t, thirtySet(t), nil)
	if _, err := Compare(base, other, DefaultThresholds()); err == nil {
		t.Error("different sets: want an error")
	}
	head := card(t, s, nil)
	head.Depth.Context = 3
	if _, err := Compare(base, head, DefaultThresholds()); err == nil {
		t.Error("different depths: want an error")
	}
	if _, err := Compare(base, base, Thresholds{MaxRecallDrop: -1}); err == nil {
		t.Error("negative threshold: want an error")
	}
}

// TestNeverRetrieved: with the corpus unknown, a relevant gold document
// that neither side returned for any query (d-gone) is listed once,
// sorted; one returned at any depth for its own query (d-deep at rank
// 60, beyond N = 50), or only for another query (d-other), or labelled
// grade 0 (d-zero) is not. A known corpus turns the list off, and the
// verdict is the same either way.
func TestNeverRetrieved(t *testing.T) {
	s, err := ParseSet(strings.NewReader(`{"id":"q1","query":"a","gold":{"d1":2,"d-gone":1,"d-zero":0}}
{"id":"q2","query":"b","gold":{"d2":1,"d-deep":1,"d-gone":2}}
{"id":"q3","query":"c","gold":{"d3":1,"d-other":1,"b-gone":1}}
{"id":"u1","query":"d","gold":{},"unanswerable":true}
`), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	deep := []string{"d2"}
	for i := 2; i < 60; i++ {
		deep = append(deep, fmt.Sprintf("filler%d", i))
	}
	deep = append(deep, "d-deep")
	base := card(t, s, map[string][]Hit{"q1": hits("d1", "d-other"), "q2": hits(deep...), "q3": hits("d3"), "u1": hits("x")})
	head := card(t, s, map[string][]Hit{"q1": hits("x"), "q2": hits("d2"), "q3": hits("d3"), "u1": hits("x")})
	c, err := CompareWith(base, head, Policy{Thresholds: DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.NeverRetrieved, ","); got != "b-gone,d-gone" {
		t.Errorf("never retrieved %q, want b-gone,d-gone", got)
	}
	known, err := CompareWith(base, head, Policy{Thresholds: DefaultThresholds(), Corpus: map[string]bool{"d1": true, "d2": true, "d3": true, "x": true}})
	if err != nil {
		t.Fatal(err)
	}
	if known.NeverRetrieved != nil || known.Verdict != c.Verdict || c.Verdict != Fail {
		t.Errorf("with a corpus: never retrieved %v, verdict %s; without: verdict %s (want fail both)", known.NeverRetrieved, known.Verdict, c.Verdict)
	}
}
