// Package gljob is the GitLab CI job: the job's variables and inputs
// (gate/glci) make a cijob.Job, the GitLab client (gate/glclient, with
// RECALLGATE_GITLAB_TOKEN) is its ports, report.ForGitLab its note's
// Markdown, and gate/cijob runs it. It is one of the rooms that join
// adapters; gate/cijob itself stays CI-neutral.
package gljob

import (
	"context"
	"io"

	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/glci"
	"github.com/recallgate/recallgate/gate/glclient"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/report"
)

// RunJob runs the job of a GitLab CI job: the runner's variables and
// the inputs (read by gate/glci) make the Job; the GitLab client
// (gate/glclient, with RECALLGATE_GITLAB_TOKEN) keeps the merge request
// note and the drift issue and downloads the base commit's archive; the
// job log is log. A bad input (inErr) or a merge request pipeline that
// names no base commit is an input error (exit 2), published as every
// error is (see cijob.Fail).
func RunJob(ctx context.Context, e *pipeline.Env, rn glci.Runner, in glci.Inputs, inErr error, log, stdout io.Writer) error {
	step := glci.Step{Runner: rn, Log: log}
	base, baseErr := rn.BaseSHA(in)
	if inErr != nil {
		baseErr = inErr
	}
	j := cijob.Job{
		Config: in.Path(in.Config), ConfigInput: in.Config, Name: in.Name, Command: "ci", Mode: rn.Mode(in.Mode), Comment: in.Comment,
		FailOnRegression: in.FailOnRegression, AllowIdentical: in.AllowIdentical, IdenticalFix: glci.IdenticalFix, AcceptChangedInputs: in.AcceptChangedInputs,
		BaseResults: in.Path(in.BaseResults), HeadResults: in.Path(in.HeadResults), Baseline: in.Path(in.Baseline), History: in.Path(in.History),
		Workspace: rn.ProjectDir, BaseSHA: base, HeadSHA: rn.SHA, SHA: rn.SHA, PR: rn.MR,
		UnreachableFix: glci.ShallowFix, Change: "merge request", OneMarker: true, JUnit: rn.InProject(in.JUnit), NoteMarkdown: report.ForGitLab,
	}
	publishes := in.Comment != "never" && rn.MR > 0 || j.Mode == "drift"
	project, web := rn.APIProject()
	switch gl, err := glclient.New(e.HTTPClient(), rn.APIURL, rn.Token, project); {
	case err == nil:
		gl.WebURL, gl.Warn = web, func(s string) { step.Warningf("%s", s) }
		j.Archive, j.Comments, j.Issues = gl, gl, gl
	case rn.Token == "" && publishes:
		step.Warningf("%s", rn.TokenWarning())
	case rn.Token != "":
		step.Warningf("GitLab API unavailable, no note or issue will be written: %v", err)
	}
	if baseErr != nil {
		step.Errorf("%v", baseErr)
		return cijob.Fail(ctx, step, j, baseErr, stdout)
	}
	return cijob.Run(ctx, e, step, j, stdout)
}

// Run is `recallgate ci` under GitLab CI: it reads the runner (which
// must be GitLab's: GITLAB_CI=true) and the inputs (flags first, then the
// RECALLGATE_* variables; a bad one is a usage error, exit 2) and runs
// RunJob.
func Run(ctx context.Context, e *pipeline.Env, inputs func(func(string) string) (glci.Inputs, error), log, stdout io.Writer) error {
	rn := glci.ReadRunner(e.Getenv)
	if !rn.CI {
		return cli.Usagef("recallgate ci runs inside a CI job and neither is set here: GitHub Actions (GITHUB_ACTIONS=true, with GITHUB_REPOSITORY, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH and the action's inputs as INPUT_* variables) or GitLab CI (GITLAB_CI=true, with CI_API_V4_URL, CI_PROJECT_ID, CI_COMMIT_SHA, CI_PIPELINE_SOURCE, CI_MERGE_REQUEST_IID in a merge-request pipeline and a token in %s); on your machine run recallgate gate, then recallgate comment with GITHUB_REPOSITORY and GITHUB_TOKEN set", glci.TokenVariable)
	}
	in, err := inputs(e.Getenv)
	if err != nil {
		err = cli.Usagef("%v", err)
	}
	return RunJob(ctx, e, rn, in, err, log, stdout)
}
