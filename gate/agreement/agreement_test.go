package agreement

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/setfile"
)

func TestCohenKappaHandComputed(t *testing.T) {
	for _, tc := range []struct {
		a, b        []int
		obs, kappa  float64
		description string
	}{
		// 8 of 10 agree; each said 1 five times: expected 0.5, kappa (0.8-0.5)/0.5.
		{[]int{1, 1, 1, 0, 0, 0, 1, 1, 0, 0}, []int{1, 1, 0, 0, 0, 1, 1, 1, 0, 0}, 0.8, 0.6, "binary"},
		// 3 of 4 agree; expected 1/16 + 2/16 + 1/16 = 0.25; kappa 0.5/0.75.
		{[]int{3, 2, 2, 0}, []int{3, 2, 1, 0}, 0.75, 2.0 / 3, "graded"},
		// Chance agreement 0.5 and observed 0: kappa -1.
		{[]int{1, 0}, []int{0, 1}, 0, -1, "opposite"},
		{[]int{2, 2}, []int{2, 2}, 1, 1, "one grade throughout"},
	} {
		obs, k := cohenKappa(tc.a, tc.b)
		if math.Abs(obs-tc.obs) > 1e-12 || math.Abs(k-tc.kappa) > 1e-12 {
			t.Errorf("%s: observed %v kappa %v, want %v %v", tc.description, obs, k, tc.obs, tc.kappa)
		}
	}
}

func TestDraftJudgmentsAndAgreement(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "set.jsonl")
	text := `{"id":"q1","query":"rotate key","gold":{"a":3,"b":0},"judgments":{"ana":{"a":3,"b":0},"ben":{"a":3,"b":1}}}
{"id":"q2","query":"dlq redrive","gold":{"c":1},"judgments":{"ana":{"c":1,"d":0},"ben":{"c":1,"d":0}}}
{"id":"q3","query":"not labelled yet","gold":{}}
`
	os.WriteFile(p, []byte(text), 0o644)
	if _, err := setfile.Load(p); err == nil || !strings.Contains(err.Error(), "set.jsonl:3: gold") {
		t.Errorf("a draft is not a set the gate can use: %v", err)
	}
	s, err := setfile.LoadDraft(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Queries[2].Labelled() || !s.Queries[0].Labelled() {
		t.Error("Labelled")
	}
	// 4 shared pairs, 3 agree. ana: 3,0,1,0; ben: 3,1,1,0.
	// expected = P(3)·P(3) + P(1)·P(1) + P(0)·P(0) = 1/4·1/4 + 1/4·2/4 + 2/4·1/4 = 5/16.
	a, ok := Labellers(s)
	want := (0.75 - 5.0/16) / (1 - 5.0/16)
	if !ok || a.A != "ana" || a.B != "ben" || a.Pairs != 4 || math.Abs(a.Kappa-want) > 1e-12 {
		t.Errorf("agreement %+v ok %v, want kappa %v", a, ok, want)
	}
	// Quadratic weights w = (i−j)²/9: the one disagreement (0 vs 1) weighs
	// 1/9, so Σ w·observed = (1/9)/4 = 1/36; Σ w·expected runs over the
	// grade frequencies, ana {3: 1/4, 1: 1/4, 0: 1/2}, ben {3: 1/4, 1: 1/2, 0: 1/4}.
	pa := map[int]float64{3: 0.25, 1: 0.25, 0: 0.5}
	pb := map[int]float64{3: 0.25, 1: 0.5, 0: 0.25}
	exp := 0.0
	for i, x := range pa {
		for j, y := range pb {
			exp += float64((i-j)*(i-j)) / 9 * x * y
		}
	}
	if wantW := 1 - (1.0/36)/exp; math.Abs(a.Weighted-wantW) > 1e-12 {
		t.Errorf("weighted kappa %v, want %v", a.Weighted, wantW)
	}
	// Relevant or not: ana 1,0,1,0; ben 1,1,1,0: observed 3/4, expected
	// 1/2·3/4 + 1/2·1/4 = 1/2, kappa 0.5.
	if math.Abs(a.Binary-0.5) > 1e-12 {
		t.Errorf("binary kappa %v, want 0.5", a.Binary)
	}
	line, err := s.Queries[0].MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(line); got != `{"id":"q1","query":"rotate key","gold":{"a":3,"b":0},"judgments":{"ana":{"a":3,"b":0},"ben":{"a":3,"b":1}}}` {
		t.Errorf("MarshalLine = %s", got)
	}
	if _, err := setfile.Parse(strings.NewReader(`{"id":"q","query":"x","gold":{"a":1},"judgments":{"ana":{"a":7}}}`), "s"); err == nil || !strings.Contains(err.Error(), "judgments.ana.a") {
		t.Errorf("a bad judgment grade: %v", err)
	}
}

// TestLabellersLeaveTheJudgeOut: a judge's grades (read apart from
// people's) are no labeller's: the agreement compares the two people.
func TestLabellersLeaveTheJudgeOut(t *testing.T) {
	const line = `{"id":"q1","query":"one","gold":{"a":2},"judgments":{"alice":{"a":2,"b":0},"bob":{"a":2},"judge:llm":{"c":3,"a":0}},"labellers":{"judge:llm":{"fingerprint":"sha256:ab","reasons":{"c":"<b>says</b>"}}}}`
	s, err := setfile.Parse(strings.NewReader(line+"\n"), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := Labellers(s); !ok || a.A != "alice" || a.B != "bob" || a.Pairs != 1 {
		t.Errorf("labeller agreement compares the judge: %+v %v", a, ok)
	}
}
