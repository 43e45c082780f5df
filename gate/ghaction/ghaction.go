// Package ghaction is recallgate's side of the GitHub Actions runner: the
// action's inputs, the event payload, the step outputs, the job summary and
// annotations, and what to do with the sticky pull-request comment and the
// drift issue. The GitHub API is reached through the small interfaces
// declared here (the GitHub client implements them), so this package does
// no network and its decisions are tested on their own.
package ghaction

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/publish"
	"github.com/recallgate/recallgate/gate/retriever/spec"
	"github.com/recallgate/recallgate/internal/confine"
)

// maxAnnotations caps the ::warning annotations one run writes.
const maxAnnotations = 10

// Inputs are the action's inputs (action.yml), validated.
type Inputs struct {
	Config, Token, BaseResults, HeadResults, Baseline, WorkDir string
	// Name is the gate's name (the name input), "" when not given: it
	// keys the sticky comment and names the report file.
	Name string
	// Comment is always, on-change or never; Mode pr, drift or auto.
	Comment, Mode    string
	FailOnRegression bool
	// AllowIdentical runs a gate whose two sides are the same retriever
	// configuration in the same tree (a deliberate self-check).
	AllowIdentical bool
	// History is the history file a drift run adds its run to ("": none).
	History string
	// AcceptChangedInputs is read and does nothing: a drift run compares
	// across changed inputs and names them (kept so workflows that set it run).
	AcceptChangedInputs bool
}

// InvalidInputError is an input with a value the action does not take.
type InvalidInputError struct{ Msg string }

// Error implements error.
func (e *InvalidInputError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &InvalidInputError{Msg: fmt.Sprintf(format, args...)}
}

