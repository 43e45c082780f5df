package pipeline

import (
	"context"
	"errors"
	"io"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/report"
)

// ExitCode is the documented exit code of a job's error, a regression
// aside (the caller's: 1): 0 for nil, 3 for a retriever's or the
// machine's trouble (gate.IsInfra, an unreachable, unsafe or incomplete base tree, an
// interrupted job), 2 for the rest (usage, config, input).
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case gate.IsInfra(err), errors.As(err, new(*basetree.UnreachableError)), errors.As(err, new(*basetree.UnsafeArchiveError)),
		errors.As(err, new(*basetree.ListingError)), errors.As(err, new(*basetree.IncompleteTreeError)), // the base commit's files not all known
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded): // an interrupted job
		return 3
	}
	return 2
}

// WriteErrorReports writes the error report of command name, which ended
// in exit code (2 or 3) with err, in place of each report file asked for
// (out in format, jsonOut in JSON; "" for none), atomically: a previous
// run's pass never stays. A file it cannot write is warned about.
func WriteErrorReports(e *Env, name string, code int, err error, format, out, jsonOut string) {
	f, ferr := report.ParseFormat(format)
	if ferr != nil {
		f = report.Text
	}
	rep := report.FromError(name, code, err)
	for _, file := range []struct {
		path string
		f    report.Format
	}{{jsonOut, report.JSON}, {out, f}} {
		if file.path == "" {
			continue
		}
		if werr := report.WriteTo(e.Streams(), file.path, func(w io.Writer) error { return report.WriteCompareReport(w, rep, file.f) }); werr != nil {
			e.Warn("the error report %s is not written: %v", file.path, werr)
		}
	}
}
