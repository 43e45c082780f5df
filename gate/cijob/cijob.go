// Package cijob is the job a CI step runs, whatever the CI: a runner
// reader's values (Job) → pipeline.CI → the reports → what the step
// publishes (outputs, summary, annotations, through Step) and the
// CI-neutral rules of gate/publish (sticky comment, drift issue, outcome).
// A CI system plugs in with its runner reader, which fills Job and
// implements Step, and its REST client, which implements publish.Comments
// and publish.Issues; the sequence itself lives here once, and so do the
// CI-neutral inputs (Inputs: ci's flags and the RECALLGATE_* variables)
// and the detection of the CI `recallgate ci` runs under (CIs).
package cijob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/history"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/publish"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/internal/confine"
)

// ErrRegression is Run's error when the verdict is fail and the job fails
// on a regression (exit code 1): pipeline.ErrRegression.
var ErrRegression = pipeline.ErrRegression

// Step is the CI runner's side of one step: its log (warnings are
// annotations), the report file later steps read, and the outputs, summary
// and annotations a result is published as. ghaction.Step is GitHub's.
type Step interface {
	publish.Log
	// Errorf logs an error the step ends with.
	Errorf(format string, args ...any)
	// ReportLocation is where the JSON report is written and the path the
	// report output gives later steps; gate is the gate's label.
	ReportLocation(gate string) (write, output string, err error)
	// Publish writes the result's outputs, job summary and annotations.
	Publish(r publish.Result)
	// Relative makes a path relative to the workspace, as annotations and
	// the sticky comment's key need it.
	Relative(path string) string
}

// Job is one CI step's gate, as the CI's runner reader gives it.
type Job struct {
	// Config is the config's path (resolved against the working
	// directory); ConfigInput is the config as the step's input wrote it,
	// the key of the sticky comment of earlier releases.
	Config, ConfigInput string
	// Name is the gate's name, "" when not given; Command the CI
	// command's name, for error reports ("" is action).
	Name, Command string
	// Mode is pr or drift; Comment is always, on-change or never.
	Mode, Comment    string
	FailOnRegression bool
	// AllowIdentical and IdenticalFix are as in pipeline.CIOptions.
	AllowIdentical bool
	IdenticalFix   string
	// AcceptChangedInputs does nothing: a drift run compares across
	// changed inputs and names them (see pipeline.Drift).
	AcceptChangedInputs bool
	// BaseResults, HeadResults and Baseline are run files, "" when not given.
	BaseResults, HeadResults, Baseline string
	// Workspace is the checkout; TempDir where temporary trees go.
	Workspace, TempDir string
	// BaseSHA and HeadSHA are the event's commits ("" when it has none);
	// SHA is the commit the run tests; PR the pull request (0: none).
	BaseSHA, HeadSHA, SHA string
	PR                    int
	// MissingProgram advises on a command retriever's missing program.
	MissingProgram func(program string) string
	// Archive downloads the base commit when git cannot give it (nil: none).
	Archive basetree.ArchiveSource
	// Comments and Issues are the CI's REST client (nil: none).
	Comments publish.Comments
	Issues   publish.Issues
	// OneMarker keys the sticky comment by the gate's marker alone: a CI
	// no earlier release wrote to has no earlier marker to take over
	// (publish.Markers' legacy one would take another gate's comment).
	OneMarker bool
	// Change is what the CI calls the change a run gates ("" is "pull
	// request"; GitLab's is "merge request"), for the log's lines.
	Change string
	// UnreachableFix, when set, is the CI's advice for a base commit
	// neither the clone nor the archive gave (basetree.UnreachableError.Fix).
	UnreachableFix string
	// JUnit, when set, is where the JUnit report goes (GitLab's
	// artifacts:reports:junit).
	JUnit string
	// NoteMarkdown, when set, turns the Markdown report into the sticky
	// comment's and drift issue's body (report.ForGitLab on GitLab).
	NoteMarkdown func(string) string
	// History, when set, is the history file (gate/history) a drift run
	// adds its run to, an error included, stamped with the job's clock.
	History string
	// clock is Run's clock (pipeline.Env.Clock); nil for a job that did
	// not run (Fail), which adds nothing to the history.
	clock func() time.Time
}

