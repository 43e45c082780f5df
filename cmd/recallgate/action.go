package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/ghclient"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/runfile"
)

// driftLabel labels the one tracking issue of the nightly drift run.
const driftLabel = "retrieval-drift"

// actionInputs are the action's inputs (action.yml), validated.
type actionInputs struct {
	config, token, baseResults, headResults, baseline, workdir string
	comment, mode                                              string
	failOnRegression                                           bool
}

// input reads an action input: INPUT_<NAME> as a Docker action gets it
// (hyphens kept), else with hyphens as underscores, the spelling a shell
// step can export (the native composite action sets those).
func input(a *githubactions.Action, getenv func(string) string, name string) string {
	if v := a.GetInput(name); v != "" {
		return v
	}
	return strings.TrimSpace(getenv("INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))))
}

func readInputs(a *githubactions.Action, getenv func(string) string) (actionInputs, error) {
	in := actionInputs{
		config:      input(a, getenv, "config"),
		token:       input(a, getenv, "github-token"),
		baseResults: input(a, getenv, "base-results"),
		headResults: input(a, getenv, "head-results"),
		baseline:    input(a, getenv, "baseline"),
		workdir:     input(a, getenv, "working-directory"),
		comment:     strings.ToLower(input(a, getenv, "comment")),
		mode:        strings.ToLower(input(a, getenv, "mode")),
	}
	if in.config == "" {
		in.config = "recallgate.toml"
	}
	if in.comment == "" {
		in.comment = "always"
	}
	if in.mode == "" {
		in.mode = "auto"
	}
	switch in.comment {
	case "always", "on-change", "never":
	default:
		return in, usagef("input comment must be always, on-change or never, got %q", in.comment)
	}
	switch in.mode {
	case "pr", "drift", "auto":
	default:
		return in, usagef("input mode must be pr, drift or auto, got %q", in.mode)
	}
	fail := input(a, getenv, "fail-on-regression")
	if fail == "" {
		fail = "true"
	}
	b, err := strconv.ParseBool(fail)
	if err != nil {
		return in, usagef("input fail-on-regression must be true or false, got %q", fail)
	}
	in.failOnRegression = b
	if (in.baseResults == "") != (in.headResults == "") {
		return in, usagef("inputs base-results and head-results go together: one is missing")
	}
	return in, nil
}

// event is the part of the webhook payload recallgate reads.
type event struct {
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
}

// readEvent parses GITHUB_EVENT_PATH; no path means an empty event.
func readEvent(path string) (*event, error) {
	ev := &event{}
	if path == "" {
		return ev, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("read event payload: %w", err)}
	}
	return parseEvent(data, path)
}

// parseEvent decodes an event payload.
func parseEvent(data []byte, name string) (*event, error) {
	ev := &event{}
	if err := json.Unmarshal(data, ev); err != nil {
		return nil, &gate.InputError{File: name, Err: fmt.Errorf("event payload is not JSON: %w", err)}
	}
	if ev.PullRequest != nil && ev.PullRequest.Number < 0 {
		return nil, &gate.InputError{File: name, Field: "pull_request.number", Err: errors.New("negative")}
	}
	return ev, nil
}

// baseSHA is the commit the change is compared against, if the event has one.
func (ev *event) baseSHA() string {
	switch {
	case ev.PullRequest != nil:
		return ev.PullRequest.Base.SHA
	case ev.MergeGroup != nil:
		return ev.MergeGroup.BaseSHA
	}
	return ""
}

// prNumber is the pull request to comment on, or 0.
func (ev *event) prNumber() int {
	if ev.PullRequest != nil {
		return ev.PullRequest.Number
	}
	return 0
}

// resolveMode turns "auto" into pr or drift by the event.
func resolveMode(mode, eventName string) string {
	if mode != "auto" {
		return mode
	}
	switch eventName {
	case "schedule", "workflow_dispatch":
		return "drift"
	}
	return "pr"
}

var actionCommand = command{
	name:    "action",
	summary: "GitHub Actions entrypoint: reads INPUT_* and the event, gates, comments, writes outputs.",
	usage:   "recallgate action   (configured through the action's inputs, see action.yml)",
	examples: `  # in a workflow
  - uses: recallgate/recallgate@v1
    with:
      config: recallgate.toml
      github-token: ${{ github.token }}
`,
	setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return runAction(ctx, e)
		}
	},
}

