package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/config"
)

// Ruling is the ruler a comparison is judged by, resolved once before
// anything is retrieved: on a pull request from the base commit (its
// policy, its set, its judge and its base retriever; the change's own are
// a proposal), off one from the given config. Gate, CI and Drift take it;
// nothing after ResolveRuling reassigns what it holds.
type Ruling struct {
	// Given is the config as given: the head's on a pull request.
	Given *config.Config
	// Config is the config both sides are judged with: the base commit's
	// policy, depths, repeats, judge identity and base retriever over the
	// given config's head side (BaseSide.Sides), its waivers those on Set;
	// the given config off a pull request.
	Config *config.Config
	// Thresholds decide the verdict: the policy's, with the caller's
	// overrides where they apply.
	Thresholds gate.Thresholds
	// Set scores both sides (the base commit's where it has one); HeadSet
	// is the given one, a proposal when it differs, and SetChanges says
	// which scored and what the head's proposes (nil off a pull request).
	Set, HeadSet *gate.Set
	SetChanges   *gate.SetChanges
	// Policy says which config judged and what the change would change in
	// it (nil for run files compared off a pull request, as ever).
	Policy *gate.PolicyReport
	// Reviewed is the reviewed baseline max_baseline_drop holds the head
	// against (nil: no such rule).
	Reviewed *gate.ReviewedBaseline
	// Notes say what was resolved, for the report.
	Notes []string
	// Base is the base commit's side (nil off a pull request); Close
	// removes its tree.
	Base *BaseSide
	// BaseCorpus is the base side's corpus.
	BaseCorpus string
	// Once says one retrieval serves both sides: off a pull request with
	// one configuration on both, writing a baseline (no comparison made).
	Once bool
}

// Close removes the base commit's tree, if any.
func (r *Ruling) Close() {
	if r != nil && r.Base != nil {
		r.Base.Tree.Close()
	}
}

// GivenRuling is the ruling off a pull request: the given config and set,
// its thresholds, nothing else resolved (no reviewed baseline read).
func GivenRuling(cfg *config.Config, set *gate.Set) *Ruling {
	return &Ruling{Given: cfg, Config: cfg, Thresholds: cfg.Thresholds, Set: set, HeadSet: set,
		Policy: &gate.PolicyReport{Source: gate.PolicyGivenConfig}, BaseCorpus: cfg.SideCorpus("base")}
}

// RulingOptions are what ResolveRuling needs besides the given config and
// set; each field but Files is its namesake's in GateOptions
// (WriteBaseline is GateOptions.Baseline).
type RulingOptions struct {
	Thresholds gate.Thresholds
	Overrides  func(*gate.Thresholds) error
	BaseRef    string
	Workspace  string
	Archive    basetree.ArchiveSource
	TempDir    string
	// Files says the sides are run files compared as they are: the base
	// commit's config is read for its policy alone, and what only a
	// retrieval needs (one configuration on both sides, the same service,
	// gold the corpus holds) is not checked.
	Files          bool
	AllowIdentical bool
	IdenticalFix   string
	WriteBaseline  string
}

// OpenRuling is the first step of a ruling: with a base commit (o.Ref),
// its tree opened (the caller closes the ruling) and its config put over
// the given one (BaseSide.Sides: its policy, depths, judge and base
// retriever), its policy report and notes; the set and the checks are not
// resolved yet. Without one, GivenRuling. An experiment's ruling is this
// step alone: its variants are ranked on the given set.
func OpenRuling(ctx context.Context, e *Env, given *config.Config, set *gate.Set, o BaseOptions) (*Ruling, error) {
	r := GivenRuling(given, set)
	if o.Ref == "" {
		return r, nil
	}
	b, err := OpenBase(ctx, e, given, set, o)
	if err != nil {
		return nil, err
	}
	r.Base, r.BaseCorpus = b, b.cfg.SideCorpus("base")
	r.Config, r.Notes, r.Policy = b.Sides(given), slices.Clone(b.Notes), b.Policy(given)
	r.Thresholds = r.Config.Thresholds
	return r, nil
}

