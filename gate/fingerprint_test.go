package gate

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/fingerprint"
)

// TestDataQuality: a query's relevant gold the corpus does not hold is
// listed; with StaleGoldApart (a drift run) the query is kept out of the
// flips and the rules only when all it lost is such gold; without it (a
// pull request deleting the document) it counts. Hand-made at N=2, k=1
// with corpus {a, b, c}:
//
//	q1 gold {gone:1}        base [gone]   head [a]   lost [gone], all gone → kept out
//	q2 gold {gone:1, b:1}   base [gone b] head [a]   lost [gone b], b is held → counted, regressed
//	q3 gold {gone:1, c:1}   base [c]      head [c]   lost nothing → listed, counted, unchanged
//	q4 gold {a:1, zero:0}   base [a]      head [a]   a grade-0 judgement gone: not listed
func TestDataQuality(t *testing.T) {
	set, err := ParseSet(strings.NewReader(`{"id":"q1","query":"one","gold":{"gone":1}}
{"id":"q2","query":"two","gold":{"gone":1,"b":1}}
{"id":"q3","query":"three","gold":{"gone":1,"c":1}}
{"id":"q4","query":"four","gold":{"a":1,"zero":0}}
`), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := Depth{Candidates: 2, Context: 1}
	card := func(runs map[string][]string) *Scorecard {
		sc := NewScorer(set, d)
		for id, docs := range runs {
			var hs []Hit
			for _, doc := range docs {
				hs = append(hs, Hit{Doc: doc})
			}
			if err := sc.Add(Result{ID: id, Hits: hs}); err != nil {
				t.Fatal(err)
			}
		}
		c, err := sc.Card()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := card(map[string][]string{"q1": {"gone"}, "q2": {"gone", "b"}, "q3": {"c"}, "q4": {"a"}})
	head := card(map[string][]string{"q1": {"a"}, "q2": {"a"}, "q3": {"c"}, "q4": {"a"}})
	th := DefaultThresholds()
	th.MaxRecallDrop = 1 // the mean is not what is tested here
	corpus := map[string]bool{"a": true, "b": true, "c": true}
	c, err := CompareWith(base, head, Policy{Thresholds: th, Corpus: corpus, StaleGoldApart: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id      string
		missing string
		keptOut bool
	}{{"q1", "gone", true}, {"q2", "gone", false}, {"q3", "gone", false}, {"q4", "", false}} {
		p := c.Query(tc.id)
		if got := strings.Join(p.MissingGold, ","); got != tc.missing || p.DataQuality != tc.keptOut {
			t.Errorf("%s: missing %q kept out %v, want %q %v", tc.id, got, p.DataQuality, tc.missing, tc.keptOut)
		}
	}
	if got := strings.Join(c.DataQuality, ","); got != "q1,q2,q3" {
		t.Errorf("data quality %s, want q1,q2,q3", got)
	}
	// q1 is no regression and no new miss; q2 is both. The recall rule
	// counts q2, q3, q4: deltas -1, 0, 0.
	if strings.Join(c.Regressed, ",") != "q2" || strings.Join(c.NewMisses, ",") != "q2" || c.Stats.N != 3 || c.Rules[0].Queries != 3 {
		t.Errorf("regressed %v, new misses %v, paired n %d, recall rule over %d queries", c.Regressed, c.NewMisses, c.Stats.N, c.Rules[0].Queries)
	}
	// In a pull request the deletion is the change: q1 counts, listed.
	c, err = CompareWith(base, head, Policy{Thresholds: th, Corpus: corpus})
	if err != nil || strings.Join(c.DataQuality, ",") != "q1,q2,q3" || c.Query("q1").DataQuality || strings.Join(c.Regressed, ",") != "q1,q2" || strings.Join(c.NewMisses, ",") != "q1,q2" {
		t.Errorf("a pull request: %v, data quality %v, regressed %v, new misses %v", err, c.DataQuality, c.Regressed, c.NewMisses)
	}
	// Without the corpus nothing is known: q1 is a regression like q2.
	c, err = CompareWith(base, head, Policy{Thresholds: th, StaleGoldApart: true})
	if err != nil || len(c.DataQuality) != 0 || strings.Join(c.Regressed, ",") != "q1,q2" {
		t.Errorf("corpus unknown: %v, data quality %v, regressed %v", err, c.DataQuality, c.Regressed)
	}
}

// TestPolicyFingerprint: equal thresholds and depths hash equal, wherever
// a segment rule was written; one value changed changes the hash.
func TestPolicyFingerprint(t *testing.T) {
	th := DefaultThresholds()
	drop := 0.1
	th.Segments = []SegmentRule{{Name: "keyword", Limits: Limits{MaxRecallDrop: &drop}, File: "a.toml", Line: 3}}
	d := Depth{Candidates: 50, Context: 5}
	fp := PolicyFingerprint(th, d)
	if !fingerprint.Valid(fp) {
		t.Fatalf("policy fingerprint %q", fp)
	}
	same := th
	same.Segments = []SegmentRule{{Name: "keyword", Limits: Limits{MaxRecallDrop: &drop}, File: "b.toml@1234567890ab", Line: 9}}
	if got := PolicyFingerprint(same, d); got != fp {
		t.Errorf("the rule's file and line changed the fingerprint: %s, %s", got, fp)
	}
	if th.Segments[0].File != "a.toml" {
		t.Error("PolicyFingerprint changed its argument's segment rules")
	}
	other := th
	other.MaxRecallDrop = 0.03
	deeper := d
	deeper.Context = 10
	for name, got := range map[string]string{"max_recall_drop": PolicyFingerprint(other, d), "context depth": PolicyFingerprint(th, deeper)} {
		if got == fp {
			t.Errorf("%s changed, the fingerprint did not", name)
		}
	}
}
