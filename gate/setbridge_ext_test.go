package gate_test

import (
	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// init hands the root's tests the set file's reader (see setbridge_test.go).
func init() {
	gate.SetfileParse, gate.SetfileParseDraft = setfile.Parse, setfile.ParseDraft
	gate.SetfileLoad, gate.SetfileLoadDraft = setfile.Load, setfile.LoadDraft
}
