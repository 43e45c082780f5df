package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/runfile"
)

// Compare runs the comparison with the inputs' policy and attaches health,
// notes, fingerprints and the chart setting.
func (in *Inputs) Compare(base, head *gate.Scorecard) (*gate.Comparison, error) {
	cmp, err := gate.CompareWith(base, head, in.Policy)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	cmp.Health = in.Health
	cmp.Notes = in.Notes
	cmp.Warnings = append(cmp.Warnings, in.Warnings...)
	cmp.Fingerprints = append(append([][2]string{}, in.Fingerprints...), [2]string{"policy", gate.PolicyFingerprint(cmp.Thresholds, cmp.Depth)})
	cmp.NoChart = in.NoChart
	cmp.Name = in.Name
	return cmp, nil
}

// CompareRuns scores the base run and the head side's run, gathers the
// comparison inputs (waivers, corpus, health, fingerprints, latency,
// repeat stability) and compares them under th. drift keeps queries that
// lost only gold the corpus no longer holds out of the rules
// (gate.Policy.StaleGoldApart). max_baseline_drop, a pull request's rule,
// is not applied: a drift run is measured against its baseline itself,
// an experiment's variants against the base retriever.
func CompareRuns(e *Env, set *gate.Set, cfg *config.Config, th gate.Thresholds, base []gate.Result, runs map[string]SideRun, notes []string, drift bool) (*gate.Comparison, error) {
	th.MaxBaselineDrop = nil
	return compareRuns(e, set, cfg, th, base, runs, notes, drift, nil)
}

// compareRuns is CompareRuns with the reviewed baseline max_baseline_drop
// holds the head against (nil: none read).
func compareRuns(e *Env, set *gate.Set, cfg *config.Config, th gate.Thresholds, base []gate.Result, runs map[string]SideRun, notes []string, drift bool, reviewed *gate.ReviewedBaseline) (*gate.Comparison, error) {
	return judgedCompare(e, cfg, th, set, func(e *Env, set *gate.Set) (*gate.Comparison, error) {
		if err := placeSections(e, set, cfg.SideCorpus("head")); err != nil {
			return nil, err
		}
		p, err := pairWith(e, set, cfg.Depth, base, runs)
		if err != nil {
			return nil, err
		}
		return p.compare(cfg, th, runs, notes, drift, reviewed)
	})
}

// Pairing compares many head runs with one base run, each as CompareRuns
// would: the base side is scored once (its repeats too) and each corpus
// read once for all of them, where CompareRuns does both per call. An
// experiment pairs every variant with the baseline through one.
type Pairing struct {
	e      *Env
	set    *gate.Set
	base   SideRun
	card   *gate.Scorecard
	stable *Stability // the base's repeats
	inputs map[string]*Inputs
}

// NewPairing scores the base run (every repeat) at depth d, for Compare.
func NewPairing(e *Env, set *gate.Set, d gate.Depth, base SideRun) (*Pairing, error) {
	p, err := pairWith(e, set, d, base.First(), map[string]SideRun{"base": base})
	if err != nil {
		return nil, err
	}
	p.base = base
	return p, nil
}

