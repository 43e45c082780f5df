// Package glci is recallgate's side of a GitLab CI job: the job's
// predefined variables (read once, by ReadRunner), which commits a
// pipeline compares, and the job's log and report files (Step). The gate's
// inputs (RECALLGATE_* variables, or the ci command's flags) are
// CI-neutral, gate/cijob's. It does no network: the GitLab API is
// gate/glclient's.
package glci

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/publish"
	"github.com/recallgate/recallgate/internal/confine"
)

// TokenVariable is the CI/CD variable holding the API token recallgate
// writes notes and issues with (CI_JOB_TOKEN cannot).
const TokenVariable = "RECALLGATE_GITLAB_TOKEN"

// Pipeline sources (CI_PIPELINE_SOURCE) recallgate treats apart.
const (
	SourceMergeRequest = "merge_request_event"
	SourceSchedule     = "schedule"
)

// Runner is the job's predefined variables, read once.
type Runner struct {
	// CI says the job runs under GitLab CI (GITLAB_CI=true).
	CI bool
	// APIURL is CI_API_V4_URL; ProjectID CI_PROJECT_ID; ProjectURL
	// CI_PROJECT_URL (links to notes).
	APIURL, ProjectID, ProjectURL string
	// MRProjectID and MRProjectURL are CI_MERGE_REQUEST_PROJECT_ID and
	// _URL: the project the merge request is in, which is not the
	// pipeline's when a fork's pipeline runs in the fork.
	MRProjectID, MRProjectURL string
	// Source is CI_PIPELINE_SOURCE: merge_request_event, schedule, push, web, …
	Source string
	// MR is CI_MERGE_REQUEST_IID (0: none); MRText its raw value.
	MR     int
	MRText string
	// EventType is CI_MERGE_REQUEST_EVENT_TYPE: detached, merged_result or
	// merge_train.
	EventType string
	// DiffBaseSHA is CI_MERGE_REQUEST_DIFF_BASE_SHA, the merge request's
	// base commit; TargetSHA CI_MERGE_REQUEST_TARGET_BRANCH_SHA, set only
	// in merged results pipelines and merge trains: the commit the change
	// was merged into.
	DiffBaseSHA, TargetSHA string
	// SHA is CI_COMMIT_SHA, the commit the job checked out.
	SHA string
	// ProjectDir is CI_PROJECT_DIR, the checkout; Job CI_JOB_NAME.
	ProjectDir, Job string
	// Token is RECALLGATE_GITLAB_TOKEN; JobToken says CI_JOB_TOKEN is set.
	Token    string
	JobToken bool
}

// InJob reports whether the process runs in a GitLab CI job (GITLAB_CI=true).
func InJob(getenv func(string) string) bool { return getenv("GITLAB_CI") == "true" }

// ReadRunner reads the job's variables through getenv.
func ReadRunner(getenv func(string) string) Runner {
	rn := Runner{
		CI: InJob(getenv), APIURL: getenv("CI_API_V4_URL"), ProjectID: getenv("CI_PROJECT_ID"), ProjectURL: getenv("CI_PROJECT_URL"),
		MRProjectID: getenv("CI_MERGE_REQUEST_PROJECT_ID"), MRProjectURL: getenv("CI_MERGE_REQUEST_PROJECT_URL"),
		Source: getenv("CI_PIPELINE_SOURCE"), MRText: strings.TrimSpace(getenv("CI_MERGE_REQUEST_IID")), EventType: getenv("CI_MERGE_REQUEST_EVENT_TYPE"),
		DiffBaseSHA: strings.TrimSpace(getenv("CI_MERGE_REQUEST_DIFF_BASE_SHA")), TargetSHA: strings.TrimSpace(getenv("CI_MERGE_REQUEST_TARGET_BRANCH_SHA")),
		SHA: getenv("CI_COMMIT_SHA"), ProjectDir: getenv("CI_PROJECT_DIR"), Job: getenv("CI_JOB_NAME"),
		Token: strings.TrimSpace(getenv(TokenVariable)), JobToken: getenv("CI_JOB_TOKEN") != "",
	}
	if n, err := strconv.Atoi(rn.MRText); err == nil && n > 0 {
		rn.MR = n
	}
	return rn
}

