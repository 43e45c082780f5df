package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghclient"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/publish"
	"github.com/recallgate/recallgate/gate/report"
)

var actionCommand = command{
	Name:     "action",
	Summary:  "GitHub Actions entrypoint: reads INPUT_* and the event, gates, comments, writes outputs.",
	Usage:    "recallgate action   (configured through the action's inputs, see action.yml)",
	Examples: examples("action"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return runAction(ctx, e)
		}
	},
}

func runAction(ctx context.Context, e *env) error {
	a := githubactions.New(githubactions.WithGetenv(e.getenv), githubactions.WithWriter(ghaction.NewVisibleWriter(e.commands)))
	e.fence = ghaction.NewFence(e.rawStderr)
	in, err := ghaction.ReadInputs(a, e.getenv)
	if err != nil {
		a.Errorf("%v", err)
		return usagef("%v", err)
	}
	if in.Token != "" {
		a.AddMask(in.Token)
	}
	rn := ghaction.ReadRunner(e.getenv)
	ev, err := ghaction.ReadEvent(rn.EventPath)
	if err != nil {
		a.Errorf("%v", err)
		return err
	}
	mode := ghaction.ResolveMode(in.Mode, rn.EventName)
	var gh *ghclient.Client
	if in.Token != "" {
		gh, err = ghclient.New(e.job().HTTPClient(), rn.APIURL, in.Token, rn.Repository)
		if err != nil {
			a.Warningf("GitHub API unavailable, no comment or issue will be written: %v", err)
			gh = nil
		}
	}
	cmp, set, err := actionCompare(ctx, e, rn, in, in.Path(in.Config), mode, ev, gh)
	if err != nil {
		a.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", " · "))
		return err
	}
	return publishAction(ctx, e, a, rn, in, mode, ev, gh, cmp, set)
}

// publishAction writes the report, outputs, summary, annotations, comment or drift issue, and the step's outcome.
func publishAction(ctx context.Context, e *env, a *githubactions.Action, rn ghaction.Runner, in ghaction.Inputs, mode string, ev *ghaction.Event, gh *ghclient.Client, cmp *gate.Comparison, set *gate.Set) error {
	rep := report.FromComparison(cmp)
	id := rep.SetGate(rn.Relative(in.Path(in.Config)), in.Name)
	md, err := report.Render(rep, report.Markdown)
	if err != nil {
		return err
	}
	reportPath, reportOut, err := ghaction.ReportLocation(rn, id.Label())
	if err != nil {
		return err
	}
	if err := report.WriteComparison(nil, rep, report.JSON, reportPath, ""); err != nil {
		return err
	}
	res := rep.PublishResult(md, reportOut, rn.Relative(set.Path))
	ghaction.Publish(a, rn, res, ghclient.Fit)
	fmt.Fprintf(e.stdout, "recallgate: %s — %d regressed, %d improved; report %s\n", rep.Verdict, len(rep.Regressed), len(rep.Improved), reportPath)
	o := publish.Options{Mode: mode, PR: ev.PRNumber(), When: in.Comment, Markers: publish.Markers(id.Config, id.Name, in.Config), SHA: rn.SHA, FailOnRegression: in.FailOnRegression, Reasons: rep.Reasons}
	c, is := gh.Ports()
	if publish.Outcome(ctx, a, o, c, is, res) {
		return errRegression
	}
	return nil
}

// actionCompare runs the CI job the mode and inputs ask for.
func actionCompare(ctx context.Context, e *env, rn ghaction.Runner, in ghaction.Inputs, cfgPath, mode string, ev *ghaction.Event, gh *ghclient.Client) (*gate.Comparison, *gate.Set, error) {
	o := pipeline.CIOptions{
		Config: cfgPath, Workspace: rn.Workspace, TempDir: rn.Temp, Drift: mode == "drift",
		BaseResults: in.Path(in.BaseResults), HeadResults: in.Path(in.HeadResults), Baseline: in.Path(in.Baseline),
		BaseSHA: ev.BaseSHA(), HeadSHA: ev.HeadSHA(rn.SHA), AllowIdentical: in.AllowIdentical, MissingProgram: ghaction.MissingProgramFix(rn),
		IdenticalFix: "the event has no base commit to run the base side in; give the action base-results and head-results, or write [base.retriever] and [head.retriever]; allow-identical: true runs it anyway",
	}
	if gh != nil {
		o.Archive = gh
	}
	cmp, set, err := pipeline.CI(ctx, e.job(), o)
	if errors.Is(err, pipeline.ErrNoBaseline) {
		return nil, nil, usagef("mode drift needs the baseline input: a run written by `recallgate gate --write-baseline`")
	}
	return cmp, set, err
}
