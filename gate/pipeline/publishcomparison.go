package pipeline

import (
	"errors"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
)

// ErrRegression is a job's error when its verdict is fail (exit code 1):
// PublishComparison's, and gate/cijob's when the step fails on it.
var ErrRegression = errors.New("regression")

// PublishComparison returns err when the comparison could not be made;
// else it prints the comparison's warnings, writes its report in format f
// to out (by atomicfile's rules: "-" or "" is stdout) and the JSON one to
// jsonOut ("" none), and turns a failing verdict into ErrRegression.
func PublishComparison(e *Env, cmp *gate.Comparison, err error, f report.Format, out, jsonOut string) error {
	if err != nil {
		return err
	}
	for _, w := range cmp.Warnings {
		e.Warn("%s", w)
	}
	if err := report.WriteComparison(e.Streams(), report.FromComparison(cmp), f, out, jsonOut); err != nil {
		return err
	}
	if cmp.Verdict == gate.Fail {
		return ErrRegression
	}
	return nil
}
