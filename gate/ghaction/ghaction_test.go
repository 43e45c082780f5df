package ghaction

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate/publish"
)

// runner is a step's environment: variables and the action's log.
type runner struct {
	vars map[string]string
	out  bytes.Buffer
}

func newRunner(vars map[string]string) *runner { return &runner{vars: vars} }

func (r *runner) getenv(k string) string { return r.vars[k] }

func (r *runner) action() *githubactions.Action {
	return githubactions.New(githubactions.WithGetenv(r.getenv), githubactions.WithWriter(&r.out))
}

func TestReadInputs(t *testing.T) {
	r := newRunner(map[string]string{})
	in, err := ReadInputs(r.action(), r.getenv)
	if err != nil || in.Config != "recallgate.toml" || in.Comment != "always" || in.Mode != "auto" || !in.FailOnRegression || in.AcceptChangedInputs {
		t.Errorf("defaults: %+v %v", in, err)
	}
	// A shell step exports underscores; a Docker action keeps hyphens.
	r = newRunner(map[string]string{"INPUT_FAIL_ON_REGRESSION": "false", "INPUT_GITHUB-TOKEN": "t", "INPUT_WORKING_DIRECTORY": "rag", "INPUT_COMMENT": "On-Change", "INPUT_ACCEPT_CHANGED_INPUTS": "true"})
	in, err = ReadInputs(r.action(), r.getenv)
	if err != nil || in.FailOnRegression || !in.AcceptChangedInputs || in.Token != "t" || in.WorkDir != "rag" || in.Comment != "on-change" || in.Path("recallgate.toml") != filepath.Join("rag", "recallgate.toml") || in.Path("/abs") != "/abs" {
		t.Errorf("spellings: %+v %v", in, err)
	}
	for k, want := range map[string]string{
		"INPUT_MODE":                  "input mode must be pr, drift or auto",
		"INPUT_COMMENT":               "input comment must be always, on-change or never",
		"INPUT_FAIL-ON-REGRESSION":    "input fail-on-regression must be true or false",
		"INPUT_BASE-RESULTS":          "base-results and head-results go together",
		"INPUT_ACCEPT-CHANGED-INPUTS": "input accept-changed-inputs must be true or false",
	} {
		r := newRunner(map[string]string{k: "bogus"})
		_, err := ReadInputs(r.action(), r.getenv)
		var ie *InvalidInputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", k, err)
		}
	}
}

func TestEventAndMode(t *testing.T) {
	ev, err := ParseEvent([]byte(`{"pull_request":{"number":42,"base":{"sha":"b1"},"head":{"sha":"h1"}}}`), "e.json")
	if err != nil || ev.BaseSHA() != "b1" || ev.HeadSHA("x") != "h1" || ev.PRNumber() != 42 {
		t.Errorf("pull_request: %+v %v", ev, err)
	}
	ev, _ = ParseEvent([]byte(`{"merge_group":{"base_sha":"b2","head_sha":"h2"}}`), "e.json")
	if ev.BaseSHA() != "b2" || ev.HeadSHA("x") != "h2" || ev.PRNumber() != 0 {
		t.Errorf("merge_group: %+v", ev)
	}
	ev, _ = ReadEvent("")
	if ev.BaseSHA() != "" || ev.HeadSHA("sha") != "sha" {
		t.Error("no event")
	}
	if _, err := ParseEvent([]byte(`{"pull_request":{"number":-1}}`), "e.json"); err == nil || !strings.Contains(err.Error(), "pull_request.number") {
		t.Errorf("negative PR: %v", err)
	}
	if _, err := ReadEvent(filepath.Join(t.TempDir(), "nope.json")); err == nil || !strings.Contains(err.Error(), "read event payload") {
		t.Errorf("missing file: %v", err)
	}
	for _, tc := range [][3]string{{"auto", "schedule", "drift"}, {"auto", "workflow_dispatch", "drift"}, {"auto", "pull_request", "pr"}, {"auto", "merge_group", "pr"}, {"drift", "pull_request", "drift"}, {"pr", "schedule", "pr"}} {
		if got := ResolveMode(tc[0], tc[1]); got != tc[2] {
			t.Errorf("ResolveMode(%s, %s) = %s, want %s", tc[0], tc[1], got, tc[2])
		}
	}
}

