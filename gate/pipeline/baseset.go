package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/proposal"
	"github.com/recallgate/recallgate/internal/confine"
)

// setFix is the fix of a base commit's set that cannot be read: like its
// policy, it is fixed on the base branch.
const setFix = "the base commit's eval set is the ruler this change is scored on: fix the base config's set, qrels or queries key (or the file it names) on the base branch first; a set this change brings takes effect after merge"

// RulerSet is the set a pull request is scored on and what the change's
// own set proposes to change in it.
type RulerSet struct {
	// Set scores both sides: the base commit's set where it has one, else
	// the head's.
	Set *gate.Set
	// Changes say which set that is and what the head's set proposes.
	Changes *gate.SetChanges
	// Note says what was scored, for the report ("" for none).
	Note string
}

// Ruler is the set a change is scored on: the base commit's, found
// through the base commit's own config (its set and queries keys read in
// its tree, so a set the change moved or renamed is still found), loaded
// with the same confinement and limits as the head's; the head's set is
// then a proposal (proposal.Compute). Without a base set (the base commit
// has no config of its own, or its config names a set its tree lacks:
// the change adopts recallgate or adds the set), the head's set scores
// both sides, as before.
func (b *BaseSide) Ruler(head *gate.Set) (*RulerSet, error) {
	bs, err := b.loadSet()
	if err != nil {
		return nil, b.Named(gate.WithFix(gate.AtStage(gate.StageSet, "base", err), setFix))
	}
	if bs == nil {
		return &RulerSet{Set: head, Changes: &gate.SetChanges{Source: gate.SetGiven, Queries: len(head.Queries)}, Note: b.headSetNote(head)}, nil
	}
	rs := &RulerSet{Set: bs, Changes: proposal.Compute(bs, head)}
	if bs.Fingerprint != head.Fingerprint {
		rs.Note = fmt.Sprintf("set: the base commit's %s (%d queries) scored both sides; this change's set (%d queries) is a proposal that takes effect after merge", bs.Path, len(bs.Queries), len(head.Queries))
	}
	return rs, nil
}

// loadSet loads the base commit's set, nil when there is none to load.
func (b *BaseSide) loadSet() (*gate.Set, error) {
	if !b.own || b.cfg.Set == "" {
		return nil, nil
	}
	short := ShortSHA(b.Tree.Commit)
	name := func(p string) (string, error) {
		rel, ok := confine.Rel(b.Tree.Dir, p)
		if !ok {
			return "", &gate.InputError{File: b.name, Field: "set", Err: errors.New("the eval set must be a path inside the repository: refused")}
		}
		if !b.Tree.Inside(p) {
			return "", &gate.InputError{File: b.name, Field: "set", Err: fmt.Errorf("%s is a link out of the base commit's tree: refused", filepath.ToSlash(rel))}
		}
		return filepath.ToSlash(rel) + "@" + short, nil
	}
	if _, err := os.Lstat(b.cfg.Set); errors.Is(err, fs.ErrNotExist) {
		if err := b.unprovided(b.cfg.Set, "set"); err != nil {
			return nil, err
		}
		return nil, nil // the change adds the set the base config names
	}
	setName, err := name(b.cfg.Set)
	if err != nil {
		return nil, err
	}
	if b.cfg.Queries != "" {
		if _, err := name(b.cfg.Queries); err != nil {
			return nil, err
		}
		if _, err := os.Lstat(b.cfg.Queries); errors.Is(err, fs.ErrNotExist) {
			if err := b.unprovided(b.cfg.Queries, "queries"); err != nil {
				return nil, err
			}
		}
	}
	set, err := LoadSetFor(&config.Config{Path: b.name, Set: b.cfg.Set, Queries: b.cfg.Queries}, "")
	if err != nil {
		return nil, err
	}
	set.Path = setName
	return set, nil
}

// unprovided is the error for a file the base config names (key: set or
// queries) that its tree lacks although the base commit holds it: under
// one of its submodules (another repository's commit, never in the base
// tree), or listed and not written (a checkout or an archive that could
// not give it). Scoring on the change's set in its place would let the
// change pick its own ruler, so the gate stops (exit 3). nil when the
// base commit does not hold the path at all: the change adds it.
func (b *BaseSide) unprovided(p, key string) error {
	rel, ok := confine.Rel(b.Tree.Dir, p)
	if !ok {
		return nil // name() refuses it
	}
	has, sub := b.Tree.Lists(filepath.ToSlash(rel))
	var why string
	switch {
	case sub != "":
		why = fmt.Sprintf("is inside the submodule %s of the base commit (another repository's commit, which the base commit's tree does not hold)", sub)
	case has:
		why = "is in the base commit's listing but not in its tree (a sparse checkout, an archive or a download that left it out)"
	default:
		return nil
	}
	err := fmt.Errorf("%s %s; it is the base config's %s, so the change cannot be scored on the base commit's set, and its own set is never used in its place", p, why, key)
	return gate.WithFix(&gate.InfraError{Err: err}, "keep the eval set the base config names in this repository's own files (not in a submodule), committed on the base branch; or check the base commit out whole")
}

