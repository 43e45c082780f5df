package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghclient"
	"github.com/recallgate/recallgate/gate/report"
)

var commentCommand = command{
	name:    "comment",
	summary: "Post (or update) the sticky PR comment from a saved JSON report.",
	usage:   "recallgate comment --report report.json [--pr N] [--config NAME]",
	examples: `  # in a workflow_run workflow that may write to pull requests, after
  # downloading the report artifact the pull_request workflow uploaded:
  recallgate comment --report report.json

  # by hand, for one pull request:
  recallgate comment --report report.json --pr 42

In a workflow_run job (GITHUB_EVENT_NAME=workflow_run) the pull request is
found from the event and the API: the open PR whose head commit is the
run's head_sha. The report must record that same head commit, so an
artifact cannot aim the comment at another PR; --pr, when given, must name
that PR. Reads GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL and
GITHUB_EVENT_PATH from the environment.
`,
	setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		in := fs.String("report", "", "JSON report written by compare, gate or the action (required)")
		pr := fs.Int("pr", 0, "pull request number (found from the event in a workflow_run job)")
		name := fs.String("config", "recallgate.toml", "config name the sticky comment is keyed by (the action's config input)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *in == "" {
				return usagef("--report is required")
			}
			f, err := os.Open(*in)
			if err != nil {
				return fmt.Errorf("open report: %w", err)
			}
			defer f.Close()
			r, err := report.ReadCompareReport(f, *in)
			if err != nil {
				return err
			}
			var md bytes.Buffer
			if err := report.WriteCompareReport(&md, r, report.Markdown); err != nil {
				return err
			}
			gh, err := ghclient.New(e.httpClient(), e.getenv("GITHUB_API_URL"), e.getenv("GITHUB_TOKEN"), e.getenv("GITHUB_REPOSITORY"))
			if err != nil {
				return usagef("%v", err)
			}
			number, err := commentTarget(ctx, e, gh, r, *in, *pr)
			if err != nil {
				return err
			}
			marker := ghclient.Marker(*name)
			created, link, err := gh.UpsertComment(ctx, number, marker, md.String())
			var pe *ghclient.PermissionError
			if errors.As(err, &pe) {
				e.warn("%v", err)
				return nil
			}
			if err != nil {
				return err
			}
			verb := "updated"
			if created {
				verb = "posted"
			}
			fmt.Fprintf(e.stdout, "recallgate: %s %s\n", verb, link)
			return nil
		}
	},
}

// pullRequests is what commentTarget asks of the API.
type pullRequests interface {
	PullRequestHead(ctx context.Context, n int) (string, error)
	FindPullRequest(ctx context.Context, headOwner, branch, sha string) (int, error)
}

// commentTarget decides which pull request a report's comment goes to. In
// a workflow_run job the report must record the run's head commit, and the
// PR is the open one with that head (from the event, else the API); a --pr
// given there must be that PR. Elsewhere --pr is required.
func commentTarget(ctx context.Context, e *env, gh pullRequests, r *report.CompareReport, file string, pr int) (int, error) {
	if e.getenv("GITHUB_EVENT_NAME") != "workflow_run" {
		if pr <= 0 {
			return 0, usagef("--pr is required outside a workflow_run job")
		}
		return pr, nil
	}
	ev, err := ghaction.ReadEvent(e.getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return 0, err
	}
	run := ev.WorkflowRun
	if run == nil || !report.IsCommitSHA(run.HeadSHA) {
		return 0, &gate.InputError{File: e.getenv("GITHUB_EVENT_PATH"), Field: "workflow_run.head_sha", Err: errors.New("the workflow_run event names no head commit")}
	}
	switch {
	case r.HeadSHA == "":
		return 0, &gate.InputError{File: file, Field: "head_sha", Err: errors.New("the report records no head commit, so it cannot be tied to the run's pull request (make it with the recallgate action on a pull_request event)")}
	case r.HeadSHA != run.HeadSHA:
		return 0, &gate.InputError{File: file, Field: "head_sha", Err: fmt.Errorf("the report was made on commit %s but the workflow run tested %s: refused", r.HeadSHA, run.HeadSHA)}
	}
	if pr > 0 {
		head, err := gh.PullRequestHead(ctx, pr)
		if err != nil {
			return 0, err
		}
		if head != run.HeadSHA {
			return 0, &gate.InputError{File: file, Field: "--pr", Err: fmt.Errorf("pull request %d has head %s, not the run's %s: refused", pr, head, run.HeadSHA)}
		}
		return pr, nil
	}
	for _, p := range run.PullRequests {
		if p.Head.SHA == run.HeadSHA && p.Number > 0 {
			return p.Number, nil
		}
	}
	n, err := gh.FindPullRequest(ctx, run.HeadRepository.Owner.Login, run.HeadBranch, run.HeadSHA)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, &gate.InputError{File: e.getenv("GITHUB_EVENT_PATH"), Field: "workflow_run", Err: fmt.Errorf("no open pull request has head commit %s (%s:%s): nothing to comment on", run.HeadSHA, run.HeadRepository.Owner.Login, run.HeadBranch)}
	}
	return n, nil
}