// input reads INPUT_<NAME> as a Docker action gets it (hyphens kept), else
// with hyphens as underscores, the spelling a shell step can export (the
// native composite action sets those).
func input(a *githubactions.Action, getenv func(string) string, name string) string {
	if v := a.GetInput(name); v != "" {
		return v
	}
	return strings.TrimSpace(getenv("INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))))
}

// ReadInputs reads and checks the inputs, with action.yml's defaults. On
// an error the Inputs are still what the error report is published with,
// each invalid input read as its default: an invalid mode as auto (the
// pull request's sticky comment gets the error, never keeps a stale pass),
// an invalid name as none (the report names no gate it would refuse).
func ReadInputs(a *githubactions.Action, getenv func(string) string) (Inputs, error) {
	in := Inputs{
		Config:      input(a, getenv, "config"),
		Token:       input(a, getenv, "github-token"),
		BaseResults: input(a, getenv, "base-results"),
		HeadResults: input(a, getenv, "head-results"),
		Baseline:    input(a, getenv, "baseline"),
		WorkDir:     input(a, getenv, "working-directory"),
		Name:        input(a, getenv, "name"),
		History:     input(a, getenv, "history"),
		Comment:     strings.ToLower(input(a, getenv, "comment")),
		Mode:        strings.ToLower(input(a, getenv, "mode")),
	}
	if in.Config == "" {
		in.Config = "recallgate.toml"
	}
	if in.Comment == "" {
		in.Comment = "always"
	}
	if in.Mode == "" {
		in.Mode = "auto"
	}
	// Every input is read (an invalid one as its default) before the first
	// error is returned.
	var first error
	bad := func(format string, args ...any) {
		if first == nil {
			first = invalid(format, args...)
		}
	}
	switch in.Comment {
	case "always", "on-change", "never":
	default:
		bad("input comment must be always, on-change or never, got %q", in.Comment)
		in.Comment = "always"
	}
	switch in.Mode {
	case "pr", "drift", "auto":
	default:
		bad("input mode must be pr, drift or auto, got %q", in.Mode)
		in.Mode = "auto"
	}
	fail := input(a, getenv, "fail-on-regression")
	if fail == "" {
		fail = "true"
	}
	b, err := strconv.ParseBool(fail)
	if err != nil {
		bad("input fail-on-regression must be true or false, got %q", fail)
		b = true
	}
	in.FailOnRegression = b
	for _, b := range []struct {
		name string
		to   *bool
	}{{"allow-identical", &in.AllowIdentical}, {"accept-changed-inputs", &in.AcceptChangedInputs}} {
		if v := input(a, getenv, b.name); v != "" {
			if *b.to, err = strconv.ParseBool(v); err != nil {
				bad("input %s must be true or false, got %q", b.name, v)
			}
		}
	}
	if in.Name != "" {
		if err := gate.CheckGateName(in.Name); err != nil {
			bad("input name: %v", err)
			in.Name = ""
		}
	}
	if (in.BaseResults == "") != (in.HeadResults == "") {
		bad("inputs base-results and head-results go together: one is missing")
	}
	if first != nil {
		return in, first
	}
	return in, nil
}

// Path resolves an input path against working-directory.
func (in Inputs) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || in.WorkDir == "" {
		return p
	}
	return filepath.Join(in.WorkDir, p)
}

// Event is the part of the webhook payload recallgate reads.
type Event struct {
	PullRequest *struct {
		Number int `json:"number"`
		Base   struct {
			SHA string `json:"sha"`
			Ref string `json:"ref"`
		} `json:"base"`
		Head struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_request"`
	MergeGroup *struct {
		BaseSHA string `json:"base_sha"`
		HeadSHA string `json:"head_sha"`
	} `json:"merge_group"`
	// WorkflowRun is the run a workflow_run event reports on: the
	// pull_request run whose report a privileged workflow posts.
	WorkflowRun *WorkflowRun `json:"workflow_run"`
}

// WorkflowRun is the part of a workflow_run event's run recallgate reads.
type WorkflowRun struct {
	HeadSHA    string `json:"head_sha"`
	HeadBranch string `json:"head_branch"`
	Event      string `json:"event"`
	// HeadRepository is the repository the head commit came from (the
	// fork, for a fork's pull request).
	HeadRepository struct {
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
	} `json:"head_repository"`
	// PullRequests lists the run's pull requests; GitHub leaves it empty
	// for pull requests from forks.
	PullRequests []struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_requests"`
}

// ReadEvent parses the payload at GITHUB_EVENT_PATH; no path is an empty event.
func ReadEvent(path string) (*Event, error) {
	if path == "" {
		return &Event{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("read event payload: %w", err)}
	}
	return ParseEvent(data, path)
}

// ParseEvent decodes an event payload; name is used in messages.
func ParseEvent(data []byte, name string) (*Event, error) {
	ev := &Event{}
	if err := json.Unmarshal(data, ev); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("event payload is not JSON: %w", err)}
	}
	if ev.PullRequest != nil && ev.PullRequest.Number < 0 {
		return nil, &gate.InputError{File: name, Field: "pull_request.number", Err: errors.New("negative")}
	}
	return ev, nil
}

// BaseSHA is the commit the change is compared against, if the event has one.
func (ev *Event) BaseSHA() string {
	switch {
	case ev.PullRequest != nil:
		return ev.PullRequest.Base.SHA
	case ev.MergeGroup != nil:
		return ev.MergeGroup.BaseSHA
	}
	return ""
}

// HeadSHA is the commit under test when the event names it, else fallback.
func (ev *Event) HeadSHA(fallback string) string {
	switch {
	case ev.PullRequest != nil && ev.PullRequest.Head.SHA != "":
		return ev.PullRequest.Head.SHA
	case ev.MergeGroup != nil && ev.MergeGroup.HeadSHA != "":
		return ev.MergeGroup.HeadSHA
	}
	return fallback
}

// PRNumber is the pull request to comment on, or 0.
func (ev *Event) PRNumber() int {
	if ev.PullRequest != nil {
		return ev.PullRequest.Number
	}
	return 0
}

// ResolveMode turns "auto" into pr or drift by the event's name.
func ResolveMode(mode, eventName string) string {
	if mode != "auto" {
		return mode
	}
	switch eventName {
	case "schedule", "workflow_dispatch":
		return "drift"
	}
	return "pr"
}

