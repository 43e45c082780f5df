package judge

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// loadSet writes lines as a set file and loads it.
func loadSet(t *testing.T, lines ...string) *gate.Set {
	t.Helper()
	p := filepath.Join(t.TempDir(), "set.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := setfile.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const fp = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// TestCalibrateHandComputed checks the kappas against hand computation.
//
// graded: people 3,2,1,0,0,0 and the judge 3,1,1,1,0,0 on d1–d6 (x the
// judge's alone, kept out). Relevant or not: agree 5/6; people say
// relevant 3/6, the judge 4/6, chance = ½·⅔ + ½·⅓ = ½, kappa =
// (5/6 − ½)/(1 − ½) = ⅔. Quadratic weights w = (i−j)²/9: observed
// Σw/n = (1/9 + 1/9)/6 = 1/27; expected Σ w·pa·pb = 14/54 = 7/27;
// weighted = 1 − (1/27)/(7/27) = 6/7.
//
// acceptance: people 2,0 four times, the judge 0,2 once and 2,0 three
// times: observed 6/8, chance ½, kappa ½; weighted: observed
// (4/9 + 4/9)/8 = 1/9, expected 2·(4/9)·¼ = 2/9, weighted ½.
func TestCalibrateHandComputed(t *testing.T) {
	for _, c := range []struct {
		name                                string
		lines                               []string
		overlap, judgeRel, peopleRel, other int
		kappa, weighted                     float64
	}{
		{"graded", []string{`{"id":"q1","query":"one","gold":{"d1":3,"d2":2,"d3":1},"judgments":{"alice":{"d1":3,"d2":2,"d3":1,"d4":0,"d5":0,"d6":0},"judge:t":{"d1":3,"d2":1,"d3":1,"d4":1,"d5":0,"d6":0,"x":2}},"labellers":{"judge:t":{"fingerprint":"` + fp + `"}}}`},
			6, 1, 0, 0, 2.0 / 3, 6.0 / 7},
		{"acceptance", []string{
			`{"id":"q1","query":"one","gold":{"r":2},"judgments":{"alice":{"r":2,"n":0},"judge:t":{"r":0,"n":2}},"labellers":{"judge:t":{"fingerprint":"` + fp + `"}}}`,
			`{"id":"q2","query":"two","gold":{"r":2},"judgments":{"alice":{"r":2,"n":0},"judge:t":{"r":2,"n":0}},"labellers":{"judge:t":{"fingerprint":"` + fp + `"}}}`,
			`{"id":"q3","query":"three","gold":{"r":2},"judgments":{"alice":{"r":2,"n":0},"judge:t":{"r":2,"n":0}},"labellers":{"judge:t":{"fingerprint":"` + fp + `"}}}`,
			`{"id":"q4","query":"four","gold":{"r":2},"judgments":{"alice":{"r":2,"n":0},"judge:t":{"r":2,"n":0}},"labellers":{"judge:t":{"fingerprint":"` + fp + `"}}}`},
			8, 1, 1, 0, 0.5, 0.5},
		{"another fingerprint is counted, never compared", []string{`{"id":"q1","query":"one","gold":{"d1":3},"judgments":{"alice":{"d1":3},"judge:t":{"d1":0,"d2":1}},"labellers":{"judge:t":{"fingerprint":"sha256:22"}}}`},
			0, 0, 0, 2, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Calibrate(loadSet(t, c.lines...), Identity{Name: "t", Fingerprint: fp})
			if r.Overlap != c.overlap || r.JudgeRelevant != c.judgeRel || r.PeopleRelevant != c.peopleRel || r.OtherFingerprint != c.other ||
				math.Abs(r.Kappa-c.kappa) > 1e-12 || math.Abs(r.Weighted-c.weighted) > 1e-12 {
				t.Errorf("got overlap %d, judge relevant %d, people relevant %d, other %d, kappa %v, weighted %v; want %d, %d, %d, %d, %v, %v",
					r.Overlap, r.JudgeRelevant, r.PeopleRelevant, r.OtherFingerprint, r.Kappa, r.Weighted, c.overlap, c.judgeRel, c.peopleRel, c.other, c.kappa, c.weighted)
			}
		})
	}
}

// TestDecideAndApply: the policy both ways, and a used judge grade is
// gold only where no person graded, in a view that leaves the set alone.
func TestDecideAndApply(t *testing.T) {
	k := func(v float64) *float64 { return &v }
	set := loadSet(t,
		`{"id":"q1","query":"one","gold":{"r":2},"judgments":{"alice":{"r":2,"n":0},"judge:t":{"r":3,"n":0,"new":3,"zero":0}},"labellers":{"judge:t":{"fingerprint":"`+fp+`"}}}`,
		`{"id":"q2","query":"two","gold":{},"unanswerable":true,"judgments":{"alice":{}},"labellers":{"alice":{"unanswerable":true},"judge:t":{"fingerprint":"`+fp+`"}}}`,
	)
	set.Queries[1].Judges["t"].Grades = map[string]int{"found": 3}
	id := Identity{Name: "t", Fingerprint: fp}
	for _, c := range []struct {
		th   gate.Thresholds
		used bool
		why  string
	}{
		{gate.Thresholds{}, false, "sets no [gate] min_judge_agreement"},
		{gate.Thresholds{MinJudgeAgreement: k(1)}, false, "2 documents graded by both people and the judge, under min_judge_overlap 30"},
		{gate.Thresholds{MinJudgeAgreement: k(1), MinJudgeOverlap: 2}, true, ""},
		{gate.Thresholds{MinJudgeAgreement: k(1), MinJudgeOverlap: 3}, false, "under min_judge_overlap 3"},
	} {
		view, r, applied := Apply(set, id, c.th)
		if r.Used != c.used || !strings.Contains(r.Why, c.why) {
			t.Errorf("%+v: used %v (%s), want %v (%s)", c.th, r.Used, r.Why, c.used, c.why)
		}
		q1 := view.Query("q1")
		switch {
		case c.used && (q1.Gold["new"] != 3 || !q1.Judged("zero") || q1.Gold["r"] != 2 || len(applied["q1"]) != 2 || view.Query("q2").Judged("found")):
			t.Errorf("used: view gold %v, applied %v", q1.Gold, applied)
		case !c.used && (view != set || q1.Judged("new")):
			t.Errorf("not used, yet the view differs: %v", q1.Gold)
		}
		if set.Query("q1").Judged("new") {
			t.Fatal("Apply changed the set itself")
		}
	}
}