// headSetNote is the note on the head's set scoring both sides where the
// base commit has no set: new in this change, or changed (naming what the
// change drops or relabels, see setChanges).
func (b *BaseSide) headSetNote(set *gate.Set) string {
	p, err := b.Tree.Map(set.Path)
	if err != nil {
		return ""
	}
	switch baseSet := FingerprintFile(p); {
	case baseSet == "":
		return "the eval set is new in this change; both sides are scored on it"
	case baseSet != set.Fingerprint:
		return fmt.Sprintf("the eval set changed in this change; both sides are scored on the head's set (%d queries)%s", len(set.Queries), setChanges(p, set))
	}
	return ""
}

// rule is Ruler for a caller that keeps notes: the set to score on, its
// changes, and notes with Ruler's note added; cfg (the config the sides
// are judged with) keeps only the waivers whose query that set holds.
func (b *BaseSide) rule(cfg *config.Config, head *gate.Set, notes []string) (*gate.Set, *gate.SetChanges, []string, error) {
	rs, err := b.Ruler(head)
	if err != nil {
		return nil, nil, nil, err
	}
	if rs.Note != "" {
		notes = append(notes, rs.Note)
	}
	cfg.Waivers = waiversOn(cfg.Waivers, rs.Set)
	return rs.Set, rs.Changes, notes, nil
}

// checkGoldHeld is CheckGoldHeld on the set that scores and on the head's
// where it is a proposal: a label no corpus holds is refused now, not
// once it is the ruler.
func checkGoldHeld(e *Env, cfg *config.Config, baseCorpus string, set, head *gate.Set) error {
	for _, s := range slices.Compact([]*gate.Set{set, head}) {
		if err := CheckGoldHeld(e, s, cfg.SideCorpus("head"), baseCorpus); err != nil {
			return gate.AtStage(gate.StageSet, "", err)
		}
	}
	return nil
}

// scoreAdded retrieves the queries the head's set adds (sc.Added, ids of
// head) on both sides, scores them with the head's labels at cfg's
// depths, and says so in a note added to notes: listed, never gating
// before they are merged. Nothing to do without such queries.
func (b *BaseSide) scoreAdded(ctx context.Context, e *Env, cfg *config.Config, head *gate.Set, sc *gate.SetChanges, notes []string) ([]string, error) {
	if sc == nil || len(sc.Added) == 0 {
		return notes, nil
	}
	want := map[string]bool{}
	for _, id := range sc.Added {
		want[id] = true
	}
	set, _ := head.Only(func(id string) bool { return want[id] })
	runs, err := Retrieve(ctx, e, cfg, set, []string{"base", "head"}, cfg.Depth.Candidates, 1)
	if err == nil {
		err = errors.Join(runs["base"].Err, runs["head"].Err)
	}
	if err != nil {
		return nil, b.Named(fmt.Errorf("retrieve the queries this change adds: %w", err))
	}
	var cards [2]*gate.Scorecard
	for i, side := range []string{"base", "head"} {
		if cards[i], err = gate.ScoreResults(set, runs[side].First(), cfg.Depth); err != nil {
			return nil, fmt.Errorf("score the queries this change adds (%s): %w", side, err)
		}
	}
	shown := make([]string, len(set.Queries))
	for i, q := range set.Queries {
		shown[i] = fmt.Sprintf("%s %.3f → %.3f", gate.ClipID(q.ID), cards[0].Queries[i].Recall, cards[1].Queries[i].Recall)
	}
	return append(notes, fmt.Sprintf("proposed queries, scored on both sides with this change's labels and not gating until merged (recall@%d base → head): %s",
		cfg.Depth.Candidates, gate.JoinFirst(shown, proposal.MaxListed))), nil
}

// headLines points each compared query's line at the head's set, the file
// of the checkout the reports and annotations name (0 for a query the
// head's set drops), once the base commit's set has scored both sides.
func headLines(cmp *gate.Comparison, head *gate.Set) {
	if cmp.Set == head {
		return
	}
	for _, q := range cmp.Set.Queries {
		q.Line = 0
		if h := head.Query(q.ID); h != nil {
			q.Line = h.Line
		}
	}
}

// runFilesFix is the fix of run files a pull request's job made on its own
// set, scored on the base commit's.
const runFilesFix = "this change's eval set differs from the base commit's, which scores both runs on a pull request: retrieve each side with `recallgate retrieve --base-ref BASE` (either side then retrieves the base commit's set)"

// waiversOn are the waivers whose query set holds: a waiver the change
// writes for a query it adds (or renames) has nothing to waive before
// merge, since that query does not gate.
func waiversOn(ws []gate.Waiver, set *gate.Set) []gate.Waiver {
	return slices.DeleteFunc(slices.Clone(ws), func(w gate.Waiver) bool { return set.Query(w.Query) == nil })
}
