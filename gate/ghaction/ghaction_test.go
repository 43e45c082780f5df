package ghaction

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"
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
	if err != nil || in.Config != "recallgate.toml" || in.Comment != "always" || in.Mode != "auto" || !in.FailOnRegression {
		t.Errorf("defaults: %+v %v", in, err)
	}
	// A shell step exports underscores; a Docker action keeps hyphens.
	r = newRunner(map[string]string{"INPUT_FAIL_ON_REGRESSION": "false", "INPUT_GITHUB-TOKEN": "t", "INPUT_WORKING_DIRECTORY": "rag", "INPUT_COMMENT": "On-Change"})
	in, err = ReadInputs(r.action(), r.getenv)
	if err != nil || in.FailOnRegression || in.Token != "t" || in.WorkDir != "rag" || in.Comment != "on-change" || in.Path("recallgate.toml") != filepath.Join("rag", "recallgate.toml") || in.Path("/abs") != "/abs" {
		t.Errorf("spellings: %+v %v", in, err)
	}
	for k, want := range map[string]string{
		"INPUT_MODE":               "input mode must be pr, drift or auto",
		"INPUT_COMMENT":            "input comment must be always, on-change or never",
		"INPUT_FAIL-ON-REGRESSION": "input fail-on-regression must be true or false",
		"INPUT_BASE-RESULTS":       "base-results and head-results go together",
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

func result(regressed int) Result {
	r := Result{Verdict: "fail", RecallBase: 0.8333, RecallHead: 0.81034, RecallDelta: -0.023, Candidates: 5, Markdown: "### report", Report: ".recallgate/recallgate-report.json", SetPath: "rag/queries.jsonl"}
	for i := 0; i < regressed; i++ {
		id := fmt.Sprintf("q%02d", i+1)
		r.Regressed = append(r.Regressed, id)
		r.Flagged = append(r.Flagged, Regression{ID: id, Line: i + 1, Base: 1, Head: 0, Lost: []string{"doc/" + id}})
	}
	return r
}

func TestPublish(t *testing.T) {
	dir := t.TempDir()
	out, sum := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	os.WriteFile(out, nil, 0o644)
	os.WriteFile(sum, nil, 0o644)
	r := newRunner(map[string]string{"GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": sum})
	Publish(r.action(), r.getenv, result(12), func(s string, n int) string { return s + fmt.Sprintf(" (fitted to %d)", n) })
	data, _ := os.ReadFile(out)
	for _, want := range []string{"verdict<<", "\nfail\n", "recall-base<<", "\n0.8333\n", "\n0.8103\n", "\n-0.0230\n", "\nq01,q02,q03,q04,q05,q06,q07,q08,q09,q10,q11,q12\n", "\n.recallgate/recallgate-report.json\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("GITHUB_OUTPUT lacks %q:\n%s", want, data)
		}
	}
	if s, _ := os.ReadFile(sum); string(s) != "### report (fitted to 1047552)\n" {
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
	w, o, err := ReportLocation(func(k string) string { return map[string]string{"RUNNER_TEMP": tmp, "GITHUB_WORKSPACE": ws}[k] })
	if err != nil || w != filepath.Join(tmp, "recallgate-report.json") || o != w {
		t.Errorf("on the runner: %s %s %v", w, o, err)
	}
	// In a container RUNNER_TEMP names a folder that is not there.
	w, o, err = ReportLocation(func(k string) string {
		return map[string]string{"RUNNER_TEMP": "/home/runner/work/_temp/nothere", "GITHUB_WORKSPACE": ws}[k]
	})
	if err != nil || w != filepath.Join(ws, ".recallgate", "recallgate-report.json") || o != ".recallgate/recallgate-report.json" {
		t.Errorf("in a container: %s %s %v", w, o, err)
	}
}

// fakeAPI records calls to the comment and issue APIs.
type fakeAPI struct {
	has      bool
	err      error
	upserts  []string
	issues   []string
	comments []string
}

func (f *fakeAPI) HasComment(context.Context, int, string) (bool, error) { return f.has, f.err }
func (f *fakeAPI) UpsertComment(_ context.Context, pr int, marker, body string) (bool, string, error) {
	f.upserts = append(f.upserts, fmt.Sprintf("%d %s %s", pr, marker, body))
	return !f.has, "https://example.test/c", f.err
}
func (f *fakeAPI) UpsertIssue(_ context.Context, label, title, body string) (bool, string, error) {
	f.issues = append(f.issues, label+"|"+title+"|"+body)
	return true, "https://example.test/i", f.err
}
func (f *fakeAPI) CommentOnIssue(_ context.Context, label, body string) (bool, error) {
	f.comments = append(f.comments, label+"|"+body)
	return true, f.err
}

func TestPostComment(t *testing.T) {
	ctx := context.Background()
	quiet := Result{Verdict: "pass", Markdown: "all good"}
	for _, tc := range []struct {
		name    string
		when    string
		api     *fakeAPI
		r       Result
		upserts int
		log     string
	}{
		{"always", "always", &fakeAPI{}, quiet, 1, "posted"},
		{"never", "never", &fakeAPI{}, result(1), 0, ""},
		{"on-change, quiet, no comment yet", "on-change", &fakeAPI{}, quiet, 0, ""},
		{"on-change, quiet, a comment to update", "on-change", &fakeAPI{has: true}, quiet, 1, "updated"},
		{"on-change, a regression", "on-change", &fakeAPI{}, result(1), 1, "posted"},
		{"refused", "always", &fakeAPI{err: errors.New("403 Resource not accessible")}, result(1), 1, "::warning::PR comment not posted: 403"},
	} {
		r := newRunner(map[string]string{})
		PostComment(ctx, r.action(), tc.api, tc.when, 42, "<!-- m -->", tc.r)
		if len(tc.api.upserts) != tc.upserts || !strings.Contains(r.out.String(), tc.log) {
			t.Errorf("%s: %d upserts %v\n%s", tc.name, len(tc.api.upserts), tc.api.upserts, r.out.String())
		}
	}
	r := newRunner(map[string]string{})
	PostComment(ctx, r.action(), nil, "always", 42, "m", quiet)
	if !strings.Contains(r.out.String(), "no github-token") {
		t.Error("no client: no warning")
	}
}

func TestTrackDrift(t *testing.T) {
	ctx := context.Background()
	api := &fakeAPI{}
	r := newRunner(map[string]string{})
	TrackDrift(ctx, r.action(), api, result(1), "0123456789abcdef")
	if len(api.issues) != 1 || api.issues[0] != "retrieval-drift|Retrieval drift: mean recall@5 -0.023 against the baseline|Nightly recallgate run on 0123456789ab.\n\n### report" {
		t.Errorf("failing run: %q", api.issues)
	}
	pass := result(0)
	pass.Verdict = "pass"
	TrackDrift(ctx, r.action(), api, pass, "fedcba")
	if len(api.comments) != 1 || !strings.HasPrefix(api.comments[0], "retrieval-drift|recallgate passes against the baseline again on fedcba") || len(api.issues) != 1 {
		t.Errorf("passing run: %q", api.comments)
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
