package runfile

import (
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestRunLineLimit: a run line one byte over its reader's limit is refused
// naming the file, the line and the limit (the run half of the root's
// TestLineLimits, moved with the reader).
func TestRunLineLimit(t *testing.T) {
	run := `{"id":"q1","hits":[{"doc":"a","text":"` + strings.Repeat("t", gate.MaxRunLineBytes) + `"}]}`
	err := ReadRun(strings.NewReader(run), "run.jsonl", func(gate.Result) error { return nil })
	if !gate.IsInput(err) || err.Error() != "run.jsonl: line 1 is longer than 16 MiB" {
		t.Errorf("a long run line: %v", err)
	}
}