func runAction(ctx context.Context, e *env) error {
	a := githubactions.New(githubactions.WithGetenv(e.getenv), githubactions.WithWriter(e.stdout))
	in, err := readInputs(a, e.getenv)
	if err != nil {
		a.Errorf("%v", err)
		return err
	}
	if in.token != "" {
		a.AddMask(in.token)
	}
	ev, err := readEvent(e.getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		a.Errorf("%v", err)
		return err
	}
	eventName := e.getenv("GITHUB_EVENT_NAME")
	mode := resolveMode(in.mode, eventName)
	inWork := func(p string) string {
		if p == "" || filepath.IsAbs(p) || in.workdir == "" {
			return p
		}
		return filepath.Join(in.workdir, p)
	}
	cfgPath := inWork(in.config)
	var gh *ghclient.Client
	if in.token != "" {
		gh, err = ghclient.New(e.httpClient(), e.getenv("GITHUB_API_URL"), in.token, e.getenv("GITHUB_REPOSITORY"))
		if err != nil {
			a.Warningf("GitHub API unavailable, no comment or issue will be written: %v", err)
			gh = nil
		}
	}

	cmp, set, err := actionCompare(ctx, e, a, in, inWork, cfgPath, mode, ev, gh)
	if err != nil {
		a.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", " · "))
		return err
	}
	rep := report.FromComparison(cmp)
	var md bytes.Buffer
	if err := report.WriteCompareReport(&md, rep, report.Markdown); err != nil {
		return err
	}
	reportPath, reportOut, err := reportLocation(e.getenv)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(reportPath, func(w io.Writer) error { return report.WriteCompareReport(w, rep, report.JSON) }); err != nil {
		return err
	}
	a.SetOutput("verdict", rep.Verdict)
	a.SetOutput("recall-base", fmt.Sprintf("%.4f", rep.Summary.Base.RecallAtN))
	a.SetOutput("recall-head", fmt.Sprintf("%.4f", rep.Summary.Head.RecallAtN))
	a.SetOutput("recall-delta", fmt.Sprintf("%+.4f", rep.Summary.Delta.RecallAtN))
	a.SetOutput("regressed", strings.Join(rep.Regressed, ","))
	a.SetOutput("improved", strings.Join(rep.Improved, ","))
	a.SetOutput("report", reportOut)
	if e.getenv("GITHUB_STEP_SUMMARY") != "" {
		a.AddStepSummary(ghclient.Fit(md.String(), 1<<20-1024))
	}
	annotate(a, rep, workspacePath(e.getenv("GITHUB_WORKSPACE"), set.Path))
	fmt.Fprintf(e.stdout, "recallgate: %s — %d regressed, %d improved; report %s\n", rep.Verdict, len(rep.Regressed), len(rep.Improved), reportPath)

	switch {
	case mode == "pr" && ev.prNumber() > 0:
		postComment(ctx, a, gh, in, ev.prNumber(), cfgPath, rep, md.String())
	case mode == "drift":
		trackDrift(ctx, a, gh, rep, md.String(), e.getenv("GITHUB_SHA"))
	}
	if rep.Verdict == string(gate.Inconclusive) {
		a.Warningf("recallgate verdict is inconclusive: %s", strings.Join(rep.Reasons, "; "))
	}
	if rep.Verdict == string(gate.Fail) {
		if in.failOnRegression {
			return errRegression
		}
		a.Warningf("recallgate verdict is fail, but fail-on-regression is false: the step passes")
	}
	return nil
}

// reportLocation is where the JSON report is written and the path the
// report output gives later steps. Run on the runner, that is RUNNER_TEMP.
// In a Docker action RUNNER_TEMP names a runner folder the container does
// not have; the workspace is the one folder GitHub documents as shared with
// later steps, so the report goes to .recallgate/ in it and the output is
// that path relative to the workspace (where `run:` steps start).
func reportLocation(getenv func(string) string) (write, output string, err error) {
	const name = "recallgate-report.json"
	if d := treeTempDir(getenv); d != "" {
		p := filepath.Join(d, name)
		return p, p, nil
	}
	if ws := getenv("GITHUB_WORKSPACE"); ws != "" {
		dir := filepath.Join(ws, ".recallgate")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", fmt.Errorf("report folder: %w", err)
		}
		return filepath.Join(dir, name), ".recallgate/" + name, nil
	}
	p := filepath.Join(os.TempDir(), name)
	return p, p, nil
}

