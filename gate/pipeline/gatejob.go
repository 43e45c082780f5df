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

// Gate is the pre-merge gate job, in three steps: the ruler resolved once
// (ResolveRuling: the base commit's policy, set and base retriever when
// asked), both sides retrieved at once with repeats and the run cache, and
// the comparison (the runs saved when asked).
func Gate(ctx context.Context, e *Env, o GateOptions) (*gate.Comparison, error) {
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
	if err := CheckConfig(e, o.Config, o.Set, sides); err != nil {
		return nil, err
	}
	r, err := ResolveRuling(ctx, e, o.Config, o.Set, RulingOptions{Thresholds: o.Thresholds, Overrides: o.Overrides, BaseRef: o.BaseRef,
		Workspace: o.Workspace, Archive: o.Archive, TempDir: o.TempDir, AllowIdentical: o.AllowIdentical, IdenticalFix: o.IdenticalFix, WriteBaseline: o.Baseline})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	runs, notes, err := gateRetrieve(ctx, e, r, o)
	if err != nil {
		return nil, err
	}
	return gateCompare(ctx, e, r, o, runs, notes)
}

// gateRetrieve retrieves both sides of a gate on the ruling's set, with the
// run cache (keyed by the base commit when no base key is given), and
// scores the set's added queries; it returns the runs and the notes.
func gateRetrieve(ctx context.Context, e *Env, r *Ruling, o GateOptions) (map[string]SideRun, []string, error) {
	keys := map[string]string{"base": o.CacheKeys["base"], "head": o.CacheKeys["head"]}
	if r.Base != nil && keys["base"] == "" {
		keys["base"] = r.Base.Tree.Commit
	}
	if r.Config.CacheDir != "" && !o.NoCache {
		e.Cache = &RunCache{Dir: r.Config.CacheDir, Keys: keys}
	}
	runs, notes, err := retrieveSides(ctx, e, r.Config, r.Set, r.Base, o.BaseRef != "" && r.Policy.Source != gate.PolicyBaseCommit, r.Once, r.Policy.Commit, slices.Clone(r.Notes))
	if err != nil {
		return nil, nil, err
	}
	if notes, err = r.Base.scoreAdded(ctx, e, r.Config, r.HeadSet, r.SetChanges, notes); err != nil {
		return nil, nil, err
	}
	return runs, notes, nil
}

// gateCompare saves the runs when asked, compares them by the ruling and
// writes the head's run as a drift baseline when asked.
func gateCompare(ctx context.Context, e *Env, r *Ruling, o GateOptions, runs map[string]SideRun, notes []string) (*gate.Comparison, error) {
	if err := saveRuns(o.SaveRuns, runs, r.Set); err != nil {
		return nil, err
	}
	cmp, err := compareRuns(e, r.Set, r.Config, r.Thresholds, runs["base"].First(), runs, notes, false, r.Reviewed)
	if err != nil {
		return nil, err
	}
	headLines(cmp, r.HeadSet)
	if err := writeBaseline(ctx, e, r.Config, r.Set, runs["head"], o.Baseline); err != nil {
		return nil, err
	}
	cmp.Policy, cmp.SetChanges = r.Policy, r.SetChanges
	if o.RecordCommits && r.Base != nil {
		recordCommits(ctx, cmp, o.Config.Path, r.Base.Tree.Commit)
	}
	return cmp, nil
}

// retrieveSides retrieves both sides of a gate on set (the base side's
// errors named in the base commit's paths when b is given); headOnly
// (a change that adopts recallgate, policyCommit the base commit) lets the
// head run alone when the base side cannot, with a note added to notes;
// once (the two sides one configuration, a baseline written) retrieves the
// head alone and lets its run be the base's too.
func retrieveSides(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, b *BaseSide, headOnly, once bool, policyCommit string, notes []string) (map[string]SideRun, []string, error) {
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
