// Package publish holds the rules for what a CI run writes besides its
// exit code, whatever the CI: keep one sticky comment per change up to date
// (always, on change, or never), and keep one drift issue open while the
// nightly run fails, with a note when it passes again. The CI's REST client
// implements the ports (Comments, Issues); its runner log implements Log.
package publish

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/gitexec"
)

// DriftLabel labels the one tracking issue of the nightly drift run.
const DriftLabel = "retrieval-drift"

// Log is where the rules say what they did: the CI's log, whose warnings
// are annotations (githubactions.Action is one).
type Log interface {
	Warningf(format string, args ...any)
	Infof(format string, args ...any)
}

// Words are what a CI calls the things the rules write about, for their
// log lines: a Log that implements Worded gives its own; any other Log
// gets GitHub's (GitHubWords).
type Words struct {
	// Comment is the sticky comment ("PR comment").
	Comment string
	// Summary is where the run's report is besides the comment, as
	// "the job summary" reads in "(the job summary has the report)".
	Summary string
	// NoClient says why a run may have no API client.
	NoClient string
}

// GitHubWords are GitHub Actions' words, the default.
var GitHubWords = Words{Comment: "PR comment", Summary: "the job summary", NoClient: "no token, or the repository is not owner/name"}

// Worded is a Log that names its CI's words.
type Worded interface{ Words() Words }

// wordsOf is the Log's words, GitHub's unless it gives its own.
func wordsOf(a Log) Words {
	if w, ok := a.(Worded); ok {
		return w.Words()
	}
	return GitHubWords
}