// Run runs the job and publishes what it found: the JSON report, the
// step's outputs, summary and annotations, the sticky comment or the drift
// issue. It returns ErrRegression when the step must fail on the verdict,
// or the job's error.
// A panic of the job (a bug) is published as an error report too (stage
// internal, exit 3), never a crash that leaves the last pass standing.
func Run(ctx context.Context, e *pipeline.Env, step Step, j Job, stdout io.Writer) (err error) {
	j.clock = e.Clock
	defer func() {
		if p := recover(); p != nil {
			perr := gate.AtStage(gate.StageInternal, "", &gate.InfraError{Err: fmt.Errorf("recallgate stopped on an internal error: %v", p)})
			step.Errorf("%v", perr)
			fmt.Fprintf(stdout, "%s", debug.Stack())
			err = fail(ctx, step, j, perr, stdout, false)
		}
	}()
	cmp, set, err := compare(ctx, e, j)
	if err != nil {
		step.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", " · "))
		return fail(ctx, step, j, err, stdout, true)
	}
	return publishComparison(ctx, step, j, cmp, set, stdout)
}

// Fail publishes a job that could not finish (err is exit 2's or 3's) as
// everything else is published, so no earlier pass stays up anywhere: the
// error report in place of the JSON report, the outputs (verdict error,
// report its path), the summary, and the sticky comment edited to say the
// run could not run (created when there is none, unless the comment
// policy is never). The drift issue is left alone. It returns err. Fail
// is for a step that could not start the job (its inputs or its event
// unreadable): it says nothing of what was compared.
func Fail(ctx context.Context, step Step, j Job, err error, stdout io.Writer) error {
	return fail(ctx, step, j, err, stdout, false)
}

// fail is Fail; ran says the job was started, so a push's summary says
// what it compared (or tried to).
func fail(ctx context.Context, step Step, j Job, err error, stdout io.Writer, ran bool) error {
	command := j.Command
	if command == "" {
		command = "action"
	}
	rep := report.FromError(command, pipeline.ExitCode(err), err)
	if report.IsCommitSHA(j.HeadSHA) {
		rep.HeadSHA = j.HeadSHA
	}
	if j.Mode != "drift" && report.IsCommitSHA(j.BaseSHA) {
		rep.BaseSHA = j.BaseSHA
	}
	id := rep.SetGate(step.Relative(j.Config), j.Name)
	md, rerr := report.Render(rep, report.Markdown)
	if rerr != nil {
		step.Warningf("error report not rendered: %v", rerr)
	}
	reportPath, reportOut, lerr := j.reportLocation(step, id.Label())
	if lerr == nil {
		lerr = report.WriteComparison(atomicfile.Streams{}, rep, report.JSON, reportPath, "")
	}
	if lerr != nil {
		step.Warningf("the error report is not written (%v): the report output is empty", lerr)
		reportPath, reportOut = "", ""
	}
	if line := j.compared(err); line != "" && ran {
		step.Infof("recallgate: %s\n", line)
		md += "\n" + line + "\n"
	}
	if j.JUnit != "" {
		if err := j.writeJUnit(rep); err != nil {
			step.Warningf("the JUnit error report is not written: %v", err)
		}
	}
	j.record(step, rep)
	res := rep.PublishResult(md, reportOut, "")
	step.Publish(res)
	if j.NoteMarkdown != nil {
		res.Markdown = j.NoteMarkdown(res.Markdown)
	}
	fmt.Fprintf(stdout, "recallgate: error (exit %d, stage %s); report %s\n", rep.Error.ExitCode, rep.Error.Stage, reportPath)
	if ctx.Err() != nil {
		// A cancelled job (a new push, timeout-minutes) still edits its
		// comment: the runner gives a cancelled step seconds before it
		// kills it, and a stale pass must not outlive the run.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), cancelledPublish)
		defer cancel()
	}
	publish.Outcome(ctx, step, j.options(id, nil), j.Comments, j.Issues, res)
	return err
}