// ResolveRuling resolves the ruler once: OpenRuling, then with a base
// commit its set as the ruler (the given one a proposal) and, where its
// own config judges, its thresholds (the caller's overrides over them);
// then the checks that refuse a ruler before any retrieval (one
// configuration on both sides, the same service, the waivers' days, the
// reviewed baseline, gold no corpus holds).
func ResolveRuling(ctx context.Context, e *Env, given *config.Config, set *gate.Set, o RulingOptions) (_ *Ruling, err error) {
	r, err := OpenRuling(ctx, e, given, set, BaseOptions{Ref: o.BaseRef, Workspace: o.Workspace, Archive: o.Archive, TempDir: o.TempDir, PolicyOnly: o.Files})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	added := given.AddedWaivers(nil)
	if r.Policy == nil || r.Policy.Source != gate.PolicyBaseCommit {
		r.Thresholds = o.Thresholds // the given config's policy, with the flags
	}
	if b := r.Base; b != nil {
		if o.Files {
			r.Notes = nil
		}
		// The set is the ruler too: the base commit's scores both sides.
		if r.Set, r.SetChanges, r.Notes, err = b.rule(r.Config, set, r.Notes); err != nil {
			return nil, err
		}
		if !o.Files && r.Config.Base.Fingerprint() == r.Config.Head.Fingerprint() {
			if err := SameCommit(ctx, e, given.Path, o.BaseRef, b.Tree.Commit, o.AllowIdentical); err != nil {
				return nil, err
			}
		}
		added = b.AddedWaivers(given)
		if r.Policy.Source == gate.PolicyBaseCommit {
			// (A change that adopts recallgate has no base side to see.)
			if !o.Files {
				if err := SameService(e, r.Config, o.AllowIdentical); err != nil {
					return nil, err
				}
			}
			if o.Overrides != nil {
				if err := o.Overrides(&r.Thresholds); err != nil {
					return nil, err
				}
			}
			r.Notes = append(r.Notes, policyNote(b.Tree.Commit))
		}
	} else if o.Files {
		r.Policy = nil // run files off a pull request: no policy to report
	} else if o.WriteBaseline != "" && errors.Is(IdenticalSides(e, r.Config, false, ""), ErrIdenticalSides) {
		// Writing a baseline needs no comparison: one retrieval, no refusal.
		r.Once = true
		r.Notes = append(r.Notes, fmt.Sprintf("no comparison was made: base and head are one retriever configuration in this checkout (no --base-ref), so the set was retrieved once, to write the baseline %s; pass --base-ref to gate a change", o.WriteBaseline))
	} else if err := IdenticalSides(e, r.Config, o.AllowIdentical, o.IdenticalFix); err != nil {
		return nil, err
	}
	// Run files off a pull request keep the given config's waivers unchecked, as ever.
	if !o.Files || r.Base != nil {
		if err := given.CheckWaiverDays(added, e.Clock(), r.Config.MaxWaiverDays); err != nil {
			return nil, err
		}
	}
	// Before any retrieval: a baseline the policy names but cannot read
	// stops the gate now.
	if r.Reviewed = writesNamedBaseline(given, r.Config, r.Thresholds, r.Base, o.WriteBaseline); r.Reviewed == nil {
		if r.Reviewed, err = reviewedBaseline(r.Config, r.Thresholds, r.Config.Depth, r.Set, r.Base, o.Workspace); err != nil {
			return nil, r.Base.Named(gate.AtStage(gate.StageBaseline, "", err))
		}
	}
	if r.Base != nil && r.Reviewed != nil && r.Reviewed.Recall != nil {
		r.Notes = append(r.Notes, rewrittenBaseline(given, r.Base)...)
	}
	if !o.Files {
		if err := checkGoldHeld(e, r.Config, r.BaseCorpus, r.Set, r.HeadSet); err != nil {
			return nil, err
		}
	}
	return r, nil
}
