package gate

import (
	"context"
	"errors"
	"fmt"
	"sort"

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

// Failure is what an error report says about a job that could not finish.
type Failure struct {
	// Stage is one of the Stage constants; Side base, head or "none".
	Stage, Side string
	// Queries are the queries the error names, sorted ("" none).
	Queries []string
	// Message is the error; Fix what to do about it.
	Message, Fix string
}

// Describe reads the stage, the side and the queries of a job's error from
// its chain (StageError, RetrievalError, InfraError, InputError, a
// cancelled context), and the fix from a FixError in it or else the
// stage's usual one. infra says the error is exit 3's.
func Describe(err error, infra bool) Failure {
	f := Failure{Side: "none", Message: err.Error()}
	var se *StageError
	var re *RetrievalError
	var ie *InfraError
	var in *InputError
	switch {
	case errors.As(err, &se):
		f.Stage = se.Stage
		if se.Side != "" {
			f.Side = se.Side
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		f.Stage = StageInterrupt
	case errors.As(err, &re):
		f.Stage = StageRetrieve
	case errors.As(err, &in):
		f.Stage = StageInput
	case infra:
		f.Stage = StageRetrieve
	default:
		f.Stage = StageUsage
	}
	if res := retrievalErrors(err); len(res) > 0 {
		// Both sides may have failed (errors.Join): every side's queries,
		// and a side only when one side alone failed.
		sides, seen := map[string]bool{}, map[string]bool{}
		for _, re := range res {
			sides[re.Side] = true
			for id := range re.Failures {
				if !seen[id] {
					seen[id] = true
					f.Queries = append(f.Queries, id)
				}
			}
		}
		if f.Side == "none" && len(sides) == 1 && res[0].Side != "" {
			f.Side = res[0].Side
		}
		sort.Strings(f.Queries)
	} else if errors.As(err, &ie) && ie.QueryID != "" {
		f.Queries = []string{ie.QueryID}
	}
	var fe FixError
	if errors.As(err, &fe) && fe.Fix() != "" {
		f.Fix = fe.Fix()
	} else {
		f.Fix = stageFix(f.Stage, f.Side, infra)
	}
	return f
}

// retrievalErrors are the RetrievalErrors in err's tree (errors.Join's
// branches included), in order.
func retrievalErrors(err error) []*RetrievalError {
	var out []*RetrievalError
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case nil:
			return
		case *RetrievalError:
			out = append(out, x)
			return
		case interface{ Unwrap() []error }:
			for _, b := range x.Unwrap() {
				walk(b)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}

// stageFix is a stage's usual fix.
func stageFix(stage, side string, infra bool) string {
	who := "the retriever"
	if side == "base" || side == "head" {
		who = "the " + side + " side's retriever"
	}
	switch stage {
	case StageRetrieve:
		if infra {
			return fmt.Sprintf("check that %s is up and answers (its URL or command in the config, its logs); nothing was scored, so rerun once it answers", who)
		}
		return fmt.Sprintf("fix %s's table in the config at the key named above; `recallgate validate --config FILE` checks it", who)
	case StageConfig:
		return "fix the config at the file, line and key named above; `recallgate validate --config FILE` checks it"
	case StageSet:
		return "fix the eval set at the line named above; `recallgate validate --set SET` checks it"
	case StageBaseTree:
		return "make the base commit reachable (actions/checkout with fetch-depth: 0, or a token that can download the repository's archive)"
	case StageRunFile, StageBaseline:
		return "give a run file of this eval set (written by `recallgate retrieve` or `gate --save-runs`/`--write-baseline`)"
	case StageInterrupt:
		return "the job was cancelled or timed out before it finished: rerun it (raise the job's timeout, or the retriever's timeout in the config)"
	case StageReport:
		return "make the report's folder writable, or give --out/--json-out another path"
	case StageInternal:
		return "recallgate failed on a bug of its own, not on the input: rerun, and report it to recallgate's maintainers with this step's log"
	case StageUsage:
		return "fix the command line or the step's inputs as the message says; `recallgate COMMAND --help` lists them"
	}
	if infra {
		return "a service or the machine failed, not the input: fix it as the message says and rerun"
	}
	return "fix the file, line and field named above and rerun"
}
