package cijob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/history"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/publish"
	"github.com/recallgate/recallgate/gate/report"
)

// fakeStep records what the job publishes; it has no ReportLocation, so
// a test wraps it in a locStep that writes into a temporary folder, never
// into the checkout (dir is the workspace, the frozen set).
type fakeStep struct {
	dir        string
	logs, errs []string
	published  []publish.Result
}

func (s *fakeStep) Warningf(f string, a ...any) {
	s.logs = append(s.logs, "warning: "+fmt.Sprintf(f, a...))
}
func (s *fakeStep) Infof(f string, a ...any)  { s.logs = append(s.logs, "info: "+fmt.Sprintf(f, a...)) }
func (s *fakeStep) Errorf(f string, a ...any) { s.errs = append(s.errs, fmt.Sprintf(f, a...)) }
func (s *fakeStep) Publish(r publish.Result)  { s.published = append(s.published, r) }
func (s *fakeStep) Relative(p string) string {
	if rel, err := filepath.Rel(s.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// fakeComments is a PR with at most one sticky comment.
type fakeComments struct {
	body    string
	written []string
}

func (c *fakeComments) FindComment(_ context.Context, pr int, markers []string) (int64, error) {
	if c.body != "" && strings.HasPrefix(c.body, markers[0]) {
		return 5, nil
	}
	return 0, nil
}

func (c *fakeComments) WriteComment(_ context.Context, pr int, id int64, marker, body string) (bool, string, error) {
	c.body = marker + "\n" + body
	c.written = append(c.written, c.body)
	return id == 0, fmt.Sprintf("https://example.test/pr/%d", pr), nil
}

// frozenSet is the project's demo set, its config and its two run files.
func frozenSet(t *testing.T) (dir string, j Job) {
	t.Helper()
	dir, err := filepath.Abs("../../frozen-set")
	if err != nil {
		t.Fatal(err)
	}
	return dir, Job{
		Config: filepath.Join(dir, "recallgate.toml"), ConfigInput: "recallgate.toml", Mode: "pr", Comment: "always", FailOnRegression: true,
		BaseResults: filepath.Join(dir, "runs", "base.jsonl"), HeadResults: filepath.Join(dir, "runs", "head.jsonl"),
		Workspace: dir, SHA: "0123456789abcdef0123", PR: 42,
	}
}

func env() *pipeline.Env {
	return &pipeline.Env{Getenv: func(string) string { return "" }, Stderr: io.Discard}
}

// TestRunPublishes: run files compared; the report written where the step
// says, the result published with that path, the sticky comment written
// under the gate's marker, and a failing verdict fails the step.
func TestRunPublishes(t *testing.T) {
	dir, j := frozenSet(t)
	step := &fakeStep{dir: dir} // Relative is against the workspace
	c := &fakeComments{}
	j.Comments = c
	var out strings.Builder
	// The report goes to a temporary folder, never into the checkout.
	tmp := t.TempDir()
	loc := &locStep{fakeStep: step, tmp: tmp}
	err := Run(context.Background(), env(), loc, j, &out)
	if !errors.Is(err, ErrRegression) {
		t.Fatalf("err %v, want ErrRegression", err)
	}
	if len(step.published) != 1 || step.published[0].Verdict != "fail" || step.published[0].Report != "out/report.json" || step.published[0].SetPath != "queries.jsonl" {
		t.Fatalf("published %+v", step.published)
	}
	if data, err := os.ReadFile(filepath.Join(tmp, "report.json")); err != nil || !strings.Contains(string(data), `"verdict": "fail"`) {
		t.Errorf("report: %v %.200s", err, data)
	}
	if len(c.written) != 1 || !strings.HasPrefix(c.written[0], "<!-- recallgate: recallgate.toml -->\n") || !strings.Contains(c.written[0], ": fail") {
		t.Errorf("comments %q", c.written)
	}
	if !strings.Contains(out.String(), "recallgate: fail — 3 regressed, 3 improved") {
		t.Errorf("stdout %q", out.String())
	}

	// Not failing on a regression: the step passes and says why.
	j.FailOnRegression = false
	if err := Run(context.Background(), env(), loc, j, io.Discard); err != nil {
		t.Fatalf("fail-on-regression false: %v", err)
	}
	if !strings.Contains(strings.Join(step.logs, "\n"), "fail-on-regression is false") {
		t.Errorf("logs %q", step.logs)
	}
}

// locStep writes its report into tmp.
type locStep struct {
	*fakeStep
	tmp string
}

func (s *locStep) ReportLocation(string) (string, string, error) {
	return filepath.Join(s.tmp, "report.json"), "out/report.json", nil
}

// TestRunDriftWithoutBaseline: the job's error is logged as the step's
// error and is a usage error (exit 2) naming the input.
func TestRunDriftWithoutBaseline(t *testing.T) {
	dir, j := frozenSet(t)
	j.Mode, j.BaseResults, j.HeadResults = "drift", "", ""
	step := &locStep{fakeStep: &fakeStep{dir: dir}, tmp: t.TempDir()}
	err := Run(context.Background(), env(), step, j, io.Discard)
	if !cli.IsUsage(err) || !strings.Contains(err.Error(), "baseline input") {
		t.Fatalf("err %v", err)
	}
	if len(step.errs) != 1 || !strings.Contains(step.errs[0], "baseline input") {
		t.Errorf("errors logged %q", step.errs)
	}
}

// TestRunErrorReplacesEverything: a job that cannot finish writes the
// error report where the JSON report goes, publishes verdict error with
// its path, and edits the gate's pass comment to the error; the error
// (and so the exit code) is the job's.
func TestRunErrorReplacesEverything(t *testing.T) {
	dir, j := frozenSet(t)
	j.HeadResults = filepath.Join(dir, "runs", "missing.jsonl")
	c := &fakeComments{body: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass"}
	j.Comments = c
	tmp := t.TempDir()
	step := &locStep{fakeStep: &fakeStep{dir: dir}, tmp: tmp}
	var out strings.Builder
	err := Run(context.Background(), env(), step, j, &out)
	if err == nil || pipeline.ExitCode(err) != 2 || errors.Is(err, ErrRegression) {
		t.Fatalf("err %v", err)
	}
	if len(step.published) != 1 || step.published[0].Verdict != "error" || step.published[0].Report != "out/report.json" || !strings.HasPrefix(step.published[0].Markdown, "### ⚠️ recallgate could not run") {
		t.Fatalf("published %+v", step.published)
	}
	data, rerr := os.ReadFile(filepath.Join(tmp, "report.json"))
	if rerr != nil || !strings.Contains(string(data), `"verdict": "error"`) || !strings.Contains(string(data), `"stage": "run file"`) || !strings.Contains(string(data), `"side": "head"`) {
		t.Errorf("report: %v\n%s", rerr, data)
	}
	if len(c.written) != 1 || !strings.Contains(c.written[0], "could not run") || strings.Contains(c.written[0], "pass") {
		t.Errorf("comments %q", c.written)
	}
	if !strings.Contains(out.String(), "recallgate: error (exit 2, stage run file)") {
		t.Errorf("stdout %q", out.String())
	}
}

// fakeIssues records what the drift rules do.
type fakeIssues struct{ calls []string }

func (f *fakeIssues) FindIssue(context.Context, string) (*publish.Issue, error) {
	f.calls = append(f.calls, "find")
	return &publish.Issue{Number: 9, Body: "<!-- recallgate-drift: fail q1 -->\n"}, nil
}
func (f *fakeIssues) CreateIssue(context.Context, string, string, string) (string, error) {
	f.calls = append(f.calls, "create")
	return "", nil
}
func (f *fakeIssues) EditIssue(context.Context, int, string, string) (string, error) {
	f.calls = append(f.calls, "edit")
	return "", nil
}
func (f *fakeIssues) CommentOnIssue(context.Context, int, string) error {
	f.calls = append(f.calls, "comment")
	return nil
}

// TestDriftErrorLeavesTheIssue: a drift run that cannot finish never
// notes "passes again" on the open drift issue.
func TestDriftErrorLeavesTheIssue(t *testing.T) {
	dir, j := frozenSet(t)
	j.Mode, j.BaseResults, j.HeadResults, j.Baseline, j.PR = "drift", "", "", filepath.Join(dir, "runs", "missing.jsonl"), 0
	is := &fakeIssues{}
	j.Issues = is
	step := &locStep{fakeStep: &fakeStep{dir: dir}, tmp: t.TempDir()}
	if err := Run(context.Background(), env(), step, j, io.Discard); err == nil {
		t.Fatal("a missing baseline must fail")
	}
	if len(is.calls) != 0 || !strings.Contains(strings.Join(step.logs, "\n"), "the drift issue is not updated") {
		t.Errorf("issue calls %v, logs %q", is.calls, step.logs)
	}
}

// TestPanicIsAnErrorReport: a bug that panics inside the job (here in
// the missing-program advice) is published like any error (exit 3, stage
// internal, the pass comment edited), never a crash with exit 2 that
// leaves the last pass up and no outputs.
func TestPanicIsAnErrorReport(t *testing.T) {
	dir, j := frozenSet(t)
	ws := t.TempDir()
	cfg := filepath.Join(ws, "recallgate.toml")
	if err := os.WriteFile(cfg, []byte("set = "+fmt.Sprintf("%q", filepath.Join(dir, "queries.jsonl"))+"\n[base.retriever]\ntype = \"file\"\npath = "+fmt.Sprintf("%q", filepath.Join(dir, "runs", "base.jsonl"))+"\n[head.retriever]\ntype = \"command\"\ncommand = [\"recallgate-no-such-program\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j.Config, j.BaseResults, j.HeadResults, j.Workspace = cfg, "", "", ""
	j.MissingProgram = func(string) string { panic("index out of range [3] with length 3") }
	c := &fakeComments{body: "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate: pass"}
	j.Comments = c
	tmp := t.TempDir()
	step := &locStep{fakeStep: &fakeStep{dir: ws}, tmp: tmp}
	err := Run(context.Background(), env(), step, j, io.Discard)
	if err == nil || pipeline.ExitCode(err) != 3 {
		t.Fatalf("err %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(tmp, "report.json"))
	if !strings.Contains(string(data), `"stage": "internal"`) || !strings.Contains(string(data), "index out of range") {
		t.Errorf("report:\n%s", data)
	}
	if len(step.published) != 1 || step.published[0].Verdict != "error" || len(c.written) != 1 || !strings.Contains(c.written[0], "could not run") {
		t.Errorf("published %+v, comments %q", step.published, c.written)
	}
}

// TestDriftAddsToTheHistory: with a history file, each drift run adds its
// run (stamped by the job's clock), an error run an error entry with no
// value; the same run again is not added; a pr run adds nothing.
func TestDriftAddsToTheHistory(t *testing.T) {
	dir, j := frozenSet(t)
	hist := filepath.Join(t.TempDir(), "history.jsonl")
	j.Mode, j.BaseResults, j.HeadResults, j.PR, j.History = "drift", "", "", 0, hist
	j.Workspace = "" // the history is in a temporary folder, not the checkout (see TestHistoryStaysInTheWorkspace)
	j.HeadSHA = "0123456789abcdef0123456789abcdef01234567"
	// runs/base.jsonl records the base side's retriever table: accepted,
	// for a failing night.
	j.AcceptChangedInputs = true
	e := env()
	e.Now = func() time.Time { return time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC) }
	step := &locStep{fakeStep: &fakeStep{dir: dir}, tmp: t.TempDir()}
	for _, night := range []struct{ baseline, want string }{
		{"base.jsonl", "fail"}, {"head.jsonl", "pass"}, {"head.jsonl", "duplicate"}, {"missing.jsonl", "error"},
	} {
		j.Baseline = filepath.Join(dir, "runs", night.baseline)
		Run(context.Background(), e, step, j, io.Discard)
	}
	data, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), data)
	}
	for i, want := range []string{`"verdict":"fail"`, `"verdict":"pass"`, `"verdict":"error"`} {
		if !strings.Contains(lines[i], want) || !strings.Contains(lines[i], `"time":"2026-12-01T02:00:00Z"`) || !strings.Contains(lines[i], `"commit":"0123456789abcdef0123456789abcdef01234567"`) {
			t.Errorf("line %d: %s", i+1, lines[i])
		}
	}
	if !strings.Contains(lines[2], `"recall_at_n":null`) || !strings.Contains(lines[2], `"stage":"baseline"`) {
		t.Errorf("the error entry: %s", lines[2])
	}
	logs := strings.Join(step.logs, "\n")
	if !strings.Contains(logs, "history "+hist+" already holds this run: not added again") || !strings.Contains(logs, "stamped 2026-12-01T02:00:00Z by the job's clock (3 entries)") {
		t.Errorf("logs:\n%s", logs)
	}

	// A pull request's run adds nothing, and says so.
	_, pr := frozenSet(t)
	pr.History = hist
	Run(context.Background(), e, step, pr, io.Discard)
	if after, _ := os.ReadFile(hist); string(after) != string(data) {
		t.Errorf("a pr run changed the history:\n%s", after)
	}
	if !strings.Contains(strings.Join(step.logs, "\n"), "only a drift run adds to the history (this is mode pr)") {
		t.Errorf("logs:\n%s", strings.Join(step.logs, "\n"))
	}

	// A full history of another commit's runs, all after the job's clock:
	// the night's run would be the one dropped, so it is not added, and
	// the log says so (not "added").
	var full strings.Builder
	other := strings.ReplaceAll(lines[1], j.HeadSHA, strings.Repeat("2", 40))
	for i := 0; i < history.MaxEntries; i++ {
		at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(history.TimeLayout)
		full.WriteString(strings.Replace(other, `"time":"2026-12-01T02:00:00Z"`, `"time":"`+at+`"`, 1) + "\n")
	}
	os.WriteFile(hist, []byte(full.String()), 0o644)
	j.Baseline = filepath.Join(dir, "runs", "head.jsonl")
	Run(context.Background(), e, step, j, io.Discard)
	if after, _ := os.ReadFile(hist); string(after) != full.String() {
		t.Error("a run older than every entry changed a full history")
	}
	if logs := strings.Join(step.logs, "\n"); !strings.Contains(logs, "history "+hist+": the run, stamped 2026-12-01T02:00:00Z, not added: older than every entry of a full history (10000 kept)") {
		t.Errorf("logs:\n%s", logs)
	}
}

// TestHistoryStaysInTheWorkspace: a checkout whose history folder is a
// symbolic link out of the workspace (a folder along the path that does
// not exist yet too) makes the job neither read nor write there: the run
// is not added, and the log says why.
func TestHistoryStaysInTheWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, ".recallgate-history")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	rep := &report.CompareReport{Tool: "recallgate", Command: "ci", Verdict: "error",
		Error: &report.ErrorInfo{ExitCode: 3, Stage: "retrieval", Message: "connection refused"}}
	for _, hist := range []string{".recallgate-history/history.jsonl", ".recallgate-history/new/history.jsonl"} {
		step := &locStep{fakeStep: &fakeStep{dir: ws}, tmp: t.TempDir()}
		j := Job{Mode: "drift", Workspace: ws, History: filepath.Join(ws, hist),
			clock: func() time.Time { return time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC) }}
		j.record(step, rep)
		entries, _ := os.ReadDir(outside)
		if len(entries) != 0 {
			t.Errorf("%s: the job wrote outside the workspace: %v", hist, entries)
		}
		if logs := strings.Join(step.logs, "\n"); !strings.Contains(logs, "outside the workspace") {
			t.Errorf("%s: logs:\n%s", hist, logs)
		}
	}
}

// TestJUnitStaysInTheWorkspace: a JUnit path inside the workspace whose
// folder the checkout turned into a link out of it is refused and nothing
// is written there; a plain folder of the workspace, or a path the job
// names outside the workspace, is written as given.
func TestJUnitStaysInTheWorkspace(t *testing.T) {
	ws, outside, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws, "reports")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	rep := &report.CompareReport{Tool: "recallgate", Command: "ci", Verdict: "error",
		Error: &report.ErrorInfo{ExitCode: 3, Stage: "retrieval", Message: "connection refused"}}
	for _, p := range []string{"reports/junit.xml", "reports/new/junit.xml"} {
		err := Job{Workspace: ws, JUnit: filepath.Join(ws, p)}.writeJUnit(rep)
		if entries, _ := os.ReadDir(outside); err == nil || !strings.Contains(err.Error(), "outside the workspace") || len(entries) != 0 {
			t.Errorf("%s through a linked folder: %v, written outside: %v", p, err, entries)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(ws, "plain", "junit.xml"), filepath.Join(elsewhere, "junit.xml")} {
		if err := (Job{Workspace: ws, JUnit: p}).writeJUnit(rep); err != nil {
			t.Errorf("%s: %v", p, err)
		} else if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
}