// capital makes s's first letter upper case (ASCII).
func capital(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// Regression is one regressed query, for its annotation.
type Regression struct {
	ID         string
	Line       int
	Base, Head float64
	Lost       []string
}

// Result is what a run found, as outputs, summary, annotations, comment
// and issue need it.
type Result struct {
	Verdict                             string
	RecallBase, RecallHead, RecallDelta float64
	Regressed, Improved                 []string
	// Candidates is the candidate depth N.
	Candidates int
	// Markdown is the report for the summary, the comment and the issue.
	Markdown string
	// Report is the report output: the JSON report's path for later steps.
	Report string
	// SetPath is the eval set, relative to the workspace, for annotations.
	SetPath string
	// Flagged are the regressed queries, largest drop first.
	Flagged []Regression
}

// Changed reports whether a query flipped or the gate did not pass.
func (r Result) Changed() bool {
	return len(r.Regressed)+len(r.Improved) > 0 || r.Verdict != string(gate.Pass)
}

// Marker is the hidden line that identifies one gate's sticky comment on
// a PR: the config's path relative to the workspace (working directory
// included) and the gate's name, when it has one. Marker(config, "") with
// the action's bare config input is the marker of earlier releases.
func Marker(config, name string) string {
	clean := strings.NewReplacer("--", "-", ">", "", "\n", " ", "\r", " ").Replace
	if name == "" {
		return fmt.Sprintf("<!-- recallgate: %s -->", clean(config))
	}
	return fmt.Sprintf("<!-- recallgate: %s name=%s -->", clean(config), clean(name))
}

// Markers find a gate's sticky comment: its marker, then the one earlier
// releases gave it (keyed by the bare config name legacy, "" for the
// default recallgate.toml), taken over once.
func Markers(config, name, legacy string) []string {
	if legacy == "" {
		legacy = "recallgate.toml"
	}
	m := []string{Marker(config, name)}
	if old := Marker(legacy, ""); old != m[0] {
		m = append(m, old)
	}
	return m
}

// Comments is the sticky comment's API (a pull request's comment, a merge
// request's note).
type Comments interface {
	// FindComment returns the id of the gate's comment (0: none), written
	// by the token's own account and starting with markers[0] (or, once,
	// a later marker: the gate's marker in an earlier release).
	FindComment(ctx context.Context, pr int, markers []string) (int64, error)
	// WriteComment edits comment id, or creates one when id is 0.
	WriteComment(ctx context.Context, pr int, id int64, marker, body string) (created bool, link string, err error)
}

// PostComment keeps the sticky comment up to date: with "on-change" a
// quiet pass writes nothing unless a comment is already there to update.
// The comments are listed once. markers[0] keys the gate's comment; later
// ones are its earlier markers, taken over. It never changes the verdict:
// a refusal is a warning.
func PostComment(ctx context.Context, a Log, c Comments, when string, pr int, markers []string, r Result) {
	if when == "never" {
		return
	}
	w := wordsOf(a)
	if c == nil {
		a.Warningf("no API client (%s): the %s is skipped (%s has the report)", w.NoClient, w.Comment, w.Summary)
		return
	}
	id, err := c.FindComment(ctx, pr, markers)
	if err != nil {
		a.Warningf("%s not posted: %v. The verdict stands; the report is in %s.", capital(w.Comment), err, w.Summary)
		return
	}
	if when == "on-change" && !r.Changed() && id == 0 {
		return
	}
	created, link, err := c.WriteComment(ctx, pr, id, markers[0], r.Markdown)
	switch {
	case err != nil:
		a.Warningf("%s not posted: %v. The verdict stands; the report is in %s.", capital(w.Comment), err, w.Summary)
	case created:
		a.Infof("recallgate: posted %s\n", link)
	default:
		a.Infof("recallgate: updated %s\n", link)
	}
}

// Issue is the open drift issue.
type Issue struct {
	Number     int
	Body, Link string
}

// Issues is the drift issue's API: the open issue with the label that the
// token's own account opened, and what the rules do to it.
type Issues interface {
	FindIssue(ctx context.Context, label string) (*Issue, error)
	CreateIssue(ctx context.Context, label, title, body string) (link string, err error)
	// EditIssue replaces the body; the title too unless it is "".
	EditIssue(ctx context.Context, number int, title, body string) (link string, err error)
	CommentOnIssue(ctx context.Context, number int, body string) error
}

// driftState is the hidden first line of the drift issue's body: whether
// the last nightly run failed and which queries it found regressed.
var driftState = regexp.MustCompile(`^<!-- recallgate-drift: (fail|pass) ?([^ >]*) -->\n`)

// readState is the issue's recorded state; an issue without the line (an
// earlier release's) counts as failing, queries unknown.
func readState(body string) (state, queries string, known bool) {
	m := driftState.FindStringSubmatch(body)
	if m == nil {
		return "fail", "", false
	}
	return m[1], m[2], true
}

// withState puts the state line at the top of body, replacing an old one.
func withState(body, state string, queries []string) string {
	return fmt.Sprintf("<!-- recallgate-drift: %s %s -->\n", state, stateIDs(queries)) + driftState.ReplaceAllString(body, "")
}

// stateIDs is the sorted query ids as the state line holds them.
func stateIDs(ids []string) string {
	c := append([]string(nil), ids...)
	sort.Strings(c)
	return strings.NewReplacer("--", "-", ">", "", " ", "_").Replace(strings.Join(c, ","))
}

// TrackDrift keeps one drift issue while the nightly run fails: a failing
// run opens it or edits its body (an edit notifies nobody, so a run whose
// failing queries differ from the issue's, or that fails again after a
// pass, also comments); the first passing run after a failure notes it
// in one comment, later passing runs add nothing. It never closes the
// issue: people do.
func TrackDrift(ctx context.Context, a Log, c Issues, r Result, sha string) {
	if c == nil {
		a.Warningf("no API client (%s): the drift issue is not updated", wordsOf(a).NoClient)
		return
	}
	is, err := c.FindIssue(ctx, DriftLabel)
	if err != nil {
		a.Warningf("drift issue not updated: %v", err)
		return
	}
	failing := r.Verdict == string(gate.Fail)
	if failing {
		title := fmt.Sprintf("Retrieval drift: mean recall@%d %+.3f against the baseline", r.Candidates, r.RecallDelta)
		body := withState(fmt.Sprintf("Nightly recallgate run on %s.\n\n%s", short(sha), r.Markdown), "fail", r.Regressed)
		if is == nil {
			link, err := c.CreateIssue(ctx, DriftLabel, title, body)
			if err != nil {
				a.Warningf("drift issue not opened: %v", err)
				return
			}
			a.Infof("recallgate: drift reported in %s\n", link)
			return
		}
		state, before, known := readState(is.Body)
		link, err := c.EditIssue(ctx, is.Number, title, body)
		if err != nil {
			a.Warningf("drift issue not updated: %v", err)
			return
		}
		now := stateIDs(r.Regressed)
		var note string
		switch {
		case state == "pass":
			note = fmt.Sprintf("recallgate fails against the baseline again on %s (mean recall@%d %+.3f; regressed: %s). The issue shows the latest report.", short(sha), r.Candidates, r.RecallDelta, orNone(now))
		case known && before != now:
			note = fmt.Sprintf("The failing queries changed on %s: regressed now %s (was %s). The issue shows the latest report.", short(sha), orNone(now), orNone(before))
		}
		if note != "" {
			if err := c.CommentOnIssue(ctx, is.Number, note); err != nil {
				a.Warningf("drift issue updated, but the comment saying what changed was not posted: %v", err)
			}
		}
		a.Infof("recallgate: drift reported in %s\n", link)
		return
	}
	if is == nil {
		return
	}
	if state, _, _ := readState(is.Body); state == "pass" {
		return // this recovery is noted already
	}
	if err := c.CommentOnIssue(ctx, is.Number, fmt.Sprintf("recallgate passes against the baseline again on %s (mean recall@%d %+.3f). Close this issue when the cause is understood.", short(sha), r.Candidates, r.RecallDelta)); err != nil {
		a.Warningf("drift issue not updated: %v", err)
		return
	}
	if _, err := c.EditIssue(ctx, is.Number, "", withState(is.Body, "pass", nil)); err != nil {
		a.Warningf("drift issue: the passing run was noted, but its state was not saved (the next passing run notes it again): %v", err)
	}
	a.Infof("recallgate: noted the passing run on the open drift issue\n")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func short(s string) string { return gitexec.Short(s) }

// Options are a run's publishing choices.
type Options struct {
	// Mode is pr or drift; PR the pull request (0 when none).
	Mode string
	PR   int
	// When is always, on-change or never.
	When string
	// Markers find the gate's sticky comment: its marker first, then the
	// markers earlier releases gave the same gate.
	Markers []string
	// SHA is the commit the run tested.
	SHA string
	// FailOnRegression makes a failing verdict fail the step.
	FailOnRegression bool
	// Reasons are the verdict's reasons, for the log.
	Reasons []string
}

// Outcome applies the rules once a run is scored: the sticky comment on a
// pull request, the drift issue on a drift run, the verdict said in the
// log; it reports whether the step must fail. Comments and issues may be
// nil (no client): the rules then warn and the verdict stands.
func Outcome(ctx context.Context, log Log, o Options, c Comments, is Issues, r Result) (fail bool) {
	switch {
	case o.Mode == "pr" && o.PR > 0:
		PostComment(ctx, log, c, o.When, o.PR, o.Markers, r)
	case o.Mode == "drift" && r.Verdict == string(gate.VerdictError):
		log.Warningf("the drift issue is not updated: the run could not finish (%s says why)", wordsOf(log).Summary)
	case o.Mode == "drift":
		TrackDrift(ctx, log, is, r, o.SHA)
	}
	switch r.Verdict {
	case string(gate.Inconclusive):
		log.Warningf("recallgate verdict is inconclusive: %s", strings.Join(o.Reasons, "; "))
	case string(gate.Fail):
		if o.FailOnRegression {
			return true
		}
		log.Warningf("recallgate verdict is fail, but fail-on-regression is false: the step passes")
	}
	return false
}