// Mode turns "auto" into pr or drift by the pipeline's source: a schedule
// pipeline checks drift, every other pipeline gates.
func (rn Runner) Mode(mode string) string {
	if mode != "auto" {
		return mode
	}
	if rn.Source == SourceSchedule {
		return "drift"
	}
	return "pr"
}

// APIProject is the project the API calls go to, and its page: the merge
// request's project in a merge request pipeline (its notes, its base
// commit), else the pipeline's (the drift issue).
func (rn Runner) APIProject() (id, url string) {
	if rn.MergeRequest() && rn.MRProjectID != "" {
		return rn.MRProjectID, rn.MRProjectURL
	}
	return rn.ProjectID, rn.ProjectURL
}

// MergeRequest reports whether the pipeline is a merge request's
// (detached, merged results or merge train).
func (rn Runner) MergeRequest() bool { return rn.Source == SourceMergeRequest }

// BaseSHA is the commit a merge request pipeline gates against: in a
// merged results pipeline or a merge train, CI_MERGE_REQUEST_TARGET_BRANCH_SHA
// (the target branch's commit, or the train's previous car, that the change
// was merged into: CI_COMMIT_SHA is that merge), else the merge request's
// diff base. GitLab sets the target SHA only in those pipelines, and
// CI_MERGE_REQUEST_EVENT_TYPE has said "detached" in some of them
// (gitlab-org/gitlab#358228), so the SHA decides, not the event type. A
// merge request pipeline without the variables is an input error (exit 2)
// unless run files are given (runFiles); "" for other pipelines.
func (rn Runner) BaseSHA(runFiles bool) (string, error) {
	if !rn.MergeRequest() {
		return "", nil
	}
	if rn.MR == 0 {
		return "", &gate.InputError{File: "CI_MERGE_REQUEST_IID", Err: fmt.Errorf("a %s pipeline needs the merge request's IID, got %q", SourceMergeRequest, rn.MRText)}
	}
	if rn.TargetSHA != "" {
		return rn.TargetSHA, nil
	}
	if rn.DiffBaseSHA == "" && !runFiles {
		return "", &gate.InputError{File: "CI_MERGE_REQUEST_DIFF_BASE_SHA", Err: errors.New("not set in a merge_request_event pipeline: recallgate cannot tell the merge request's base commit. " +
			"Run the job in merge request pipelines (rules: - if: $CI_PIPELINE_SOURCE == \"merge_request_event\") on GitLab 13.8 or later, or give RECALLGATE_BASE_RESULTS and RECALLGATE_HEAD_RESULTS")}
	}
	return rn.DiffBaseSHA, nil
}

// ShallowFix is the advice when the clone lacks the base commit and no
// archive could be had: GitLab clones shallow (GIT_DEPTH 20 or 50).
const ShallowFix = "GitLab clones shallow by default: set `variables: { GIT_DEPTH: 0 }` on the job (or `git fetch origin $CI_MERGE_REQUEST_DIFF_BASE_SHA` before recallgate), or give RECALLGATE_GITLAB_TOKEN so recallgate downloads the base commit's archive"

// IdenticalFix is the advice for a gate with one retriever in a pipeline
// that has no base commit (push, web, schedule without a baseline).
const IdenticalFix = "this pipeline has no base commit to run the base side in (only merge request pipelines do); give RECALLGATE_BASE_RESULTS and RECALLGATE_HEAD_RESULTS, or write [base.retriever] and [head.retriever]; RECALLGATE_ALLOW_IDENTICAL=true runs it anyway"

// TokenWarning says why no note or issue will be written, or "" when a
// token is there.
func (rn Runner) TokenWarning() string {
	switch {
	case rn.Token != "":
		return ""
	case rn.JobToken:
		return "RECALLGATE_GITLAB_TOKEN is not set: CI_JOB_TOKEN cannot write merge request notes or issues, so none is written (the verdict and exit code stand). Add a project access token with the api scope and the Reporter role as a masked CI/CD variable named RECALLGATE_GITLAB_TOKEN"
	}
	return "RECALLGATE_GITLAB_TOKEN is not set: no merge request note or issue is written (the verdict and exit code stand)"
}

