package gate

import (
	"errors"

	"github.com/recallgate/recallgate/gate/input"
)

// InputError is input.InputError: a problem with a user-supplied file (exit 2).
type InputError = input.InputError

// InfraError is input.InfraError: a query that could not be retrieved (exit 3).
type InfraError = input.InfraError

// inputErr builds an *InputError from a format string (input.Errf).
var inputErr = input.Errf

// IsInput reports whether err is (or wraps) an *InputError.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// IsInfra reports whether err is (or wraps) an *InfraError or a
// *SpillError: the machine's or a service's trouble, not the input's.
func IsInfra(err error) bool {
	var ie *InfraError
	var se *SpillError
	return errors.As(err, &ie) || errors.As(err, &se)
}

// The stages a job can fail at, as an error report names them.
const (
	StageUsage     = "usage"       // the command line or the CI step's inputs
	StageConfig    = "config"      // the config file
	StageSet       = "set"         // the eval set
	StageBaseTree  = "base tree"   // the base commit's tree
	StageRetrieve  = "retrieve"    // a retriever: built, started or asked
	StageRunFile   = "run file"    // a run made elsewhere (base-results, head-results)
	StageBaseline  = "baseline"    // the drift run's stored baseline
	StageCompare   = "compare"     // scoring and the comparison
	StageReport    = "report"      // writing the reports
	StageInterrupt = "interrupted" // the job was cancelled or timed out
	StageInput     = "input"       // another input file
	StageInternal  = "internal"    // recallgate itself failed (a bug)
)

// StageError says at which stage of a job, and on which side (base, head,
// or "" for none), an error happened. Its message is the error's own: it
// only adds what an error report needs to know.
type StageError struct {
	Stage, Side string
	Err         error
}

// Error implements error: the wrapped error's message, unchanged.
func (e *StageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *StageError) Unwrap() error { return e.Err }

// AtStage tags err with the stage and side it happened at; nil stays nil,
// and an error already tagged keeps its (innermost, most precise) stage.
func AtStage(stage, side string, err error) error {
	if err == nil || errors.As(err, new(*StageError)) {
		return err
	}
	return &StageError{Stage: stage, Side: side, Err: err}
}

// FixError is an error that says how to fix it.
type FixError interface {
	error
	Fix() string
}

// WithFix attaches fix to err: a FixError whose message and chain are
// err's (nil stays nil).
func WithFix(err error, fix string) error {
	if err == nil {
		return nil
	}
	return &fixError{err, fix}
}

type fixError struct {
	err error
	fix string
}

func (e *fixError) Error() string { return e.err.Error() }
func (e *fixError) Unwrap() error { return e.err }
func (e *fixError) Fix() string   { return e.fix }
