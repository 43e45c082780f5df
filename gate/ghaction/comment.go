package ghaction

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// PullRequests is what CommentTarget asks of the API.
type PullRequests interface {
	PullRequestHead(ctx context.Context, n int) (string, error)
	FindPullRequest(ctx context.Context, headOwner, branch, sha string) (int, error)
}

// CommentEnv checks, before GitHub is asked anything, what `recallgate
// comment` reads from the environment, and names the variables to set
// (it runs in a workflow step or on a laptop alike, where there is no
// action input): GITHUB_REPOSITORY as owner/name and GITHUB_TOKEN.
func (rn Runner) CommentEnv(token string) error {
	var need []string
	owner, name, ok := strings.Cut(rn.Repository, "/")
	switch {
	case rn.Repository == "":
		need = append(need, "GITHUB_REPOSITORY to the repository as owner/name (e.g. GITHUB_REPOSITORY=acme/rag)")
	case !ok || owner == "" || name == "" || strings.Contains(name, "/"):
		need = append(need, fmt.Sprintf("GITHUB_REPOSITORY to owner/name (it is %q)", gate.Visible(rn.Repository)))
	}
	if strings.TrimSpace(token) == "" {
		need = append(need, "GITHUB_TOKEN to a token that may write pull-request comments (in a workflow: env: GITHUB_TOKEN: ${{ github.token }}; on your machine: a personal access token, e.g. GITHUB_TOKEN=$(gh auth token))")
	}
	if len(need) == 0 {
		return nil
	}
	return fmt.Errorf("set %s (and GITHUB_API_URL for GitHub Enterprise Server)", strings.Join(need, ", and "))
}

// CommentTarget decides which pull request a report's comment goes to. In
// a workflow_run job (the runner's event) the report must record the run's
// head commit (reportHead), and the PR is the open one with that head (from
// the event, else the API); a pr given there must be that PR. Elsewhere pr
// is required. file names the report in errors.
func CommentTarget(ctx context.Context, rn Runner, gh PullRequests, reportHead, file string, pr int) (int, error) {
	if rn.EventName != "workflow_run" {
		if pr <= 0 {
			return 0, invalid("--pr is required outside a workflow_run job (in one, GITHUB_EVENT_NAME=workflow_run and the event at GITHUB_EVENT_PATH name the pull request)")
		}
		return pr, nil
	}
	if rn.EventPath == "" {
		return 0, invalid("GITHUB_EVENT_NAME is workflow_run but GITHUB_EVENT_PATH is not set: set it to the event's JSON file, or give --pr")
	}
	ev, err := ReadEvent(rn.EventPath)
	if err != nil {
		return 0, err
	}
	run := ev.WorkflowRun
	if run == nil || !commitSHA.MatchString(run.HeadSHA) {
		return 0, &gate.InputError{File: rn.EventPath, Field: "workflow_run.head_sha", Err: errors.New("the workflow_run event names no head commit")}
	}
	switch {
	case reportHead == "":
		return 0, &gate.InputError{File: file, Field: "head_sha", Err: errors.New("the report records no head commit, so it cannot be tied to the run's pull request (make it with the recallgate action on a pull_request event)")}
	case reportHead != run.HeadSHA:
		return 0, &gate.InputError{File: file, Field: "head_sha", Err: fmt.Errorf("the report was made on commit %s but the workflow run tested %s: refused", reportHead, run.HeadSHA)}
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
		return 0, &gate.InputError{File: rn.EventPath, Field: "workflow_run", Err: fmt.Errorf("no open pull request has head commit %s (%s:%s): nothing to comment on", run.HeadSHA, run.HeadRepository.Owner.Login, run.HeadBranch)}
	}
	return n, nil
}

// commitSHA is a commit as an event names it.
var commitSHA = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
