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

func TestTrackDrift(t *testing.T) {
	ctx := context.Background()
	api := &fakeAPI{}
	r := newRunner(map[string]string{})
	publish.TrackDrift(ctx, r.action(), api, result(1), "0123456789abcdef")
	if len(api.issues) != 1 || api.issues[0] != "retrieval-drift|Retrieval drift: mean recall@5 -0.023 against the baseline|Nightly recallgate run on 0123456789ab.\n\n### report" {
		t.Errorf("failing run: %q", api.issues)
	}
	pass := result(0)
	pass.Verdict = "pass"
	publish.TrackDrift(ctx, r.action(), api, pass, "fedcba")
	if len(api.comments) != 1 || !strings.HasPrefix(api.comments[0], "retrieval-drift|recallgate passes against the baseline again on fedcba") || len(api.issues) != 1 {
		t.Errorf("passing run: %q", api.comments)
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
