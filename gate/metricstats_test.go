package gate

import (
	"math"
	"testing"
	"time"
)

func TestMetricStats(t *testing.T) {
	s := thirtySet(t)
	base := card(t, s, nil)
	// q01 and q03 find their gold doc at rank 2 (nDCG 1/log2(3)), q02 at
	// rank 3 (nDCG 1/2): recall does not move, nDCG@5 drops three times.
	head := card(t, s, map[string][]Hit{"q01": hits("x", "d01"), "q02": hits("x", "y", "d02"), "q03": hits("x", "d03")})
	loss := 1 - 1/math.Log2(3) // 0.36907…
	for _, tc := range []struct {
		name     string
		waivers  []Waiver
		unstable map[string]bool
		losses   int
		mean, p  float64
	}{
		// Three losses a, a, ½: of the 8 sign patterns only the two with
		// one sign reach |2a + ½|.
		{"no waiver", nil, nil, 3, -(2*loss + 0.5) / 30, 2.0 / 8},
		// q02's loss waived counts as 0: of the 4 patterns of a, a, two reach |2a|.
		{"q02 waived", []Waiver{{Query: "q02", Reason: "known", Expires: time.Now().AddDate(0, 0, 7)}}, nil, 2, -2 * loss / 30, 2.0 / 4},
		// A waiver for another rule leaves the nDCG loss counted.
		{"q02 waived for recall only", []Waiver{{Query: "q02", Reason: "known", Expires: time.Now().AddDate(0, 0, 7), Rules: []string{RuleRecallDrop}}}, nil, 3, -(2*loss + 0.5) / 30, 2.0 / 8},
		// q01 unstable on the base is not counted: 29 queries, losses a
		// and ½, and of the 4 patterns two reach |a + ½|.
		{"q01 unstable", nil, map[string]bool{"q01": true}, 2, -(loss + 0.5) / 29, 2.0 / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareWith(base, head, Policy{Thresholds: DefaultThresholds(), Waivers: tc.waivers, Unstable: tc.unstable})
			if err != nil {
				t.Fatal(err)
			}
			st := c.MetricStats(MetricNDCG)
			if st.N != 30-len(tc.unstable) || st.Losses != tc.losses || st.Wins != 0 || !near(st.MeanDelta, tc.mean) || !near(st.PValue, tc.p) || !st.Exact {
				t.Errorf("nDCG stats %+v, want %d losses, mean %.5f, p %.3f", st, tc.losses, tc.mean, tc.p)
			}
			if st.CILow > st.MeanDelta || st.CIHigh < st.MeanDelta || st.CIHigh > 0 {
				t.Errorf("interval [%v, %v] around %v", st.CILow, st.CIHigh, st.MeanDelta)
			}
			if r := c.MetricStats(MetricRecall); r != c.Stats || r.N != st.N || r.Losses != 0 || r.PValue != 1 {
				t.Errorf("recall stats %+v, the comparison's %+v", r, c.Stats)
			}
		})
	}
}