// cancelledPublish bounds the API calls of a cancelled job's error report:
// within the 7.5 seconds GitHub's runner waits between SIGINT and SIGTERM.
const cancelledPublish = 5 * time.Second

// compared says, on a run without a pull request (a push to the default
// branch), what the gate compared: the run files, the base commit with
// the head commit, or the two tables of this tree; "" on a pull request
// or a drift run. err is the job's error, nil when it finished.
func (j Job) compared(err error) string {
	if j.PR != 0 || j.Mode != "pr" {
		return ""
	}
	head := pipeline.ShortSHA(j.HeadSHA)
	if head == "" {
		head = "the checkout"
	}
	change := j.Change
	if change == "" {
		change = "pull request"
	}
	switch {
	case j.BaseResults != "":
		return fmt.Sprintf("compared: the run files %s → %s (no %s)", j.BaseResults, j.HeadResults, change)
	case j.BaseSHA != "":
		return fmt.Sprintf("compared: base commit %s → head commit %s (no %s)", pipeline.ShortSHA(j.BaseSHA), head, change)
	case errors.Is(err, pipeline.ErrIdenticalSides):
		return fmt.Sprintf("compared: nothing — no base commit (a push, not a %s), and the head commit %s has one retriever configuration: identical tables refused", change, head)
	}
	return fmt.Sprintf("compared: no base commit (a push, not a %s): [base.retriever] → [head.retriever] in the head commit %s's tree", change, head)
}

// compare runs the CI job the mode and inputs ask for.
func compare(ctx context.Context, e *pipeline.Env, j Job) (*gate.Comparison, *gate.Set, error) {
	o := pipeline.CIOptions{
		Config: j.Config, Workspace: j.Workspace, TempDir: j.TempDir, Drift: j.Mode == "drift",
		BaseResults: j.BaseResults, HeadResults: j.HeadResults, Baseline: j.Baseline,
		BaseSHA: j.BaseSHA, HeadSHA: j.HeadSHA, AllowIdentical: j.AllowIdentical, MissingProgram: j.MissingProgram,
		IdenticalFix: j.IdenticalFix, Archive: j.Archive, AcceptChangedInputs: j.AcceptChangedInputs,
	}
	cmp, set, err := pipeline.CI(ctx, e, o)
	if ue := new(basetree.UnreachableError); j.UnreachableFix != "" && errors.As(err, &ue) {
		ue.Fix = j.UnreachableFix
		err = fixed{error: err, fix: "make the base commit reachable: " + j.UnreachableFix}
	}
	if errors.Is(err, pipeline.ErrNoBaseline) {
		return nil, nil, cli.Usagef("mode drift needs the baseline input: a run written by `recallgate gate --write-baseline`")
	}
	return cmp, set, err
}

// fixed is an error with the CI's own fix (gate.FixError), for the error
// report's fix line.
type fixed struct {
	error
	fix string
}

// Fix implements gate.FixError.
func (f fixed) Fix() string { return f.fix }

// Unwrap returns the error.
func (f fixed) Unwrap() error { return f.error }

// record adds a drift run's report to the history file, when the job
// keeps one. Trouble with the history is a warning: the verdict stands.
func (j Job) record(step Step, rep *report.CompareReport) {
	switch {
	case j.History == "" || j.clock == nil:
		return
	case j.Mode != "drift":
		step.Infof("recallgate: history %s: only a drift run adds to the history (this is mode %s)\n", j.History, j.Mode)
		return
	}
	// The history is read and written like every input: inside the
	// workspace, however the checkout links its folders.
	if err := pipeline.InsideWorkspace(j.Workspace, nil, j.History); err != nil {
		step.Warningf("the run is not added to the history: %v", err)
		return
	}
	addToHistory(step, j.History, rep, j.clock())
}

