package report

// The number formats every report prints, for the reports built beside
// this package (an experiment's leaderboard), so a figure reads the same
// in each.

// Fixed3 is a metric with three decimals; a value that rounds to zero is
// 0.000, never -0.000.
func Fixed3(v float64) string { return f3(v) }

// SignedDelta is a delta with an explicit sign; an exact zero is ±0.000.
func SignedDelta(v float64) string { return signed(v) }

// Millis is a latency in milliseconds with the precision its size
// deserves: "0.042 ms", "3.4 ms", "1250 ms".
func Millis(v float64) string { return msText(v) }
