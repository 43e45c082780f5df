// Package ghjob is the GitHub Actions job: the runner's inputs, event and
// variables (gate/ghaction) make a cijob.Job, the GitHub client
// (gate/ghclient) is its ports, and gate/cijob runs it. It is one of the
// rooms that join adapters; gate/cijob itself stays CI-neutral.
package ghjob

import (
	"context"
	"io"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghclient"
	"github.com/recallgate/recallgate/gate/pipeline"
)

// Run is the action's job (`recallgate action`, and `recallgate ci`
// under GitHub Actions): the runner's inputs, event and variables
// (gate/ghaction) make the Job; the GitHub client (gate/ghclient) keeps the
// sticky comment and the drift issue and downloads the base commit's
// archive. commands is the raw stream recallgate's own workflow commands
// go to. Bad inputs or an unreadable event are published as every error
// is (see cijob.Fail).
func Run(ctx context.Context, e *pipeline.Env, commands, stdout io.Writer) error {
	a := githubactions.New(githubactions.WithGetenv(e.Getenv), githubactions.WithWriter(ghaction.NewVisibleWriter(commands)))
	in, inErr := ghaction.ReadInputs(a, e.Getenv)
	if in.Token != "" {
		a.AddMask(in.Token)
	}
	rn := ghaction.ReadRunner(e.Getenv)
	ev, evErr := ghaction.ReadEvent(rn.EventPath)
	if ev == nil {
		ev = &ghaction.Event{}
	}
	j := cijob.Job{
		Config: in.Path(in.Config), ConfigInput: in.Config, Name: in.Name, Command: "action", Mode: ghaction.ResolveMode(in.Mode, rn.EventName), Comment: in.Comment,
		FailOnRegression: in.FailOnRegression, AllowIdentical: in.AllowIdentical, AcceptChangedInputs: in.AcceptChangedInputs,
		IdenticalFix: "the event has no base commit to run the base side in; give the action base-results and head-results, or write [base.retriever] and [head.retriever]; allow-identical: true runs it anyway",
		BaseResults:  in.Path(in.BaseResults), HeadResults: in.Path(in.HeadResults), Baseline: in.Path(in.Baseline), History: in.Path(in.History),
		Workspace: rn.Workspace, TempDir: rn.Temp, BaseSHA: ev.BaseSHA(), HeadSHA: ev.HeadSHA(rn.SHA), SHA: rn.SHA, PR: ev.PRNumber(),
		MissingProgram: ghaction.MissingProgramFix(rn),
	}
	if in.Token != "" {
		gh, err := ghclient.New(e.HTTPClient(), rn.APIURL, in.Token, rn.Repository)
		if err != nil {
			a.Warningf("GitHub API unavailable, no comment or issue will be written: %v", err)
		} else {
			j.Archive = gh
			j.Comments, j.Issues = gh.Ports()
		}
	}
	step := ghaction.Step{Action: a, Runner: rn, Fit: ghclient.Fit}
	if inErr != nil {
		evErr = cli.Usagef("%v", inErr)
	}
	if evErr != nil {
		a.Errorf("%v", evErr)
		return cijob.Fail(ctx, step, j, evErr, stdout)
	}
	return cijob.Run(ctx, e, step, j, stdout)
}