// addToHistory adds a drift run's report to the history file, stamped at
// the job's clock, and says what became of it; trouble with the history
// is a warning: the verdict stands.
func addToHistory(log publish.Log, path string, rep *report.CompareReport, at time.Time) {
	a, err := history.Add(path, history.FromReport(rep, at))
	switch {
	case err != nil:
		log.Warningf("the run is not added to the history: %v", err)
	case a.Duplicate:
		log.Infof("recallgate: history %s already holds this run: not added again\n", path)
	case a.TooOld:
		log.Infof("recallgate: history %s: the run, stamped %s, not added: older than every entry of a full history (%d kept)\n", path, a.Entry.Time, a.Entries)
	default:
		log.Infof("recallgate: history %s: the run added, stamped %s by the job's clock (%d entries)\n", path, a.Entry.Time, a.Entries)
	}
}

// options are the publishing rules' choices for the job.
func (j Job) options(id report.GateInfo, reasons []string) publish.Options {
	markers := publish.Markers(id.Config, id.Name, j.ConfigInput)
	if j.OneMarker {
		markers = markers[:1]
	}
	return publish.Options{Mode: j.Mode, PR: j.PR, When: j.Comment, Markers: markers,
		SHA: j.SHA, FailOnRegression: j.FailOnRegression, Reasons: reasons}
}

// publishComparison writes the report, outputs, summary, annotations,
// comment or drift issue, and says the step's outcome.
func publishComparison(ctx context.Context, step Step, j Job, cmp *gate.Comparison, set *gate.Set, stdout io.Writer) error {
	rep := report.FromComparison(cmp)
	id := rep.SetGate(step.Relative(j.Config), j.Name)
	reportPath, reportOut, err := j.reportLocation(step, id.Label())
	if err == nil {
		err = report.WriteComparison(atomicfile.Streams{}, rep, report.JSON, reportPath, "")
	}
	if err != nil {
		return fail(ctx, step, j, gate.AtStage(gate.StageReport, "", err), stdout, true)
	}
	rep.ReportFile = reportOut // the hints name the report as the job shows it
	md, err := report.Render(rep, report.Markdown)
	if err != nil {
		return fail(ctx, step, j, gate.AtStage(gate.StageReport, "", err), stdout, true)
	}
	if line := j.compared(nil); line != "" {
		step.Infof("recallgate: %s\n", line)
		md += "\n" + line + "\n"
	}
	if j.JUnit != "" {
		if err := j.writeJUnit(rep); err != nil {
			return err
		}
	}
	j.record(step, rep)
	res := rep.PublishResult(md, reportOut, step.Relative(set.Path))
	step.Publish(res)
	if j.NoteMarkdown != nil {
		res.Markdown = j.NoteMarkdown(res.Markdown)
	}
	fmt.Fprintf(stdout, "recallgate: %s — %d regressed, %d improved; report %s\n", rep.Verdict, len(rep.Regressed), len(rep.Improved), reportPath)
	if publish.Outcome(ctx, step, j.options(id, rep.Reasons), j.Comments, j.Issues, res) {
		return ErrRegression
	}
	return nil
}

// writeJUnit writes the JUnit report where the job asked, confined as
// confine says.
func (j Job) writeJUnit(rep *report.CompareReport) error {
	if err := j.confine(j.JUnit); err != nil {
		return fmt.Errorf("junit %s: %w", j.JUnit, err)
	}
	return report.WriteComparison(atomicfile.Streams{}, rep, report.JUnit, j.JUnit, "")
}

// reportLocation is the step's report location, confined as confine says:
// a change that commits the report folder (.recallgate) as a link out of
// the workspace gets no report written there, and the job says why.
func (j Job) reportLocation(step Step, label string) (write, output string, err error) {
	write, output, err = step.ReportLocation(label)
	if err == nil {
		if err = j.confine(write); err != nil {
			err = fmt.Errorf("report %s: %w", write, err)
		}
	}
	return write, output, err
}

// confine refuses a file the job writes that is inside the workspace as
// named but outside once the checkout's links are followed (the folder or
// the file itself a link): a pull request that turns a folder of that path
// into a link cannot make the job write elsewhere on the runner. A path
// named outside the workspace (the runner's temp folder, a path the job's
// own settings give) is the job's choice, written as given.
func (j Job) confine(path string) error {
	ws := j.Workspace
	if ws == "" {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	root, _ := filepath.Abs(ws)
	if confine.Within(root, abs) {
		return pipeline.InsideWorkspace(ws, nil, abs)
	}
	return nil
}
