package stats

import (
	"math"
	"math/rand/v2"
	"slices"
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

// MinSameDirectionFlips is the fewest queries that must all move the same
// way (none the other, the rest tied) before the sign-flip test of Paired
// calls the move significant (p < Alpha) on a set of n counted queries. It
// asks signFlip itself, so it follows the test actually used: with k equal
// non-zero deltas only the two all-same-sign patterns reach the observed
// sum, p = 2/2^k, and p < 0.05 first holds at k = 6. ok is false when no k
// ≤ n is enough (n ≤ 5): such a set can never call a drop significant.
func MinSameDirectionFlips(n int) (k int, ok bool) { return MinFlipsAt(n, Alpha) }

// MinFlipsAt is MinSameDirectionFlips at the level alpha.
func MinFlipsAt(n int, alpha float64) (k int, ok bool) {
	d := make([]float64, 0, n)
	for k := 1; k <= n; k++ {
		d = append(d, -1)
		if p, _ := signFlip(d); p < alpha {
			return k, true
		}
	}
	return 0, false
}

// MinDetectableDrop is the smallest mean drop that could be significant
// on a set of n counted queries, given steps: for each query that can
// drop at all, the smallest drop it can make (for recall@N, one relevant
// document leaving the top N: 1/relevant, on a query whose base found
// one). It is the sum of the k smallest steps over n, where k is
// MinSameDirectionFlips(n): k queries moving the same way, each by its
// smallest step, the rest unchanged. ok is false when no k is enough or
// fewer than k queries can drop.
func MinDetectableDrop(steps []float64, n int) (float64, bool) {
	return MinDropAt(steps, n, Alpha)
}

// MinDropAt is MinDetectableDrop at the level alpha.
func MinDropAt(steps []float64, n int, alpha float64) (float64, bool) {
	k, ok := MinFlipsAt(n, alpha)
	if !ok || len(steps) < k {
		return 0, false
	}
	s := slices.Clone(steps)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s[:k] {
		sum += x
	}
	return sum / float64(n), true
}

// Holm adjusts p-values for testing them together (Holm's step-down
// method): sorted ascending, the i-th smallest (from 0) becomes
// min(1, (m−i)·p), made non-decreasing in that order. The result is in
// the order given; a test is significant when its adjusted p < Alpha.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	adj := make([]float64, m)
	prev := 0.0
	for i, j := range order {
		v := math.Min(1, float64(m-i)*p[j])
		prev = math.Max(prev, v)
		adj[j] = prev
	}
	return adj
}
