package gate

import "github.com/recallgate/recallgate/gate/stats"

// The names below are gate/stats', kept here so callers of the root need
// not change: new code names gate/stats.

// Statistics settings: see gate/stats.
const (
	ExactFlipLimit     = stats.ExactFlipLimit
	MonteCarloFlips    = stats.MonteCarloFlips
	BootstrapResamples = stats.BootstrapResamples
	Alpha              = stats.Alpha
)

// PairedStats is stats.PairedStats.
type PairedStats = stats.PairedStats

// LatencyStats is stats.LatencyStats.
type LatencyStats = stats.LatencyStats

// Functions of gate/stats under their old names.
var (
	Paired                = stats.Paired
	MinSameDirectionFlips = stats.MinSameDirectionFlips
	MinDetectableDrop     = stats.MinDetectableDrop
	Holm                  = stats.Holm
	Latencies             = stats.Latencies
	LatenciesQueued       = stats.LatenciesQueued
)