// pairWith scores base, and the base side of runs when it has one.
func pairWith(e *Env, set *gate.Set, d gate.Depth, base []gate.Result, runs map[string]SideRun) (*Pairing, error) {
	bc, err := gate.ScoreResults(set, base, d)
	if err != nil {
		return nil, fmt.Errorf("score base: %w", err)
	}
	p := &Pairing{e: e, set: set, card: bc, stable: &Stability{}, inputs: map[string]*Inputs{}}
	if r, ok := runs["base"]; ok {
		if p.stable, err = Repeats(set, d, map[string]SideRun{"base": r}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Compare pairs head (in the head's place of cfg, which must differ from
// the other calls' only in its head table and thresholds, at the base's
// depths) with the base run, as CompareRuns does (max_baseline_drop not
// applied: an experiment's variants are measured against the base).
func (p *Pairing) Compare(cfg *config.Config, th gate.Thresholds, head SideRun) (*gate.Comparison, error) {
	th.MaxBaselineDrop = nil
	return p.compare(cfg, th, map[string]SideRun{"base": p.base, "head": head}, nil, false, nil)
}

// compare is compareRuns on a scored base: runs' head compared with it.
func (p *Pairing) compare(cfg *config.Config, th gate.Thresholds, runs map[string]SideRun, notes []string, drift bool, reviewed *gate.ReviewedBaseline) (*gate.Comparison, error) {
	corpus := cfg.SideCorpus("head")
	read, ok := p.inputs[corpus]
	if !ok {
		snap, err := readCorpus(p.e, corpus, "for attribution")
		if err != nil {
			return nil, err
		}
		if read, err = BuildInputs(p.e, cfg, th, p.set, snap); err != nil {
			return nil, err
		}
		p.inputs[corpus] = read
	}
	in := *read
	in.Fingerprints = slices.Clone(read.Fingerprints)
	in.Policy.Thresholds = th
	in.AddSides(runs)
	in.Notes = notes
	in.Policy.StaleGoldApart = drift
	in.Policy.Baseline = reviewed
	heads := map[string]SideRun{}
	if r, ok := runs["head"]; ok {
		heads["head"] = r
	}
	st, err := Repeats(p.set, cfg.Depth, heads)
	if err != nil {
		return nil, err
	}
	st.Base, st.Floor = p.stable.Base, p.stable.Floor
	st.Apply(&in.Policy)
	// The head is judged at its worst repeat, query by query.
	return in.Compare(p.card, st.Head.Worst)
}

// recordCommits sets the comparison's commits for a gate run in a
// checkout: the base commit, and HEAD as CheckoutHead gives it.
func recordCommits(ctx context.Context, cmp *gate.Comparison, cfgPath, base string) {
	if report.IsCommitSHA(base) {
		cmp.BaseSHA = base
	}
	head, note := CheckoutHead(ctx, cfgPath)
	cmp.HeadSHA = head
	if note != "" {
		cmp.Notes = append(cmp.Notes, note)
	}
}

// CheckoutHead is the commit the checkout holding cfgPath tested: its
// HEAD when no tracked file has changes (untracked files, a report
// written beside the config, do not count). A head with uncommitted
// changes is no commit, and note says so; outside a git checkout both
// are "".
func CheckoutHead(ctx context.Context, cfgPath string) (commit, note string) {
	abs, err := filepath.Abs(cfgPath)
	if err != nil {
		return "", ""
	}
	head, changed, err := basetree.HeadCommitted(ctx, filepath.Dir(abs))
	switch {
	case err != nil:
		return "", "" // not a git checkout: no head commit to name
	case changed:
		return "", fmt.Sprintf("head side: the checkout at %s with uncommitted changes, so no head commit is recorded", ShortSHA(head))
	case report.IsCommitSHA(head):
		return head, ""
	}
	return "", ""
}

// saveRuns writes each side's run into dir as base.jsonl and head.jsonl
// ("" for no folder: nothing written).
func saveRuns(dir string, runs map[string]SideRun, set *gate.Set) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save runs: %w", err)
	}
	for _, side := range []string{"base", "head"} {
		if err := WriteRunFile(filepath.Join(dir, side+".jsonl"), runs[side].First(), gate.RunMeta{Set: set.Fingerprint, Config: runs[side].Config, Queries: gate.QueryHashes(set)}); err != nil {
			return err
		}
	}
	return nil
}

// CompareFiles compares two run files made elsewhere on the set, with the
// config's waivers, health and chart setting when cfg is given, and the
// runs' fingerprints in the report. corpus is the corpus attribution
// checks against ("" for none).
// With max_baseline_drop, the given config's baseline run is read (no base
// commit here: the given config is the policy).
func CompareFiles(e *Env, cfg *config.Config, set *gate.Set, d gate.Depth, th gate.Thresholds, corpus, base, head string) (*gate.Comparison, error) {
	var reviewed *gate.ReviewedBaseline
	if cfg != nil {
		var err error
		if reviewed, err = reviewedBaseline(cfg, th, d, set, nil, ""); err != nil {
			return nil, gate.AtStage(gate.StageBaseline, "", err)
		}
	}
	return compareFiles(e, cfg, set, d, th, corpus, base, head, reviewed)
}

// compareFiles is CompareFiles with the reviewed baseline already read.
func compareFiles(e *Env, cfg *config.Config, set *gate.Set, d gate.Depth, th gate.Thresholds, corpus, base, head string, reviewed *gate.ReviewedBaseline) (*gate.Comparison, error) {
	return judgedCompare(e, cfg, th, set, func(e *Env, set *gate.Set) (*gate.Comparison, error) {
		return compareFilesOn(e, cfg, set, d, th, corpus, base, head, reviewed)
	})
}

// compareFilesOn is compareFiles on set as it is (the judge's view or not).
func compareFilesOn(e *Env, cfg *config.Config, set *gate.Set, d gate.Depth, th gate.Thresholds, corpus, base, head string, reviewed *gate.ReviewedBaseline) (*gate.Comparison, error) {
	if err := placeSections(e, set, corpus); err != nil {
		return nil, err
	}
	bc, err := runfile.ScoreRunFile(set, base, d)
	if err != nil {
		return nil, gate.AtStage(gate.StageRunFile, "base", fmt.Errorf("score base run: %w", err))
	}
	hc, err := runfile.ScoreRunFile(set, head, d)
	if err != nil {
		return nil, gate.AtStage(gate.StageRunFile, "head", fmt.Errorf("score head run: %w", err))
	}
	snap, err := readCorpus(e, corpus, "for attribution")
	if err != nil {
		return nil, err
	}
	in, err := BuildInputs(e, cfg, th, set, snap)
	if err != nil {
		return nil, err
	}
	in.Fingerprints = append(in.Fingerprints, [2]string{"base_run", FingerprintFile(base)}, [2]string{"head_run", FingerprintFile(head)})
	in.Policy.Baseline = reviewed
	return in.Compare(bc, hc)
}

// RetrieveOptions are the choices of one `retrieve` run.
type RetrieveOptions struct {
	// Config and Set are the paths given ("" Set = the config's).
	Config, Set string
	// Side is base or head; BaseRef, with the base side, runs it in that
	// commit's tree (made under TempDir).
	Side, BaseRef, TempDir string
	// Shard "i/n" (1 ≤ i ≤ n) retrieves only that part of the set; "" is all.
	Shard string
	// Out is the run file to write.
	Out string
}

// RetrieveRun retrieves one side (a shard of it, when asked) and writes
// the run with its metadata line; it says on e.Stderr how many queries it
// wrote.
func RetrieveRun(ctx context.Context, e *Env, o RetrieveOptions) error {
	shard, shards, err := parseShard(o.Shard)
	if err != nil {
		return cli.Usagef("--shard %v", err)
	}
	cfg, set, err := LoadConfigSet(o.Config, o.Set)
	if err != nil {
		return err
	}
	var base *BaseSide // names the base tree's files as the repository does
	if o.BaseRef != "" {
		b, err := OpenBase(ctx, e, cfg, set, BaseOptions{Ref: o.BaseRef, TempDir: o.TempDir})
		if err != nil {
			return err
		}
		defer b.Tree.Close()
		cfg = b.Sides(cfg)
		// Either side of a pull request retrieves the base commit's set, the
		// one its run is scored on (see Ruler).
		if set, _, _, err = b.rule(cfg, set, nil); err != nil {
			return err
		}
		if o.Side == "base" {
			base = b
		}
	}
	meta := gate.RunMeta{Set: set.Fingerprint}
	if o.Side == "head" {
		// A head run kept as a drift baseline records the corpus it saw
		// (the snapshot the index is built from, when it is the head's).
		snap, err := readCorpus(e, cfg.SideCorpus("head"), "")
		if err != nil {
			return fmt.Errorf("read corpus: %w", err)
		}
		if snap != nil {
			meta.Corpus = snap.Fingerprint
		}
	}
	if shards > 0 {
		if set, err = set.Shard(shard, shards); err != nil {
			return &gate.InputError{File: o.Config, Field: "shard", Err: err}
		}
		meta.Shard = fmt.Sprintf("%d/%d", shard, shards)
	}
	runs, err := Retrieve(ctx, e, cfg, set, []string{o.Side}, cfg.Depth.Candidates, 1)
	if err != nil {
		return base.Named(err)
	}
	if err := runs[o.Side].Err; err != nil {
		return base.Named(err)
	}
	meta.Config = runs[o.Side].Config
	if err := WriteRunTo(e.Streams(), o.Out, runs[o.Side].First(), meta); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "recallgate: wrote %d queries to %s\n", len(runs[o.Side].First()), o.Out)
	return nil
}

// ErrNoBaseline is CI's error for a drift run without a baseline run.
var ErrNoBaseline = errors.New("a drift run needs a baseline run")

// CIOptions are what a CI job knows: the config, the runner's workspace
// and temp folder, the run files an earlier step made (if any), the
// baseline (drift), the commits of the event and how to get the base one.
type CIOptions struct {
	Config, Workspace, TempDir string
	// BaseResults and HeadResults, when given, are compared as they are.
	BaseResults, HeadResults string
	// Drift compares the head side with Baseline, a stored run (see
	// Drift).
	Drift bool
	// Baseline is the stored run a drift run compares with.
	Baseline string
	// AcceptChangedInputs does nothing (a drift run compares across
	// changed inputs and names them); kept so callers that set it build.
	AcceptChangedInputs bool
	// BaseSHA and HeadSHA are the event's commits ("" when it has none):
	// the base side runs in BaseSHA's tree, judged by its config's policy
	// (see GateOptions.BaseRef); both key the run cache.
	BaseSHA, HeadSHA string
	// Archive downloads the base commit when git cannot give it.
	Archive basetree.ArchiveSource
	// AllowIdentical and IdenticalFix are as in GateOptions.
	AllowIdentical bool
	IdenticalFix   string
	// MissingProgram says how to run a command retriever whose program is
	// not installed here (see CheckPrograms); nil for no advice.
	MissingProgram func(program string) string
}

// CI is the job a CI step runs: two run files compared, the nightly drift
// run, or the pre-merge gate (the base side in the base commit's tree, by
// that commit's policy, whenever the event has a base commit). Every path must stay in the workspace.
// The comparison records the commits compared, so a later `recallgate
// comment` can tie its report to the pull request it belongs to.
func CI(ctx context.Context, e *Env, o CIOptions) (*gate.Comparison, *gate.Set, error) {
	cmp, set, err := ciJob(ctx, e, o)
	if err != nil {
		return nil, nil, err
	}
	if !o.Drift && report.IsCommitSHA(o.BaseSHA) {
		cmp.BaseSHA = o.BaseSHA
	}
	if report.IsCommitSHA(o.HeadSHA) {
		cmp.HeadSHA = o.HeadSHA
	}
	return cmp, set, nil
}

func ciJob(ctx context.Context, e *Env, o CIOptions) (*gate.Comparison, *gate.Set, error) {
	// The config's own path first, before a byte of it is read: a refusal
	// must not quote a file outside the workspace (a parse error would).
	if err := InsideWorkspace(o.Workspace, &config.Config{Path: o.Config}); err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(o.Config)
	if err != nil {
		return nil, nil, gate.AtStage(gate.StageConfig, "", err)
	}
	if err := InsideWorkspace(o.Workspace, cfg, o.BaseResults, o.HeadResults, o.Baseline); err != nil {
		return nil, nil, err
	}
	if o.BaseResults != "" {
		if cfg.Set == "" {
			return nil, nil, &gate.InputError{File: o.Config, Field: "set", Err: errors.New("required")}
		}
		set, err := loadCISet(cfg)
		if err != nil {
			return nil, nil, err
		}
		cmp, err := compareCIFiles(ctx, e, cfg, set, o)
		return cmp, set, err
	}
	if err := CheckPrograms(cfg, o.MissingProgram); err != nil {
		return nil, nil, gate.AtStage(gate.StageRetrieve, "", err)
	}
	set, err := loadCISet(cfg)
	if err != nil {
		return nil, nil, err
	}
	keys := map[string]string{"base": o.BaseSHA, "head": o.HeadSHA}
	if o.Drift {
		if o.Baseline == "" {
			return nil, nil, ErrNoBaseline
		}
		// The gate's checks before retrieval (waivers, the head's table),
		// as the pre-merge path's Gate runs them.
		if err := CheckConfig(e, cfg, set, []string{"head"}); err != nil {
			return nil, nil, err
		}
		if cfg.CacheDir != "" {
			e.Cache = &RunCache{Dir: cfg.CacheDir, Keys: keys}
		}
		cmp, err := Drift(ctx, e, GivenRuling(cfg, set), DriftOptions{Baseline: o.Baseline, AcceptChangedInputs: o.AcceptChangedInputs})
		return cmp, set, err
	}
	g := GateOptions{Config: cfg, Set: set, Thresholds: cfg.Thresholds, Workspace: o.Workspace, TempDir: o.TempDir, Archive: o.Archive,
		AllowIdentical: o.AllowIdentical, IdenticalFix: o.IdenticalFix, CacheKeys: keys}
	// Whatever tables the head's config has: a pull request that switches
	// to [base.retriever] + [head.retriever] must not pick its own base side.
	g.BaseRef = o.BaseSHA
	cmp, err := Gate(ctx, e, g)
	return cmp, set, err
}

// policyNote is the report's line for a comparison the base commit's
// config judged.
func policyNote(commit string) string {
	return fmt.Sprintf("policy: the base commit's config (%s) judged both sides; this change's own [gate], [depth] and retrievers take effect after merge", ShortSHA(commit))
}

// compareCIFiles compares a CI job's run files. Where the event has a base
// commit, that commit's config is the policy, as it is the gate's
// (GateOptions.BaseRef): its thresholds, depths and max_waiver_days judge
// the two runs, and the report says so and what the change would loosen;
// the set, waivers and corpus stay the head's. A base commit that cannot be
// had, or whose config is refused, fails the job: run files never fall back
// to the change's own policy.
func compareCIFiles(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, o CIOptions) (*gate.Comparison, error) {
	r, err := ResolveRuling(ctx, e, cfg, set, RulingOptions{Thresholds: cfg.Thresholds, BaseRef: o.BaseSHA, Workspace: o.Workspace, Archive: o.Archive, TempDir: o.TempDir, Files: true})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmp, err := compareFiles(e, r.Config, r.Set, r.Config.Depth, r.Thresholds, r.Config.SideCorpus("head"), o.BaseResults, o.HeadResults, r.Reviewed)
	if err != nil && r.Set != r.HeadSet {
		err = gate.WithFix(err, runFilesFix)
	}
	if err != nil {
		return nil, err
	}
	headLines(cmp, r.HeadSet)
	cmp.Notes = append(cmp.Notes, r.Notes...)
	cmp.Policy, cmp.SetChanges = r.Policy, r.SetChanges
	return cmp, nil
}

// loadCISet loads the set of a CI job's config as LoadConfigSet does for
// `gate`: the query texts of `queries` too, and the segment rules checked
// against the set before anything is retrieved, so the CI job refuses
// what `gate` refuses, with the same error.
func loadCISet(cfg *config.Config) (*gate.Set, error) {
	set, err := LoadSetFor(cfg, "")
	if err != nil {
		return nil, gate.AtStage(gate.StageSet, "", err)
	}
	return set, gate.AtStage(gate.StageConfig, "", cfg.Thresholds.CheckSegments(set))
}

// ScoredRun is one run file scored for `recallgate score`, ready to write.
type ScoredRun struct {
	// Card is the scorecard; for JSON its queries hold only their numbers
	// (their entries wait in the spill).
	Card   *gate.Scorecard
	format report.Format
	spill  *report.ScoreSpill
}

// ScoreRun scores the run file at path against set. For the JSON format
// each query's entry is encoded as it is scored and parked in a temporary
// file, so memory does not grow with the documents of the run; Close frees
// it.
func ScoreRun(set *gate.Set, path string, d gate.Depth, f report.Format) (*ScoredRun, error) {
	r := &ScoredRun{format: f}
	var sp gate.Spill
	if f == report.JSON {
		s, err := report.NewScoreSpill(set, "")
		if err != nil {
			return nil, err
		}
		r.spill, sp = s, s
	}
	card, err := runfile.ScoreRunFileSpilled(set, path, d, sp)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.Card = card
	return r, nil
}

// Write writes the report in the run's format.
func (r *ScoredRun) Write(w io.Writer) error {
	if r.spill != nil {
		return r.spill.ScoreJSON(w, r.Card)
	}
	return report.Score(w, r.Card, r.format)
}

// Close frees the spill, if any.
func (r *ScoredRun) Close() {
	if r.spill != nil {
		r.spill.Close()
	}
}
