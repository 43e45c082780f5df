package stats

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
	// Build is the start-up: the time until the retriever was ready (a
	// builtin index build or load; a subprocess start until its first
	// answer; an HTTP preflight until it answered); 0 when none.
	Build time.Duration
	// QueueP50 and QueueP95 are over the time each call waited before its
	// request was sent (a free turn on a command retriever's single pipe,
	// the rate limit): kept out of the latencies above.
	QueueP50, QueueP95 time.Duration
}

// Latencies summarises per-call durations; nil when there are none.
func Latencies(calls []time.Duration, build time.Duration) *LatencyStats {
	return LatenciesQueued(calls, nil, build)
}

// LatenciesQueued summarises per-call durations (from the request sent to
// its answer) and, apart, the time each call waited to be sent; nil when
// there are no calls.
func LatenciesQueued(calls, waits []time.Duration, build time.Duration) *LatencyStats {
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
	if len(waits) > 0 {
		w := slices.Clone(waits)
		slices.Sort(w)
		s.QueueP50, s.QueueP95 = nearestRank(w, 0.50), nearestRank(w, 0.95)
	}
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
