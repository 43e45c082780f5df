// Package ghjob is the GitHub Actions job: the runner's inputs, event and
// variables (gate/ghaction) make a cijob.Job, the GitHub client
// (gate/ghclient) is its ports, and gate/cijob runs it. It is one of the
// rooms that join adapters; gate/cijob itself stays CI-neutral.
package ghjob

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghclient"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/publish"
	"github.com/recallgate/recallgate/gate/report"
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

// CI is GitHub Actions as `recallgate ci` detects it (cijob.CIs): it
// takes the action's inputs, not ci's flags; run runs the action's job
// (Run, its output fenced as the caller's command does).
func CI(run func(ctx context.Context) error) cijob.CI {
	return cijob.CI{
		Name:      "GitHub Actions",
		Variables: "GITHUB_ACTIONS=true, with GITHUB_REPOSITORY, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH and the action's inputs as INPUT_* variables",
		Detect:    ghaction.InJob,
		NoFlags:   "under GitHub Actions, recallgate ci takes the action's inputs (INPUT_* variables), not flags",
		Run:       func(ctx context.Context, _ cijob.Inputs, _ error) error { return run(ctx) },
	}
}

// CommentOptions say which report `recallgate comment` posts and how its
// sticky comment is keyed.
type CommentOptions struct {
	// Report is the JSON report's path.
	Report string
	// PR is the pull request (0: found from the event, as in a
	// workflow_run job).
	PR int
	// Config and Name key the sticky comment ("": the report's).
	Config, Name string
}

// Comment posts the report as the gate's sticky comment on its pull
// request, or edits the one there, and says which with the comment's
// link: the two-workflow pattern's privileged half and `recallgate comment`
// on a machine. The report is read strictly (a forged one is refused);
// the repository and the token come from GITHUB_REPOSITORY and
// GITHUB_TOKEN. A token that may not comment is a warning, not an error.
func Comment(ctx context.Context, e *pipeline.Env, o CommentOptions, stdout io.Writer) error {
	r, err := report.ReadCompareReportFile(o.Report)
	if err != nil {
		return err
	}
	if err := gate.CheckGateName(o.Name); o.Name != "" && err != nil {
		return cli.Usagef("--name: %v", err)
	}
	id := r.SetGate(o.Config, o.Name)
	md, err := report.Render(r, report.Markdown)
	if err != nil {
		return err
	}
	rn := ghaction.ReadRunner(e.Getenv)
	if err := rn.CommentEnv(e.Getenv("GITHUB_TOKEN")); err != nil {
		return cli.Usagef("%v", err)
	}
	gh, err := ghclient.New(e.HTTPClient(), rn.APIURL, e.Getenv("GITHUB_TOKEN"), rn.Repository)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	number, err := ghaction.CommentTarget(ctx, rn, gh, r.HeadSHA, o.Report, o.PR)
	if err != nil {
		return err
	}
	created, link, err := gh.UpsertComment(ctx, number, publish.Markers(id.Config, id.Name, o.Config), md)
	if pe := new(ghclient.PermissionError); errors.As(err, &pe) {
		e.Warn("%v", err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recallgate: %s %s\n", map[bool]string{true: "posted", false: "updated"}[created], link)
	return nil
}
