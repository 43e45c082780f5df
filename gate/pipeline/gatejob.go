package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/config"
)

// GateOptions are the choices of one pre-merge gate run.
type GateOptions struct {
	// Config and Set are the loaded config and eval set.
	Config *config.Config
	Set    *gate.Set
	// Thresholds decide the verdict when the given config's policy rules
	// (the config's, with flags applied).
	Thresholds gate.Thresholds
	// Overrides, when set, puts the caller's flags over the base commit's
	// thresholds when that commit's policy rules (see BaseRef).
	Overrides func(*gate.Thresholds) error
	// BaseRef, when set, runs the base side in that commit's whole tree,
	// and that commit's config is the policy: thresholds, depths, repeats,
	// segment rules, max_waiver_days and the base side's retriever. The
	// given config is then the head side's only, and the report says what
	// it would change.
	BaseRef string
	// Workspace confines the base tree's paths ("" on a laptop); Archive
	// downloads the base commit when git cannot give it (nil: git only);
	// TempDir is where the base tree is made.
	Workspace string
	Archive   basetree.ArchiveSource
	TempDir   string
	// AllowIdentical runs a gate whose two sides are one configuration.
	AllowIdentical bool
	// IdenticalFix is the fix the refusal names for one [retriever] table.
	IdenticalFix string
	// CacheKeys are the callers' cache keys per side ("base", "head"); the
	// base commit is the base key when BaseRef is given and none is.
	CacheKeys map[string]string
	// NoCache ignores the config's cache_dir.
	NoCache bool
	// SaveRuns, when set, is a folder to write base.jsonl and head.jsonl
	// into; Baseline a file to write the head run to (a drift baseline).
	SaveRuns, Baseline string
	// RecordCommits, with BaseRef, records the commits compared in the
	// comparison (BaseSHA, HeadSHA: what `history add` shows): the base
	// commit, and the checkout's HEAD when it has no uncommitted changes
	// (else a note says none is recorded). A CI job leaves it off: its
	// event names the commits.
	RecordCommits bool
}

