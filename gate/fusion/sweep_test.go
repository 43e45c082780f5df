package fusion

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestChooseInSampleDiffersFromHeldOut: s1 is best over the three queries
// (1.6 against 1.5), but leaving q1 or q2 out makes s0 the better (1.5 −
// 0 = 1.5 > 1.6 − 0.8 = 0.8; 1.5 − 0.5 = 1.0 > 0.8).
func TestChooseInSampleDiffersFromHeldOut(t *testing.T) {
	c := Choose([][]float64{
		{1, 0, 0.5},
		{0, 0.8, 0.8},
	})
	if c.Chosen != 1 {
		t.Errorf("in-sample choice %d, want 1", c.Chosen)
	}
	if !slices.Equal(c.Held, []int{1, 0, 0}) {
		t.Errorf("held-out choices %v, want [1 0 0]", c.Held)
	}
	if !slices.Equal(c.Oracle, []int{0, 1, 1}) {
		t.Errorf("oracle %v, want [0 1 1]", c.Oracle)
	}
}

// TestSweepCrossValidated: two weighted rrf settings that each take one input alone,
// at N = 1. B's is best in sample (q2, q3 found: recall 2/3) but every
// query held out chooses otherwise: q1 is scored by B's (the others favour
// it), q2 and q3 by A's (1 against 1: the first), each finding nothing. The
// cross-validated recall is 0, the optimism 2/3.
func TestSweepCrossValidated(t *testing.T) {
	set, err := setfile.Parse(strings.NewReader(`{"id":"q1","query":"a","gold":{"a":1}}
{"id":"q2","query":"x","gold":{"x":1}}
{"id":"q3","query":"m","gold":{"m":1}}
`), "s")
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string][][]gate.Hit{
		"q1": {{{Doc: "a", Score: 2}, {Doc: "b", Score: 1}}, {{Doc: "b", Score: 2}, {Doc: "a", Score: 1}}},
		"q2": {{{Doc: "y", Score: 2}, {Doc: "x", Score: 1}}, {{Doc: "x", Score: 2}, {Doc: "y", Score: 1}}},
		"q3": {{{Doc: "n", Score: 2}, {Doc: "m", Score: 1}}, {{Doc: "m", Score: 2}, {Doc: "n", Score: 1}}},
	}
	settings := []Setting{{Method: RRF, K: 60, Weights: []float64{1, 0}}, {Method: RRF, K: 60, Weights: []float64{0, 1}}}
	s := Sweep(set, gate.Depth{Candidates: 1, Context: 1}, settings, TargetRecall, func(id string) [][]gate.Hit { return runs[id] })
	if s.Chosen != 1 {
		t.Errorf("chosen %d, want 1 (w=0/1)", s.Chosen)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(s.CV.Recall, 0) || !near(s.InSample.Recall, 2.0/3) || !near(s.Optimism.Recall, 2.0/3) {
		t.Errorf("cv %v in-sample %v optimism %v, want 0, 2/3, 2/3", s.CV.Recall, s.InSample.Recall, s.Optimism.Recall)
	}
	var top []string
	for _, r := range s.Run {
		top = append(top, r.ID+":"+r.Hits[0].Doc)
	}
	if got := strings.Join(top, " "); got != "q1:b q2:y q3:n" {
		t.Errorf("cross-validated run %s, want q1:b q2:y q3:n", got)
	}
	if o := s.Oracle[0]; o.Best != "k=60 w=1/0" || o.Value != 1 || o.Chosen != 0 {
		t.Errorf("q1's oracle %+v, want k=60 w=1/0 at 1 against 0", o)
	}
}

// TestMeansJSON: the means are written under the metrics' registry keys,
// byte for byte as the struct tags wrote them before, and read back
// strictly.
func TestMeansJSON(t *testing.T) {
	m := Means{Recall: 2.0 / 3, NDCG: 0.125}
	b, err := json.Marshal(m)
	was, _ := json.Marshal(struct {
		Recall float64 `json:"recall_at_n"`
		NDCG   float64 `json:"ndcg_at_k"`
	}{m.Recall, m.NDCG})
	if err != nil || string(b) != string(was) {
		t.Fatalf("Means = %s, %v; want %s", b, err, was)
	}
	var back Means
	if err := json.Unmarshal(b, &back); err != nil || back != m {
		t.Errorf("read back %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"recall_at_n":1,"mrr":1}`), &back); err == nil {
		t.Error("an unknown key was read")
	}
}
