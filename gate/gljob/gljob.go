// Package gljob is the GitLab CI job: the job's variables (gate/glci) and
// the CI-neutral inputs (cijob.Inputs) make a cijob.Job, the GitLab client (gate/glclient, with
// RECALLGATE_GITLAB_TOKEN) is its ports, report.ForGitLab its note's
// Markdown, and gate/cijob runs it. It is one of the rooms that join
// adapters; gate/cijob itself stays CI-neutral.
package gljob

import (
	"context"
	"io"

	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/glci"
	"github.com/recallgate/recallgate/gate/glclient"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/report"
)

// RunJob runs the job of a GitLab CI job: the runner's variables and
// the inputs (read by gate/cijob) make the Job; the GitLab client
// (gate/glclient, with RECALLGATE_GITLAB_TOKEN) keeps the merge request
// note and the drift issue and downloads the base commit's archive; the
// job log is log. A bad input (inErr) or a merge request pipeline that
// names no base commit is an input error (exit 2), published as every
// error is (see cijob.Fail).
func RunJob(ctx context.Context, e *pipeline.Env, rn glci.Runner, in cijob.Inputs, inErr error, log, stdout io.Writer) error {
	step := glci.Step{Runner: rn, Log: log}
	base, baseErr := rn.BaseSHA(in.BaseResults != "")
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

// CI is GitLab CI as `recallgate ci` detects it (cijob.CIs): its runner
// read from the job's variables, the inputs from ci's flags and the
// RECALLGATE_* variables, run by RunJob with the job log log.
func CI(e *pipeline.Env, log, stdout io.Writer) cijob.CI {
	return cijob.CI{
		Name:      "GitLab CI",
		Variables: "GITLAB_CI=true, with CI_API_V4_URL, CI_PROJECT_ID, CI_COMMIT_SHA, CI_PIPELINE_SOURCE, CI_MERGE_REQUEST_IID in a merge-request pipeline and a token in " + glci.TokenVariable,
		Detect:    glci.InJob,
		Run: func(ctx context.Context, in cijob.Inputs, inErr error) error {
			return RunJob(ctx, e, glci.ReadRunner(e.Getenv), in, inErr, log, stdout)
		},
	}
}