// actionCompare produces the comparison for the mode: run files given as
// inputs, the config's two sides, the base commit's whole tree, or the
// stored baseline for drift.
func actionCompare(ctx context.Context, e *env, a *githubactions.Action, in actionInputs, inWork func(string) string, cfgPath, mode string, ev *event, gh *ghclient.Client) (*gate.Comparison, *gate.Set, error) {
	ws := e.getenv("GITHUB_WORKSPACE")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, nil, err
	}
	if err := insideWorkspace(ws, cfg, inWork(in.baseResults), inWork(in.headResults), inWork(in.baseline)); err != nil {
		return nil, nil, err
	}
	if in.baseResults != "" {
		if cfg.Set == "" {
			return nil, nil, &gate.InputError{File: cfgPath, Field: "set", Err: errors.New("required")}
		}
		set, err := gate.LoadSet(cfg.Set)
		if err != nil {
			return nil, nil, fmt.Errorf("load set: %w", err)
		}
		bc, err := gate.ScoreRunFile(set, inWork(in.baseResults), cfg.Depth)
		if err != nil {
			return nil, nil, fmt.Errorf("score base results: %w", err)
		}
		hc, err := gate.ScoreRunFile(set, inWork(in.headResults), cfg.Depth)
		if err != nil {
			return nil, nil, fmt.Errorf("score head results: %w", err)
		}
		in, err := buildInputs(e, cfg, cfg.Thresholds, set, corpusFor("", cfg))
		if err != nil {
			return nil, nil, err
		}
		cmp, err := compareWith(bc, hc, in)
		return cmp, set, err
	}
	set, err := loadSetFor(cfg, "")
	if err != nil {
		return nil, nil, err
	}
	if cfg.CacheDir != "" {
		head := e.getenv("GITHUB_SHA")
		if ev.PullRequest != nil {
			head = ev.PullRequest.Head.SHA
		}
		e.cache = &runCache{dir: cfg.CacheDir, keys: map[string]string{"base": ev.baseSHA(), "head": head}}
	}
	var notes []string
	switch {
	case mode == "drift":
		if in.baseline == "" {
			return nil, nil, usagef("mode drift needs the baseline input: a run written by `recallgate gate --write-baseline`")
		}
		rf, err := runfile.Load(inWork(in.baseline))
		if err != nil {
			return nil, nil, fmt.Errorf("load baseline: %w", err)
		}
		if err := rf.CheckSet(set); err != nil {
			return nil, nil, fmt.Errorf("baseline: %w", err)
		}
		bres, err := gate.RetrieveAll(ctx, "baseline", set, rf, gate.RetrieveOptions{K: cfg.Depth.Candidates, Concurrency: 1})
		if err != nil {
			return nil, nil, err
		}
		runs, err := retrieveSides(ctx, e, cfg, set, []string{"head"}, 1)
		if err != nil {
			return nil, nil, err
		}
		if runs["head"].err != nil {
			return nil, nil, runs["head"].err
		}
		return compareResults(e, set, cfg, bres, runs)
	case cfg.Base == cfg.Head:
		base := ev.baseSHA()
		if base == "" {
			a.Warningf("the event has no base commit and %s has one [retriever]: the gate compares it with itself", cfgPath)
			break
		}
		var src basetree.ArchiveSource
		if gh != nil {
			src = gh
		}
		b, err := openBase(ctx, e, cfg, set, baseOptions{ref: base, workspace: ws, archive: src, tempDir: treeTempDir(e.getenv)})
		if err != nil {
			return nil, nil, err
		}
		defer b.tree.Close()
		cfg, notes = b.sides(cfg), b.notes
	}
	runs, err := retrieveSides(ctx, e, cfg, set, []string{"base", "head"}, cfg.Repeats)
	if err != nil {
		return nil, nil, err
	}
	if err := errors.Join(runs["base"].err, runs["head"].err); err != nil {
		return nil, nil, err
	}
	return compareResults(e, set, cfg, runs["base"].first(), runs, notes...)
}

