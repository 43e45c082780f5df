package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// enumerate is an independent exact sign-flip p-value: it walks every sign
// pattern recursively.
func enumerate(d []float64) float64 {
	obs := 0.0
	for _, x := range d {
		obs += x
	}
	var count, total int
	var walk func(i int, s float64)
	walk = func(i int, s float64) {
		if i == len(d) {
			total++
			if math.Abs(s) >= math.Abs(obs)-1e-9 {
				count++
			}
			return
		}
		walk(i+1, s+d[i])
		walk(i+1, s-d[i])
	}
	walk(0, 0)
	return float64(count) / float64(total)
}

func TestSignFlipHandCases(t *testing.T) {
	tests := []struct {
		name   string
		deltas []float64
		p      float64
	}{
		// One loss of 1/1: patterns {+1, −1} both reach |1| → p = 1.
		{"single loss", []float64{-1}, 1},
		// Three equal losses: only all-minus and all-plus reach |3| → 2/8.
		{"three equal losses", []float64{-1, -1, -1}, 0.25},
		// Five equal losses → 2/32.
		{"five equal losses", []float64{-0.5, -0.5, -0.5, -0.5, -0.5}, 2.0 / 32},
		// −1, −1, +1: sums over 8 patterns are ±1 (six) and ±3 (two) → all ≥ 1.
		{"mixed", []float64{-1, -1, 1}, 1},
		// ties are dropped before flipping: same as five equal losses.
		{"ties ignored", []float64{0, -0.5, 0, -0.5, -0.5, -0.5, -0.5, 0}, 2.0 / 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Paired(tt.deltas)
			if !s.Exact || math.Abs(s.PValue-tt.p) > 1e-12 {
				t.Errorf("p = %v (exact %v), want %v", s.PValue, s.Exact, tt.p)
			}
		})
	}
}

func TestSignFlipMatchesEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		n := 1 + r.IntN(12)
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(r.IntN(7)-3) / 3
		}
		var nz []float64
		for _, x := range d {
			if x != 0 {
				nz = append(nz, x)
			}
		}
		want := 1.0
		if len(nz) > 0 {
			want = enumerate(nz)
		}
		if got := Paired(d); math.Abs(got.PValue-want) > 1e-12 {
			t.Errorf("%v: p %v, enumeration %v", d, got.PValue, want)
		}
	}
}

func TestMonteCarloBeyondLimit(t *testing.T) {
	d := make([]float64, 30)
	for i := range d {
		d[i] = -1.0 / 30
	}
	s := Paired(d)
	// Exact p would be 2/2^30; the Monte Carlo estimate is (0+1)/(10000+1) at best.
	if s.Exact || math.Abs(s.PValue-1.0/10001) > 1e-12 {
		t.Errorf("p %v exact %v", s.PValue, s.Exact)
	}
	if again := Paired(d); again != s {
		t.Error("not reproducible run to run")
	}
}

func TestCounts(t *testing.T) {
	s := Paired([]float64{0.5, -1, 0, 0, 1})
	if s.Wins != 2 || s.Losses != 1 || s.Ties != 2 || s.N != 5 || math.Abs(s.MeanDelta-0.1) > 1e-12 {
		t.Errorf("%+v", s)
	}
}

// TestBootstrapCoverage simulates paired deltas with a known mean and checks
// that the 95% interval covers it in roughly 95% of sets of 30 queries.
func TestBootstrapCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	const sets, n, mu = 300, 30, -0.05
	covered := 0
	for k := 0; k < sets; k++ {
		d := make([]float64, n)
		for i := range d {
			d[i] = mu + 0.2*r.NormFloat64()
		}
		lo, hi := bootstrapCI(d)
		if lo <= mu && mu <= hi {
			covered++
		}
	}
	rate := float64(covered) / sets
	// Percentile bootstrap on n = 30 under-covers slightly; accept 0.89–0.99.
	if rate < 0.89 || rate > 0.99 {
		t.Errorf("coverage %.3f, want about 0.95", rate)
	}
	lo1, hi1 := bootstrapCI([]float64{-1, 0, 0.5})
	lo2, hi2 := bootstrapCI([]float64{-1, 0, 0.5})
	if lo1 != lo2 || hi1 != hi2 {
		t.Error("bootstrap not reproducible")
	}
}