// Gate is the pre-merge gate job: the base side (in its commit's tree when
// asked), the head side, both retrieved at once with repeats and the run
// cache, the runs saved when asked, and the comparison.
func Gate(ctx context.Context, e *Env, o GateOptions) (*gate.Comparison, error) {
	cfg, set, th := o.Config, o.Set, o.Thresholds
	if o.Baseline != "" {
		// Before any retrieval: a folder that cannot be made fails now.
		if err := os.MkdirAll(filepath.Dir(o.Baseline), 0o755); err != nil {
			return nil, &gate.InputError{File: o.Baseline, Field: "--write-baseline", Err: fmt.Errorf("make its folder: %w", err)}
		}
	}
	sides := []string{"base", "head"}
	if o.BaseRef != "" {
		sides = sides[1:] // the base side's table is the base commit's
	}
	if err := CheckConfig(e, cfg, set, sides); err != nil {
		return nil, err
	}
	keys := map[string]string{"base": o.CacheKeys["base"], "head": o.CacheKeys["head"]}
	var notes []string
	pol, added := &gate.PolicyReport{Source: gate.PolicyGivenConfig}, cfg.AddedWaivers(nil)
	var b *BaseSide
	once := false // one retrieval serves both sides (see below)
	headSet, setChanges := set, (*gate.SetChanges)(nil)
	baseCorpus, baseCommit := cfg.SideCorpus("base"), ""
	if o.BaseRef != "" {
		var err error
		if b, err = OpenBase(ctx, e, cfg, set, BaseOptions{Ref: o.BaseRef, Workspace: o.Workspace, Archive: o.Archive, TempDir: o.TempDir}); err != nil {
			return nil, err
		}
		defer b.Tree.Close()
		baseCorpus, baseCommit = b.cfg.SideCorpus("base"), b.Tree.Commit
		head := cfg
		cfg, notes = b.Sides(head), slices.Clone(b.Notes)
		// The set is the ruler too: the base commit's scores both sides.
		if set, setChanges, notes, err = b.rule(cfg, set, notes); err != nil {
			return nil, err
		}
		if cfg.Base.Fingerprint() == cfg.Head.Fingerprint() {
			if err := SameCommit(ctx, e, head.Path, o.BaseRef, b.Tree.Commit, o.AllowIdentical); err != nil {
				return nil, err
			}
		}
		pol, added = b.Policy(head), b.AddedWaivers(head)
		if pol.Source == gate.PolicyBaseCommit {
			// (A change that adopts recallgate has no base side to see.)
			if err := SameService(e, cfg, o.AllowIdentical); err != nil {
				return nil, err
			}
			th = cfg.Thresholds
			if o.Overrides != nil {
				if err := o.Overrides(&th); err != nil {
					return nil, err
				}
			}
			notes = append(notes, policyNote(b.Tree.Commit))
		}
		if keys["base"] == "" {
			keys["base"] = b.Tree.Commit
		}
	} else if o.Baseline != "" && errors.Is(IdenticalSides(e, cfg, false, ""), ErrIdenticalSides) {
		// Writing a baseline needs no comparison: one retrieval, no refusal.
		once = true
		notes = append(notes, fmt.Sprintf("no comparison was made: base and head are one retriever configuration in this checkout (no --base-ref), so the set was retrieved once, to write the baseline %s; pass --base-ref to gate a change", o.Baseline))
	} else if err := IdenticalSides(e, cfg, o.AllowIdentical, o.IdenticalFix); err != nil {
		return nil, err
	}
	if err := o.Config.CheckWaiverDays(added, e.Clock(), cfg.MaxWaiverDays); err != nil {
		return nil, err
	}
	// Before any retrieval: a baseline the policy names but cannot read
	// stops the gate now.
	var err error
	reviewed := writesNamedBaseline(o.Config, cfg, th, b, o.Baseline)
	if reviewed == nil {
		if reviewed, err = reviewedBaseline(cfg, th, cfg.Depth, set, b, o.Workspace); err != nil {
			return nil, b.Named(gate.AtStage(gate.StageBaseline, "", err))
		}
	}
	if b != nil && reviewed != nil && reviewed.Recall != nil {
		notes = append(notes, rewrittenBaseline(o.Config, b)...)
	}
	if err := checkGoldHeld(e, cfg, baseCorpus, set, headSet); err != nil {
		return nil, err
	}
	if cfg.CacheDir != "" && !o.NoCache {
		e.Cache = &RunCache{Dir: cfg.CacheDir, Keys: keys}
	}
	runs, notes, err := gateRetrieve(ctx, e, cfg, set, b, o.BaseRef != "" && pol.Source != gate.PolicyBaseCommit, once, pol.Commit, notes)
	if err != nil {
		return nil, err
	}
	if notes, err = b.scoreAdded(ctx, e, cfg, headSet, setChanges, notes); err != nil {
		return nil, err
	}
	if err := saveRuns(o.SaveRuns, runs, set); err != nil {
		return nil, err
	}
	cmp, err := compareRuns(e, set, cfg, th, runs["base"].First(), runs, notes, false, reviewed)
	if err != nil {
		return nil, err
	}
	headLines(cmp, headSet)
	if err := writeBaseline(ctx, e, cfg, set, runs["head"], o.Baseline); err != nil {
		return nil, err
	}
	cmp.Policy, cmp.SetChanges = pol, setChanges
	if o.RecordCommits && baseCommit != "" {
		recordCommits(ctx, cmp, o.Config.Path, baseCommit)
	}
	return cmp, nil
}

// gateRetrieve retrieves both sides of a gate on set (the base side's
// errors named in the base commit's paths when b is given); headOnly
// (a change that adopts recallgate, policyCommit the base commit) lets the
// head run alone when the base side cannot, with a note added to notes;
// once (the two sides one configuration, a baseline written) retrieves the
// head alone and lets its run be the base's too.
func gateRetrieve(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, b *BaseSide, headOnly, once bool, policyCommit string, notes []string) (map[string]SideRun, []string, error) {
	if once {
		runs, err := Retrieve(ctx, e, cfg, set, []string{"head"}, cfg.Depth.Candidates, cfg.Repeats)
		if err != nil {
			return nil, nil, err
		}
		if err := runs["head"].Err; err != nil {
			return nil, nil, err
		}
		runs["base"] = runs["head"]
		return runs, notes, nil
	}
	runs, err := Retrieve(ctx, e, cfg, set, []string{"base", "head"}, cfg.Depth.Candidates, cfg.Repeats)
	if r, ok := runs["base"]; ok && b != nil {
		r.Err = b.Named(r.Err)
		runs["base"] = r
	}
	if se := new(gate.StageError); errors.As(err, &se) && se.Side == "base" {
		err = b.Named(err)
	}
	if headOnly {
		var note string
		if runs, note, err = headAlone(ctx, e, cfg, set, runs, err, policyCommit); note != "" {
			notes = append(notes, note)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if err := errors.Join(runs["base"].Err, runs["head"].Err); err != nil {
		return nil, nil, err
	}
	return runs, notes, nil
}

// writeBaseline writes the head's run to path with the record a drift run
// compares today's with (see Drift); "" writes nothing.
func writeBaseline(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, head SideRun, path string) error {
	if path == "" {
		return nil
	}
	meta, err := BaselineRecord(ctx, e, cfg, set, head)
	if err != nil {
		return err
	}
	return WriteRunFile(path, head.First(), meta)
}
