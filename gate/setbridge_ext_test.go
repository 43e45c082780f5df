package gate_test

import (
	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/repeats"
	"github.com/recallgate/recallgate/gate/setfile"
)

// init hands the root's tests the set file's reader and gate/repeats'
// Compare (see setbridge_test.go).
func init() {
	gate.SetfileParse, gate.SetfileParseDraft = setfile.Parse, setfile.ParseDraft
	gate.SetfileLoad, gate.SetfileLoadDraft = setfile.Load, setfile.LoadDraft
	gate.CompareRepeats = func(cards []*gate.Scorecard) (*gate.Scorecard, map[string]bool, map[string]int) {
		s := repeats.Compare(cards)
		return s.Worst, s.Unstable, s.FewestFound
	}
}
