package main

import (
	"context"
	"flag"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghclient"
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

// runAction reads the GitHub runner (inputs, event, variables) into a
// cijob.Job and runs it with the GitHub step and client.
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
	j := cijob.Job{
		Config: in.Path(in.Config), ConfigInput: in.Config, Name: in.Name, Mode: ghaction.ResolveMode(in.Mode, rn.EventName), Comment: in.Comment,
		FailOnRegression: in.FailOnRegression, AllowIdentical: in.AllowIdentical,
		IdenticalFix: "the event has no base commit to run the base side in; give the action base-results and head-results, or write [base.retriever] and [head.retriever]; allow-identical: true runs it anyway",
		BaseResults:  in.Path(in.BaseResults), HeadResults: in.Path(in.HeadResults), Baseline: in.Path(in.Baseline),
		Workspace: rn.Workspace, TempDir: rn.Temp, BaseSHA: ev.BaseSHA(), HeadSHA: ev.HeadSHA(rn.SHA), SHA: rn.SHA, PR: ev.PRNumber(),
		MissingProgram: ghaction.MissingProgramFix(rn),
	}
	if in.Token != "" {
		gh, err := ghclient.New(e.job().HTTPClient(), rn.APIURL, in.Token, rn.Repository)
		if err != nil {
			a.Warningf("GitHub API unavailable, no comment or issue will be written: %v", err)
		} else {
			j.Archive = gh
			j.Comments, j.Issues = gh.Ports()
		}
	}
	return cijob.Run(ctx, e.job(), ghaction.Step{Action: a, Runner: rn, Fit: ghclient.Fit}, j, e.stdout)
}
