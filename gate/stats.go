package gate

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Statistics settings. The seed is fixed so every report is reproducible.
const (
	// ExactFlipLimit is the largest number of non-zero deltas for which the
	// sign-flip test enumerates all 2^n sign patterns.
	ExactFlipLimit = 20
	// MonteCarloFlips is the number of random sign patterns beyond that.
	MonteCarloFlips = 10000
	// BootstrapResamples is the number of paired bootstrap resamples.
	BootstrapResamples = 10000
	// Alpha is the significance level of the gate and the CI's 1 − coverage.
	Alpha     = 0.05
	statsSeed = 0x5eed2026
)

// PairedStats summarises per-query deltas (head − base) of one metric.
type PairedStats struct {
	// N is the number of paired queries; Wins, Losses and Ties count
	// deltas > 0, < 0 and = 0.
	N, Wins, Losses, Ties int
	// MeanDelta is the mean of the deltas.
	MeanDelta float64
	// PValue is the two-sided paired randomization (sign-flip) test of a
	// zero mean delta.
	PValue float64
	// Exact says the p-value enumerated every sign pattern; otherwise it
	// is (c+1)/(B+1) over MonteCarloFlips seeded random patterns.
	Exact bool
	// CILow and CIHigh bound the 95% paired bootstrap percentile interval
	// of the mean delta.
	CILow, CIHigh float64
}

// Significant reports whether the p-value is below Alpha.
func (s PairedStats) Significant() bool { return s.PValue < Alpha }

// Paired computes the statistics of deltas. Deltas within 1e-12 of zero are ties.
func Paired(deltas []float64) PairedStats {
	s := PairedStats{N: len(deltas), PValue: 1, Exact: true}
	if len(deltas) == 0 {
		return s
	}
	var nonzero []float64
	sum := 0.0
	for _, d := range deltas {
		sum += d
		switch {
		case d > 1e-12:
			s.Wins++
			nonzero = append(nonzero, d)
		case d < -1e-12:
			s.Losses++
			nonzero = append(nonzero, d)
		default:
			s.Ties++
		}
	}
	s.MeanDelta = sum / float64(len(deltas))
	s.PValue, s.Exact = signFlip(nonzero)
	s.CILow, s.CIHigh = bootstrapCI(deltas)
	return s
}

// signFlip is the two-sided sign-flip p-value of the sum of the non-zero
// deltas: the share of sign patterns whose |sum| is at least the observed.
func signFlip(d []float64) (float64, bool) {
	n := len(d)
	if n == 0 {
		return 1, true
	}
	obs := 0.0
	for _, x := range d {
		obs += x
	}
	obs = math.Abs(obs) - 1e-9 // ties with the observed sum count as extreme
	if n <= ExactFlipLimit {
		count := 0
		total := 1 << n
		for mask := 0; mask < total; mask++ {
			s := 0.0
			for i, x := range d {
				if mask&(1<<i) != 0 {
					s -= x
				} else {
					s += x
				}
			}
			if math.Abs(s) >= obs {
				count++
			}
		}
		return float64(count) / float64(total), true
	}
	r := rand.New(rand.NewPCG(statsSeed, uint64(n)))
	count := 0
	for b := 0; b < MonteCarloFlips; b++ {
		s := 0.0
		for _, x := range d {
			if r.IntN(2) == 0 {
				s -= x
			} else {
				s += x
			}
		}
		if math.Abs(s) >= obs {
			count++
		}
	}
	return float64(count+1) / float64(MonteCarloFlips+1), false
}

// bootstrapCI is the 95% percentile interval of the mean over paired
// bootstrap resamples of the queries.
func bootstrapCI(d []float64) (float64, float64) {
	n := len(d)
	r := rand.New(rand.NewPCG(statsSeed, uint64(n)+1))
	means := make([]float64, BootstrapResamples)
	for b := range means {
		s := 0.0
		for i := 0; i < n; i++ {
			s += d[r.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	sort.Float64s(means)
	lo := means[int(math.Floor(Alpha/2*float64(BootstrapResamples)))]
	hi := means[int(math.Ceil((1-Alpha/2)*float64(BootstrapResamples)))-1]
	return lo, hi
}
