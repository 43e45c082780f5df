package pipeline

import (
	"context"
	"errors"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
)

// ExitCode is the documented exit code of a job's error, a regression
// aside (the caller's: 1): 0 for nil, 3 for a retriever's or the
// machine's trouble (gate.IsInfra, an unreachable or unsafe base tree, an
// interrupted job), 2 for the rest (usage, config, input).
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case gate.IsInfra(err), errors.As(err, new(*basetree.UnreachableError)), errors.As(err, new(*basetree.UnsafeArchiveError)),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded): // an interrupted job
		return 3
	}
	return 2
}
