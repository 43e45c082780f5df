package publish_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate/publish"
)

// runner is a step's log, as GitHub's runner reads it.
type runner struct{ out bytes.Buffer }

func newRunner(map[string]string) *runner { return &runner{} }

func (r *runner) action() *githubactions.Action {
	return githubactions.New(githubactions.WithGetenv(func(string) string { return "" }), githubactions.WithWriter(&r.out))
}

func result(regressed int) publish.Result {
	r := publish.Result{Verdict: "fail", RecallBase: 0.8333, RecallHead: 0.81034, RecallDelta: -0.023, Candidates: 5, Markdown: "### report"}
	for i := 0; i < regressed; i++ {
		id := fmt.Sprintf("q%02d", i+1)
		r.Regressed = append(r.Regressed, id)
	}
	return r
}

// fakeAPI records calls to the comment and issue APIs.
type fakeAPI struct {
	has      bool
	err      error
	upserts  []string
	finds    int
	issues   []string
	comments []string
	edits    []string
	issue    *publish.Issue
}

func (f *fakeAPI) FindComment(context.Context, int, []string) (int64, error) {
	f.finds++
	if f.has {
		return 5, f.err
	}
	return 0, f.err
}
func (f *fakeAPI) WriteComment(_ context.Context, pr int, id int64, marker, body string) (bool, string, error) {
	f.upserts = append(f.upserts, fmt.Sprintf("%d %d %s %s", pr, id, marker, body))
	return id == 0, "https://example.test/c", f.err
}
func (f *fakeAPI) FindIssue(context.Context, string) (*publish.Issue, error) {
	if f.issue == nil {
		return nil, f.err
	}
	is := *f.issue
	return &is, f.err
}
func (f *fakeAPI) CreateIssue(_ context.Context, label, title, body string) (string, error) {
	f.issues = append(f.issues, label+"|"+title+"|"+body)
	f.issue = &publish.Issue{Number: 9, Body: body}
	return "https://example.test/i", f.err
}
func (f *fakeAPI) EditIssue(_ context.Context, n int, title, body string) (string, error) {
	f.edits = append(f.edits, title)
	f.issue.Body = body
	return "https://example.test/i", f.err
}
func (f *fakeAPI) CommentOnIssue(_ context.Context, n int, body string) error {
	f.comments = append(f.comments, body)
	return f.err
}

func TestPostComment(t *testing.T) {
	ctx := context.Background()
	quiet := publish.Result{Verdict: "pass", Markdown: "all good"}
	for _, tc := range []struct {
		name    string
		when    string
		api     *fakeAPI
		r       publish.Result
		upserts int
		log     string
	}{
		{"always", "always", &fakeAPI{}, quiet, 1, "posted"},
		{"never", "never", &fakeAPI{}, result(1), 0, ""},
		{"on-change, quiet, no comment yet", "on-change", &fakeAPI{}, quiet, 0, ""},
		{"on-change, quiet, a comment to update", "on-change", &fakeAPI{has: true}, quiet, 1, "updated"},
		{"on-change, a regression", "on-change", &fakeAPI{}, result(1), 1, "posted"},
		{"refused", "always", &fakeAPI{err: errors.New("403 Resource not accessible")}, result(1), 0, "::warning::PR comment not posted: 403"},
	} {
		r := newRunner(map[string]string{})
		publish.PostComment(ctx, r.action(), tc.api, tc.when, 42, []string{"<!-- m -->"}, tc.r)
		if len(tc.api.upserts) != tc.upserts || !strings.Contains(r.out.String(), tc.log) {
			t.Errorf("%s: %d upserts %v\n%s", tc.name, len(tc.api.upserts), tc.api.upserts, r.out.String())
		}
		// The comments are listed once, whatever the policy.
		if tc.when != "never" && tc.api.finds != 1 {
			t.Errorf("%s: the comments were listed %d times, want once", tc.name, tc.api.finds)
		}
	}
	r := newRunner(map[string]string{})
	publish.PostComment(ctx, r.action(), nil, "always", 42, []string{"m"}, quiet)
	if !strings.Contains(r.out.String(), "no API client (no token, or the repository is not owner/name)") {
		t.Error("no client: no warning")
	}
}

