package cijob

import (
	"context"
	"flag"
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/report"
)

// LocalDrift is `recallgate drift`: the drift mode of the CI job for any
// scheduler (cron, Jenkins, Buildkite), without a CI's step or client:
// pipeline.CI's drift run of config against baseline (no workspace to
// confine to: the caller's own files). The run records the commit it
// tested: the checkout's HEAD when no tracked file has changes (else a
// note says none is). When history is given the night is added to that
// file whatever its outcome: a run that could not finish (exit 2 or 3) as
// an error entry, a gap in the trend (trouble with the file is a
// warning). The caller writes the reports and maps the verdict to the
// exit code, as for `gate`.
func LocalDrift(ctx context.Context, e *pipeline.Env, config, baseline, history string) (*gate.Comparison, error) {
	if baseline == "" {
		return nil, cli.Usagef("--baseline is required: a run written by a reviewed `recallgate gate --write-baseline FILE`")
	}
	cmp, _, err := pipeline.CI(ctx, e, pipeline.CIOptions{Config: config, Drift: true, Baseline: baseline})
	head, note := pipeline.CheckoutHead(ctx, config)
	if err == nil {
		cmp.HeadSHA = head
		if note != "" {
			cmp.Notes = append(cmp.Notes, note)
		}
	}
	if history != "" {
		var rep *report.CompareReport
		if err != nil {
			rep = report.FromError("drift", pipeline.ExitCode(err), err)
			rep.HeadSHA = head
		} else {
			rep = report.FromComparison(cmp)
		}
		addToHistory(envLog{e}, history, rep, e.Clock())
	}
	if err != nil {
		return nil, err
	}
	return cmp, nil
}

// envLog is the pipeline's Env as a publish.Log: warnings and notes on
// its stderr.
type envLog struct{ e *pipeline.Env }

func (l envLog) Warningf(format string, args ...any) { l.e.Warn(format, args...) }
func (l envLog) Infof(format string, args ...any)    { fmt.Fprintf(l.e.Stderr, format, args...) }

// Drift are the flags of `recallgate drift` besides --format and --out.
type Drift struct {
	// Config, Baseline and History are the files the run reads and adds
	// to; JSONOut is where the JSON report also goes ("" none).
	Config, Baseline, History, JSONOut string
}

// DriftFlags registers the flags of `recallgate drift` on fs.
func DriftFlags(fs *flag.FlagSet) *Drift {
	d := &Drift{}
	fs.StringVar(&d.Config, "config", "recallgate.toml", "recallgate.toml with the set, [depth], [gate] and the head retriever")
	fs.StringVar(&d.Baseline, "baseline", "", "the stored run to compare with, written by a reviewed gate --write-baseline (required)")
	fs.StringVar(&d.JSONOut, "json-out", "", "also write the JSON report to this file (for 'recallgate report' or 'recallgate history add' later)")
	fs.StringVar(&d.History, "history", "", "add the run to this history file (recallgate history render draws it)")
	fs.Bool("accept-changed-inputs", false, "no longer needed, does nothing: a drift run compares across changed inputs and names them")
	return d
}

// Run is the drift run of the flags (LocalDrift), with the report format
// read from format; positional arguments are refused.
func (d *Drift) Run(ctx context.Context, e *pipeline.Env, args []string, format string) (*gate.Comparison, report.Format, error) {
	f, err := report.ParseFormat(format)
	if err != nil {
		return nil, f, cli.Usagef("--format: %v", err)
	}
	if err := cli.NoArgs(args); err != nil {
		return nil, f, err
	}
	cmp, err := LocalDrift(ctx, e, d.Config, d.Baseline, d.History)
	return cmp, f, err
}
