// Package stats holds the gate's statistics on plain numbers: the paired
// sign-flip test and bootstrap interval of per-query deltas, Holm's
// step-down correction, what a set of a given size can detect, and
// nearest-rank latency percentiles. It imports only the standard library.
package stats