// TestTrackDrift: the issue is opened on the first failing night; a
// night failing the same queries edits it quietly, one failing others
// comments too (an edit notifies nobody); the first passing night notes
// the recovery once, later ones add nothing, and a new failure says so.
func TestTrackDrift(t *testing.T) {
	ctx := context.Background()
	api := &fakeAPI{}
	r := newRunner(map[string]string{})
	night := func(regressed ...string) publish.Result {
		res := result(0)
		res.Regressed = regressed
		if len(regressed) == 0 {
			res.Verdict = "pass"
		}
		return res
	}
	publish.TrackDrift(ctx, r.action(), api, night("q01"), "0123456789abcdef")
	if len(api.issues) != 1 || api.issues[0] != "retrieval-drift|Retrieval drift: mean recall@5 -0.023 against the baseline|<!-- recallgate-drift: fail q01 -->\nNightly recallgate run on 0123456789ab.\n\n### report" {
		t.Errorf("first failing night: %q", api.issues)
	}
	steps := []struct {
		name     string
		r        publish.Result
		comments int
		last     string
	}{
		{"the same queries fail", night("q01"), 0, ""},
		{"other queries fail", night("q02", "q01"), 1, "The failing queries changed on fedcba: regressed now q01,q02 (was q01)"},
		{"it passes", night(), 2, "recallgate passes against the baseline again on fedcba"},
		{"it passes again", night(), 2, ""},
		{"it fails again", night("q03"), 3, "recallgate fails against the baseline again on fedcba"},
	}
	for _, st := range steps {
		publish.TrackDrift(ctx, r.action(), api, st.r, "fedcba")
		if len(api.issues) != 1 || len(api.comments) != st.comments || st.last != "" && !strings.HasPrefix(api.comments[len(api.comments)-1], st.last) {
			t.Errorf("%s: %d issues opened, comments %q", st.name, len(api.issues), api.comments)
		}
	}
	if !strings.HasPrefix(api.issue.Body, "<!-- recallgate-drift: fail q03 -->\n") || strings.Count(api.issue.Body, "recallgate-drift:") != 1 {
		t.Errorf("the issue's state: %.120q", api.issue.Body)
	}
	// An issue an earlier release opened (no state line) counts as failing.
	old := &fakeAPI{issue: &publish.Issue{Number: 3, Body: "Nightly recallgate run on abc."}}
	publish.TrackDrift(ctx, r.action(), old, night(), "fedcba")
	publish.TrackDrift(ctx, r.action(), old, night(), "fedcba")
	if len(old.comments) != 1 {
		t.Errorf("an older issue, two passing nights: comments %q", old.comments)
	}
}

func TestOutcome(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		o       publish.Options
		verdict string
		fail    bool
		log     string
		upserts int
		issues  int
	}{
		{"failing PR fails the step", publish.Options{Mode: "pr", PR: 42, When: "always", Markers: []string{"m"}, FailOnRegression: true}, "fail", true, "posted", 1, 0},
		{"fail-on-regression false warns", publish.Options{Mode: "pr", PR: 42, When: "never"}, "fail", false, "fail-on-regression is false", 0, 0},
		{"inconclusive warns, passes", publish.Options{Mode: "pr", PR: 42, When: "never", FailOnRegression: true, Reasons: []string{"not significant"}}, "inconclusive", false, "verdict is inconclusive: not significant", 0, 0},
		{"drift files the issue", publish.Options{Mode: "drift", SHA: "abc", FailOnRegression: true}, "fail", true, "drift reported", 0, 1},
		{"a push without a PR comments nowhere", publish.Options{Mode: "pr", When: "always"}, "pass", false, "", 0, 0},
	} {
		api := &fakeAPI{}
		r := newRunner(nil)
		res := result(1)
		res.Verdict = tc.verdict
		fail := publish.Outcome(ctx, r.action(), tc.o, api, api, res)
		if fail != tc.fail || !strings.Contains(r.out.String(), tc.log) || len(api.upserts) != tc.upserts || len(api.issues) != tc.issues {
			t.Errorf("%s: fail %v, %d upserts, %d issues\n%s", tc.name, fail, len(api.upserts), len(api.issues), r.out.String())
		}
	}
}

// TestReportName: the step and the gate's label name the report file, each
// made file-safe, a repeated part said once.
func TestReportName(t *testing.T) {
	for _, tc := range []struct{ step, gate, want string }{
		{"", "", "recallgate-report.json"},
		{"gate", "", "recallgate-report-gate.json"},
		{"gate", "search", "recallgate-report-gate-search.json"},
		{"search", "search", "recallgate-report-search.json"},
		{"retrieval-gate", "../rag/recallgate.toml", "recallgate-report-retrieval-gate-_rag_recallgate.toml.json"},
		{"a b", strings.Repeat("x", 80), "recallgate-report-a_b-" + strings.Repeat("x", 64) + ".json"},
	} {
		if got := publish.ReportName(tc.step, tc.gate); got != tc.want {
			t.Errorf("ReportName(%q, %q) = %q, want %q", tc.step, tc.gate, got, tc.want)
		}
	}
}