// Publish writes the step outputs, the job summary (when the step has
// one) and a warning annotation on the eval-set line of each regressed
// query (at most ten, then one line saying how many more). Ids in an
// annotation show their invisible characters (gate.Visible); the
// library escapes the workflow command's own syntax (%, line breaks, and
// ":" and "," in properties). A runner file that is not set or cannot be
// written (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) is a warning naming it: the
// verdict and the rest still stand.
func Publish(a *githubactions.Action, rn Runner, r publish.Result, fit func(string, int) string) {
	if fileCommand(a, "GITHUB_OUTPUT", rn.Output, "the step outputs (verdict, report, …) are not written; later steps cannot read them") {
		a.SetOutput("verdict", r.Verdict)
		recall := []string{fmt.Sprintf("%.4f", r.RecallBase), fmt.Sprintf("%.4f", r.RecallHead), fmt.Sprintf("%+.4f", r.RecallDelta)}
		if r.Verdict == string(gate.VerdictError) {
			recall = []string{"", "", ""} // nothing was scored: never a zero
		}
		a.SetOutput("recall-base", recall[0])
		a.SetOutput("recall-head", recall[1])
		a.SetOutput("recall-delta", recall[2])
		a.SetOutput("regressed", strings.Join(r.Regressed, ","))
		a.SetOutput("improved", strings.Join(r.Improved, ","))
		a.SetOutput("report", r.Report)
	}
	if rn.StepSummary != "" && fileCommand(a, "GITHUB_STEP_SUMMARY", rn.StepSummary, "the job summary is not written") {
		a.AddStepSummary(fit(r.Markdown, 1<<20-1024) + wroteLine(r.Report))
	}
	for i, q := range r.Flagged {
		if i == maxAnnotations {
			a.Warningf("…and %d more regressed queries (see the job summary)", len(r.Flagged)-maxAnnotations)
			break
		}
		a.WithFieldsMap(map[string]string{"file": r.SetPath, "line": strconv.Itoa(q.Line), "title": "recallgate: query " + gate.Visible(q.ID) + " regressed"}).
			Warningf("%s", gate.Visible(fmt.Sprintf("recall@%d %.3f → %.3f; lost %s", r.Candidates, q.Base, q.Head, strings.Join(q.Lost, ", "))))
	}
}

// wroteLine is the summary's last line: where the JSON report is.
func wroteLine(report string) string {
	switch {
	case report == "":
		return ""
	case strings.HasPrefix(report, ".recallgate/"):
		return fmt.Sprintf("\n\nJSON report: `%s` in the checkout (add `.recallgate/` to `.gitignore`).\n", strings.ReplaceAll(report, "`", "'"))
	}
	return fmt.Sprintf("\n\nJSON report: `%s`.\n", strings.ReplaceAll(report, "`", "'"))
}

// fileCommand reports whether the runner file the variable names can be
// appended to, and warns (what is lost) when it cannot: githubactions
// panics on a file it cannot open.
func fileCommand(a *githubactions.Action, variable, path, lost string) bool {
	if path == "" {
		a.Warningf("%s is not set (not run as a GitHub Actions step?): %s", variable, lost)
		return false
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		a.Warningf("%s cannot be written (%v): %s", variable, err, lost)
		return false
	}
	f.Close()
	return true
}

// MissingProgramFix is the advice for a command retriever whose program
// is not installed: in the Docker action, the native action (which runs
// on the runner's own toolchain); nil elsewhere.
func MissingProgramFix(rn Runner) func(program string) string {
	if !rn.InImage {
		return nil
	}
	return spec.NativeActionFix
}

// DockerWorkspace is where a Docker action sees the workspace.
const DockerWorkspace = "/github/workspace"

// Runner is the job's state as the runner hands it to a step, read once.
type Runner struct {
	// Actions says the step runs under GitHub Actions (GITHUB_ACTIONS=true).
	Actions bool
	// Workspace, EventName, EventPath, SHA, APIURL, Repository and
	// StepSummary are the GITHUB_* variables of those names.
	Workspace, EventName, EventPath, SHA, APIURL, Repository, StepSummary string
	// Step is GITHUB_ACTION: the step's id, or a name the runner makes
	// unique within the job.
	Step string
	// Output is GITHUB_OUTPUT, the step outputs' file.
	Output string
	// Temp is RUNNER_TEMP when that folder exists here, else "": a Docker
	// action is told the runner's path, which its container lacks.
	Temp string
	// InImage says this process is the action image's entrypoint (the
	// image sets RECALLGATE_DOCKER_ACTION=1): whatever RUNNER_TEMP it sees
	// is the container's own, never shared with later steps.
	InImage bool
}

