package report

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/recallgate/recallgate/gate"
)

// failure is what an error report says about a job that could not finish.
type failure struct {
	// Stage is one of gate's Stage constants; Side base, head or "none".
	Stage, Side string
	// Queries are the queries the error names, sorted ("" none).
	Queries []string
	// Message is the error; Fix what to do about it.
	Message, Fix string
}

// describe reads the stage, the side and the queries of a job's error
// from its chain (gate.StageError, gate.RetrievalError, gate.InfraError,
// gate.InputError, a cancelled context), and the fix from a gate.FixError
// in it or else the stage's usual one. infra says the error is exit 3's.
func describe(err error, infra bool) failure {
	f := failure{Side: "none", Message: err.Error()}
	var se *gate.StageError
	var re *gate.RetrievalError
	var ie *gate.InfraError
	var in *gate.InputError
	switch {
	case errors.As(err, &se):
		f.Stage = se.Stage
		if se.Side != "" {
			f.Side = se.Side
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		f.Stage = gate.StageInterrupt
	case errors.As(err, &re):
		f.Stage = gate.StageRetrieve
	case errors.As(err, &in):
		f.Stage = gate.StageInput
	case infra:
		f.Stage = gate.StageRetrieve
	default:
		f.Stage = gate.StageUsage
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
	var fe gate.FixError
	if errors.As(err, &fe) && fe.Fix() != "" {
		f.Fix = fe.Fix()
	} else {
		f.Fix = stageFix(f.Stage, f.Side, infra)
	}
	return f
}

// retrievalErrors are the gate.RetrievalErrors in err's tree (errors.Join's
// branches included), in order.
func retrievalErrors(err error) []*gate.RetrievalError {
	var out []*gate.RetrievalError
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case nil:
			return
		case *gate.RetrievalError:
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
	case gate.StageRetrieve:
		if infra {
			return fmt.Sprintf("check that %s is up and answers (its URL or command in the config, its logs); nothing was scored, so rerun once it answers", who)
		}
		return fmt.Sprintf("fix %s's table in the config at the key named above; `recallgate validate --config FILE` checks it", who)
	case gate.StageConfig:
		return "fix the config at the file, line and key named above; `recallgate validate --config FILE` checks it"
	case gate.StageSet:
		return "fix the eval set at the line named above; `recallgate validate --set SET` checks it"
	case gate.StageBaseTree:
		return "make the base commit reachable (actions/checkout with fetch-depth: 0, or a token that can download the repository's archive)"
	case gate.StageRunFile, gate.StageBaseline:
		return "give a run file of this eval set (written by `recallgate retrieve` or `gate --save-runs`/`--write-baseline`)"
	case gate.StageInterrupt:
		return "the job was cancelled or timed out before it finished: rerun it (raise the job's timeout, or the retriever's timeout in the config)"
	case gate.StageReport:
		return "make the report's folder writable, or give --out/--json-out another path"
	case gate.StageInternal:
		return "recallgate failed on a bug of its own, not on the input: rerun, and report it to recallgate's maintainers with this step's log"
	case gate.StageUsage:
		return "fix the command line or the step's inputs as the message says; `recallgate COMMAND --help` lists them"
	}
	if infra {
		return "a service or the machine failed, not the input: fix it as the message says and rerun"
	}
	return "fix the file, line and field named above and rerun"
}