// compareResults scores base and the head run, with health, fingerprints
// and repeat stability.
func compareResults(e *env, set *gate.Set, cfg *config.Config, base []gate.Result, runs map[string]sideRun, notes ...string) (*gate.Comparison, *gate.Set, error) {
	head := runs["head"].first()
	bc, err := gate.ScoreResults(set, base, cfg.Depth)
	if err != nil {
		return nil, nil, fmt.Errorf("score base: %w", err)
	}
	hc, err := gate.ScoreResults(set, head, cfg.Depth)
	if err != nil {
		return nil, nil, fmt.Errorf("score head: %w", err)
	}
	in, err := buildInputs(e, cfg, cfg.Thresholds, set, corpusFor("", cfg))
	if err != nil {
		return nil, nil, err
	}
	in.addSides(runs)
	in.notes = notes
	if in.pol.Unstable, in.pol.NoiseFloor, err = stability(set, cfg.Depth, runs); err != nil {
		return nil, nil, err
	}
	cmp, err := compareWith(bc, hc, in)
	return cmp, set, err
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// workspacePath makes p relative to the workspace, as annotations need.
func workspacePath(ws, p string) string {
	if ws == "" {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return filepath.ToSlash(rel)
}

// annotate puts a warning on the eval set line of each regressed query.
func annotate(a *githubactions.Action, r *report.CompareReport, setPath string) {
	byID := map[string]report.CompareQuery{}
	for _, q := range r.Queries {
		byID[q.ID] = q
	}
	for i, id := range r.Regressed {
		if i == 10 {
			a.Warningf("…and %d more regressed queries (see the job summary)", len(r.Regressed)-10)
			break
		}
		q := byID[id]
		a.WithFieldsMap(map[string]string{"file": setPath, "line": strconv.Itoa(q.Line), "title": "recallgate: query " + id + " regressed"}).
			Warningf("recall@%d %.3f → %.3f; lost %s", r.Depth.Candidates, q.Base.RecallAtN, q.Head.RecallAtN, strings.Join(q.Lost, ", "))
	}
}

// postComment keeps the sticky comment up to date. It never changes the verdict.
func postComment(ctx context.Context, a *githubactions.Action, gh *ghclient.Client, in actionInputs, pr int, cfgPath string, r *report.CompareReport, md string) {
	if in.comment == "never" {
		return
	}
	if gh == nil {
		a.Warningf("no github-token: the PR comment is skipped (the job summary has the report)")
		return
	}
	marker := ghclient.Marker(in.config)
	if in.comment == "on-change" && len(r.Regressed)+len(r.Improved) == 0 && r.Verdict == string(gate.Pass) {
		has, err := gh.HasComment(ctx, pr, marker)
		if err != nil {
			a.Warningf("PR comment skipped: %v", err)
			return
		}
		if !has {
			return
		}
	}
	body := ghclient.Fit(marker+"\n"+md, ghclient.MaxCommentLength)
	created, link, err := gh.UpsertComment(ctx, pr, marker, body)
	var pe *ghclient.PermissionError
	switch {
	case errors.As(err, &pe):
		a.Warningf("PR comment not posted: %v. The verdict stands; the report is in the job summary.", err)
	case err != nil:
		a.Warningf("PR comment not posted: %v. The verdict stands; the report is in the job summary.", err)
	case created:
		a.Infof("recallgate: posted %s\n", link)
	default:
		a.Infof("recallgate: updated %s\n", link)
	}
}

// trackDrift opens or updates the drift issue on a failing nightly run and
// notes on it when a later run passes. It never closes the issue.
func trackDrift(ctx context.Context, a *githubactions.Action, gh *ghclient.Client, r *report.CompareReport, md, sha string) {
	if gh == nil {
		a.Warningf("no github-token: the drift issue is not updated")
		return
	}
	if r.Verdict == string(gate.Fail) {
		title := fmt.Sprintf("Retrieval drift: mean recall@%d %+.3f against the baseline", r.Depth.Candidates, r.Summary.Delta.RecallAtN)
		body := ghclient.Fit(fmt.Sprintf("Nightly recallgate run on %s.\n\n%s", shortSHA(sha), md), ghclient.MaxCommentLength)
		_, link, err := gh.UpsertIssue(ctx, driftLabel, title, body)
		if err != nil {
			a.Warningf("drift issue not updated: %v", err)
			return
		}
		a.Infof("recallgate: drift reported in %s\n", link)
		return
	}
	if ok, err := gh.CommentOnIssue(ctx, driftLabel, fmt.Sprintf("recallgate passes against the baseline again on %s (mean recall@%d %+.3f). Close this issue when the cause is understood.", shortSHA(sha), r.Depth.Candidates, r.Summary.Delta.RecallAtN)); err != nil {
		a.Warningf("drift issue not updated: %v", err)
	} else if ok {
		a.Infof("recallgate: noted the passing run on the open drift issue\n")
	}
}