// InJob reports whether the process runs in a GitHub Actions job
// (GITHUB_ACTIONS=true).
func InJob(getenv func(string) string) bool { return getenv("GITHUB_ACTIONS") == "true" }

// ReadRunner reads the runner's variables through getenv.
func ReadRunner(getenv func(string) string) Runner {
	rn := Runner{
		Actions: InJob(getenv), Workspace: getenv("GITHUB_WORKSPACE"), EventName: getenv("GITHUB_EVENT_NAME"),
		EventPath: getenv("GITHUB_EVENT_PATH"), SHA: getenv("GITHUB_SHA"), APIURL: getenv("GITHUB_API_URL"),
		Repository: getenv("GITHUB_REPOSITORY"), StepSummary: getenv("GITHUB_STEP_SUMMARY"), Step: getenv("GITHUB_ACTION"),
		Output:  getenv("GITHUB_OUTPUT"),
		InImage: getenv(spec.DockerActionEnv) == "1",
	}
	if d := getenv("RUNNER_TEMP"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			rn.Temp = d
		}
	}
	return rn
}

// Relative makes p relative to the workspace, as annotations need it
// (unchanged when it is not inside).
func (rn Runner) Relative(p string) string {
	if rn.Workspace == "" {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rel, ok := confine.Rel(rn.Workspace, abs)
	if !ok {
		return p
	}
	return filepath.ToSlash(rel)
}

// sharedTemp is RUNNER_TEMP when later steps see it too: on the runner.
// In a Docker action the workspace (/github/workspace on GitHub, the
// checkout's own path under act) is the folder shared with later steps; a
// RUNNER_TEMP the container happens to have (as under act) is not.
func (rn Runner) sharedTemp() string {
	if rn.InImage || rn.Workspace == DockerWorkspace {
		return ""
	}
	return rn.Temp
}

// TempDir is where a job under Actions makes its temporary trees (the
// runner's temp folder, when this process can see it); "" elsewhere, so a
// laptop run never reads RUNNER_TEMP.
func (rn Runner) TempDir() string {
	if !rn.Actions {
		return ""
	}
	return rn.Temp
}

// ReportLocation is where the JSON report is written and the path the
// report output gives later steps. Run on the runner, that is RUNNER_TEMP.
// In a Docker action RUNNER_TEMP names a runner folder the container does
// not have; the workspace is the one folder GitHub documents as shared with
// later steps, so the report goes to .recallgate/ in it and the output is
// that path relative to the workspace (where `run:` steps start). The file
// is the step's own (see ReportName): two gate steps never share one.
func ReportLocation(rn Runner, gate string) (write, output string, err error) {
	name := ReportName(rn.Step, gate)
	if d := rn.sharedTemp(); d != "" {
		p := filepath.Join(d, name)
		return p, p, nil
	}
	if ws := rn.Workspace; ws != "" {
		dir := filepath.Join(ws, ".recallgate")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", fmt.Errorf("report folder: %w", err)
		}
		return filepath.Join(dir, name), ".recallgate/" + name, nil
	}
	p := filepath.Join(os.TempDir(), name)
	return p, p, nil
}

// ReportName is publish.ReportName: the report file of one step.
func ReportName(step, gate string) string { return publish.ReportName(step, gate) }

// Step is a GitHub Actions step as cijob.Step: the workflow-command log,
// the runner's report location, and Publish's outputs, job summary and
// annotations (the summary fitted by Fit to the summary's size limit).
type Step struct {
	*githubactions.Action
	Runner Runner
	Fit    func(body string, limit int) string
}

// ReportLocation is ReportLocation for the step's runner.
func (s Step) ReportLocation(gate string) (write, output string, err error) {
	return ReportLocation(s.Runner, gate)
}

// Publish is Publish for the step's runner.
func (s Step) Publish(r publish.Result) { Publish(s.Action, s.Runner, r, s.Fit) }

// Relative is the runner's Relative.
func (s Step) Relative(p string) string { return s.Runner.Relative(p) }