func result(regressed int) publish.Result {
	r := publish.Result{Verdict: "fail", RecallBase: 0.8333, RecallHead: 0.81034, RecallDelta: -0.023, Candidates: 5, Markdown: "### report", Report: ".recallgate/recallgate-report.json", SetPath: "rag/queries.jsonl"}
	for i := 0; i < regressed; i++ {
		id := fmt.Sprintf("q%02d", i+1)
		r.Regressed = append(r.Regressed, id)
		r.Flagged = append(r.Flagged, publish.Regression{ID: id, Line: i + 1, Base: 1, Head: 0, Lost: []string{"doc/" + id}})
	}
	return r
}

func TestPublish(t *testing.T) {
	dir := t.TempDir()
	out, sum := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	os.WriteFile(out, nil, 0o644)
	os.WriteFile(sum, nil, 0o644)
	r := newRunner(map[string]string{"GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": sum})
	Publish(r.action(), ReadRunner(r.getenv), result(12), func(s string, n int) string { return s + fmt.Sprintf(" (fitted to %d)", n) })
	data, _ := os.ReadFile(out)
	for _, want := range []string{"verdict<<", "\nfail\n", "recall-base<<", "\n0.8333\n", "\n0.8103\n", "\n-0.0230\n", "\nq01,q02,q03,q04,q05,q06,q07,q08,q09,q10,q11,q12\n", "\n.recallgate/recallgate-report.json\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("GITHUB_OUTPUT lacks %q:\n%s", want, data)
		}
	}
	if s, _ := os.ReadFile(sum); string(s) != "### report (fitted to 1047552)\n\nJSON report: `.recallgate/recallgate-report.json` in the checkout (add `.recallgate/` to `.gitignore`).\n\n" {
		t.Errorf("summary %q", s)
	}
	log := r.out.String()
	if n := strings.Count(log, "::warning file=rag/queries.jsonl,line="); n != 10 || !strings.Contains(log, "::warning::…and 2 more regressed queries") {
		t.Errorf("%d annotations:\n%s", n, log)
	}
	if !strings.Contains(log, "::warning file=rag/queries.jsonl,line=1,title=recallgate%3A query q01 regressed::recall@5 1.000 → 0.000; lost doc/q01") {
		t.Errorf("annotation text:\n%s", log)
	}
}

func TestReportLocation(t *testing.T) {
	tmp, ws := t.TempDir(), t.TempDir()
	w, o, err := ReportLocation(ReadRunner(func(k string) string { return map[string]string{"RUNNER_TEMP": tmp, "GITHUB_WORKSPACE": ws}[k] }), "")
	if err != nil || w != filepath.Join(tmp, "recallgate-report.json") || o != w {
		t.Errorf("on the runner: %s %s %v", w, o, err)
	}
	// In a container RUNNER_TEMP names a folder that is not there.
	w, o, err = ReportLocation(ReadRunner(func(k string) string {
		return map[string]string{"RUNNER_TEMP": "/home/runner/work/_temp/nothere", "GITHUB_WORKSPACE": ws}[k]
	}), "")
	if err != nil || w != filepath.Join(ws, ".recallgate", "recallgate-report.json") || o != ".recallgate/recallgate-report.json" {
		t.Errorf("in a container: %s %s %v", w, o, err)
	}
	// Under act a Docker action's container has a RUNNER_TEMP of its own,
	// which later steps do not share: the workspace still wins.
	rn := ReadRunner(func(k string) string {
		return map[string]string{"RUNNER_TEMP": tmp, "GITHUB_WORKSPACE": DockerWorkspace}[k]
	})
	if d := rn.sharedTemp(); d != "" {
		t.Errorf("a Docker action would write the report to its own RUNNER_TEMP %s", d)
	}
	// act mounts the checkout at its own path, not /github/workspace: the
	// image's marker decides.
	w, o, err = ReportLocation(ReadRunner(func(k string) string {
		return map[string]string{"RUNNER_TEMP": tmp, "GITHUB_WORKSPACE": ws, "RECALLGATE_DOCKER_ACTION": "1"}[k]
	}), "")
	if err != nil || w != filepath.Join(ws, ".recallgate", "recallgate-report.json") || o != ".recallgate/recallgate-report.json" {
		t.Errorf("in the action image under act: %s %s %v", w, o, err)
	}
}

