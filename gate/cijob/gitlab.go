package cijob

import (
	"context"
	"io"

	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/glci"
	"github.com/recallgate/recallgate/gate/glclient"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/report"
)

// RunGitLab runs the job of a GitLab CI job: the runner's variables and
// the inputs (read by gate/glci) make the Job; the GitLab client
// (gate/glclient, with RECALLGATE_GITLAB_TOKEN) keeps the merge request
// note and the drift issue and downloads the base commit's archive; the
// job log is log. A merge request pipeline that names no base commit is an
// input error.
func RunGitLab(ctx context.Context, e *pipeline.Env, rn glci.Runner, in glci.Inputs, log, stdout io.Writer) error {
	step := glci.Step{Runner: rn, Log: log}
	base, err := rn.BaseSHA(in)
	if err != nil {
		step.Errorf("%v", err)
		return err
	}
	j := Job{
		Config: in.Path(in.Config), ConfigInput: in.Config, Name: in.Name, Mode: rn.Mode(in.Mode), Comment: in.Comment,
		FailOnRegression: in.FailOnRegression, AllowIdentical: in.AllowIdentical, IdenticalFix: glci.IdenticalFix,
		BaseResults: in.Path(in.BaseResults), HeadResults: in.Path(in.HeadResults), Baseline: in.Path(in.Baseline),
		Workspace: rn.ProjectDir, BaseSHA: base, HeadSHA: rn.SHA, SHA: rn.SHA, PR: rn.MR,
		UnreachableFix: glci.ShallowFix, JUnit: in.Path(in.JUnit), NoteMarkdown: report.ForGitLab,
	}
	publishes := in.Comment != "never" && rn.MR > 0 || j.Mode == "drift"
	switch gl, err := glclient.New(e.HTTPClient(), rn.APIURL, rn.Token, rn.ProjectID); {
	case err == nil:
		gl.WebURL, gl.Warn = rn.ProjectURL, func(s string) { step.Warningf("%s", s) }
		j.Archive, j.Comments, j.Issues = gl, gl, gl
	case rn.Token == "" && publishes:
		step.Warningf("%s", rn.TokenWarning())
	case rn.Token != "":
		step.Warningf("GitLab API unavailable, no note or issue will be written: %v", err)
	}
	return Run(ctx, e, step, j, stdout)
}

// GitLabInputs reads the inputs of a GitLab job (flags first, then the
// RECALLGATE_* variables); a bad one is a usage error (exit 2).
func GitLabInputs(read func(func(string) string) (glci.Inputs, error), rn glci.Runner, getenv func(string) string, log io.Writer) (glci.Inputs, error) {
	in, err := read(getenv)
	if err != nil {
		glci.Step{Runner: rn, Log: log}.Errorf("%v", err)
		return in, cli.Usagef("%v", err)
	}
	return in, nil
}
