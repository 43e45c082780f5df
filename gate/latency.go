package gate

import (
	"math"
	"slices"
	"time"
)

// LatencyStats summarises how long one side's retriever calls took.
type LatencyStats struct {
	// Calls is how many calls were timed (queries × repeats).
	Calls int
	// P50, P95 and Max are over the calls (nearest-rank percentiles);
	// Total is their sum.
	P50, P95, Max, Total time.Duration
	// Build is the time spent before the first query (a builtin index
	// build or load, a subprocess start, an HTTP preflight); 0 when none.
	Build time.Duration
}

// Latencies summarises per-call durations; nil when there are none.
func Latencies(calls []time.Duration, build time.Duration) *LatencyStats {
	if len(calls) == 0 {
		return nil
	}
	d := slices.Clone(calls)
	slices.Sort(d)
	s := &LatencyStats{Calls: len(d), Max: d[len(d)-1], Build: build}
	for _, x := range d {
		s.Total += x
	}
	s.P50 = nearestRank(d, 0.50)
	s.P95 = nearestRank(d, 0.95)
	return s
}

// nearestRank is the p-th percentile of sorted durations by the
// nearest-rank method: the smallest value with at least p of the values at
// or below it.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(float64(len(sorted))*p)) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}