// TestReportPerStep: two gate steps in one job (GITHUB_ACTION differs),
// or two gates in one step's place, never write the same report file.
func TestReportPerStep(t *testing.T) {
	ws := t.TempDir()
	at := func(step, gate string) string {
		_, o, err := ReportLocation(ReadRunner(func(k string) string {
			return map[string]string{"GITHUB_WORKSPACE": ws, "GITHUB_ACTION": step, "RECALLGATE_DOCKER_ACTION": "1"}[k]
		}), gate)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	seen := map[string]string{}
	for _, c := range [][2]string{{"__recallgate_recallgate", ""}, {"__recallgate_recallgate_2", ""}, {"faq", "faq"}, {"gate", "search"}, {"gate", "faq/recallgate.toml"}} {
		o := at(c[0], c[1])
		if prev, ok := seen[o]; ok {
			t.Errorf("steps %s and %v share the report %s", prev, c, o)
		}
		seen[o] = fmt.Sprint(c)
	}
	if o := at("__recallgate_recallgate_2", "faq/recallgate.toml"); o != ".recallgate/recallgate-report-__recallgate_recallgate_2-faq_recallgate.toml.json" {
		t.Errorf("report %s", o)
	}
	if o := at("../../x", "a b"); strings.Contains(o[len(".recallgate/"):], "/") {
		t.Errorf("a step name left the folder: %s", o)
	}
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"number":42,"pull_request":{"number":42,"base":{"sha":"abc","ref":"main"},"head":{"sha":"headsha"}}}`))
	f.Add([]byte(`{"merge_group":{"base_sha":"a","head_sha":"b"}}`))
	f.Add([]byte(`{"pull_request":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseEvent(data, "event.json")
		if err != nil {
			return
		}
		_ = ev.BaseSHA()
		_ = ev.HeadSHA("")
		if ev.PRNumber() < 0 {
			t.Fatal("negative PR number accepted")
		}
	})
}

func TestRunnerTempOnlyUnderActions(t *testing.T) {
	tmp := t.TempDir()
	laptop := ReadRunner(func(k string) string { return map[string]string{"RUNNER_TEMP": tmp}[k] })
	if laptop.TempDir() != "" {
		t.Errorf("a laptop run takes RUNNER_TEMP %q", laptop.TempDir())
	}
	job := ReadRunner(func(k string) string { return map[string]string{"RUNNER_TEMP": tmp, "GITHUB_ACTIONS": "true"}[k] })
	if job.TempDir() != tmp || !job.Actions {
		t.Errorf("a job's temp %q", job.TempDir())
	}
}

// TestAnnotationsShowHiddenCharacters: a regressed query whose id or lost
// documents hold bidi controls or zero-width characters (a report from an
// untrusted job, a run's doc ids) gets an annotation that shows them, with
// the workflow command's own syntax escaped.
func TestAnnotationsShowHiddenCharacters(t *testing.T) {
	out := filepath.Join(t.TempDir(), "output")
	os.WriteFile(out, nil, 0o644)
	r := newRunner(map[string]string{"GITHUB_OUTPUT": out})
	res := result(0)
	res.Flagged = []publish.Regression{{ID: "q1\u202e,x:y", Line: 3, Base: 1, Head: 0, Lost: []string{"doc\u200b", "a\u2066b\n::error::x"}}}
	Publish(r.action(), ReadRunner(r.getenv), res, func(s string, _ int) string { return s })
	want := "::warning file=rag/queries.jsonl,line=3,title=recallgate%3A query q1⟨U+202E⟩%2Cx%3Ay regressed::recall@5 1.000 → 0.000; lost doc⟨U+200B⟩, a⟨U+2066⟩b%0A::error::x\n"
	if got := r.out.String(); got != want {
		t.Errorf("annotation:\n got %q\nwant %q", got, want)
	}

	var b bytes.Buffer
	a := githubactions.New(githubactions.WithGetenv(r.getenv), githubactions.WithWriter(NewVisibleWriter(&b)))
	a.Errorf("retriever said %s", "ok\u202egnp.exe\u200b")
	if got, want := b.String(), "::error::retriever said ok⟨U+202E⟩gnp.exe⟨U+200B⟩\n"; got != want {
		t.Errorf("VisibleWriter:\n got %q\nwant %q", got, want)
	}
}

// TestRelativeDotDotName: a file whose name starts with two dots is inside
// the workspace and is annotated by its path there; the parent is not.
func TestRelativeDotDotName(t *testing.T) {
	ws := "/home/runner/work/rag"
	rn := Runner{Workspace: ws}
	for _, tt := range []struct{ p, want string }{
		{ws + "/sets/a.jsonl", "sets/a.jsonl"},
		{ws + "/..x", "..x"},
		{ws + "/..sets/a.jsonl", "..sets/a.jsonl"},
		{ws + "/../a.jsonl", ws + "/../a.jsonl"}, // outside: kept as given
		{"/home/runner/work/rag2/a.jsonl", "/home/runner/work/rag2/a.jsonl"},
		{ws, "."},
	} {
		if got := rn.Relative(tt.p); got != tt.want {
			t.Errorf("Relative(%q) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