// InProject resolves a relative path against the project directory, as
// GitLab resolves artifacts' paths (the JUnit report's), whatever the
// working directory.
func (rn Runner) InProject(p string) string {
	if p == "" || filepath.IsAbs(p) || rn.ProjectDir == "" {
		return p
	}
	return filepath.Join(rn.ProjectDir, p)
}

// Relative makes p relative to the project directory (unchanged when it
// is not inside).
func (rn Runner) Relative(p string) string {
	if rn.ProjectDir == "" {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rel, ok := confine.Rel(rn.ProjectDir, abs)
	if !ok {
		return p
	}
	return filepath.ToSlash(rel)
}

// Step is the GitLab job as cijob runs it: warnings and notes go to the
// job log (GitLab has no annotations or step outputs), the JSON report to
// .recallgate/ in the project directory, where artifacts:paths find it.
type Step struct {
	Runner Runner
	// Log is the job log (stderr, through an inert writer).
	Log io.Writer
}

// Words implements publish.Worded: GitLab's words for the rules' log lines.
func (s Step) Words() publish.Words {
	return publish.Words{Comment: "merge request note", Summary: "the job log",
		NoClient: "no RECALLGATE_GITLAB_TOKEN, or the GitLab API is unavailable: see the warning above"}
}

// Warningf implements publish.Log: a yellow "warning:" line.
func (s Step) Warningf(format string, args ...any) {
	fmt.Fprintf(s.Log, "\x1b[33mrecallgate: warning:\x1b[0m %s\n", oneLine(fmt.Sprintf(format, args...)))
}

// Infof implements publish.Log; what GitLab answered (a link) shows its
// control characters.
func (s Step) Infof(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(s.Log, oneLine(strings.TrimSuffix(msg, "\n")))
}

// Errorf logs the error the job ends with: a red "error:" line.
func (s Step) Errorf(format string, args ...any) {
	fmt.Fprintf(s.Log, "\x1b[31mrecallgate: error:\x1b[0m %s\n", oneLine(fmt.Sprintf(format, args...)))
}

// oneLine keeps a message on one log line, its control characters shown.
func oneLine(s string) string {
	return gate.Visible(strings.NewReplacer("\r\n", " · ", "\n", " · ", "\r", " · ").Replace(s))
}

// ReportLocation is .recallgate/recallgate-report[-job][-gate].json in the
// project directory (the output is that path relative to it), or the
// system's temporary folder outside a job.
func (s Step) ReportLocation(gateLabel string) (write, output string, err error) {
	name := publish.ReportName(s.Runner.Job, gateLabel)
	if d := s.Runner.ProjectDir; d != "" {
		dir := filepath.Join(d, ".recallgate")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", fmt.Errorf("report folder: %w", err)
		}
		return filepath.Join(dir, name), ".recallgate/" + name, nil
	}
	p := filepath.Join(os.TempDir(), name)
	return p, p, nil
}

// Publish writes to the job log what GitHub shows as annotations: each
// regressed query with its eval-set line, at most ten.
func (s Step) Publish(r publish.Result) {
	for i, q := range r.Flagged {
		if i == 10 {
			fmt.Fprintf(s.Log, "recallgate: …and %d more regressed queries (see the merge request note and the JUnit report)\n", len(r.Flagged)-10)
			break
		}
		fmt.Fprintf(s.Log, "recallgate: %s:%d: query %s regressed: recall@%d %.3f → %.3f; lost %s\n", r.SetPath, q.Line, oneLine(q.ID), r.Candidates, q.Base, q.Head, oneLine(strings.Join(q.Lost, ", ")))
	}
}

// Relative is the runner's Relative.
func (s Step) Relative(p string) string { return s.Runner.Relative(p) }
