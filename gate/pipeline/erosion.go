package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/internal/confine"
)

// MaxBaselineBytes bounds a baseline run, the reviewed one
// max_baseline_drop reads and a drift run's: a run of a hundred thousand
// queries with fifty hits each is under it. Only the set's queries are
// kept, each at most gate.MaxKeptHits(k) hits (LoadBaseline), so memory
// follows the set, not the file.
const MaxBaselineBytes = 256 << 20

// baselineFix is the fix of a reviewed baseline that cannot be read where
// a base commit judges.
const baselineFix = "the reviewed baseline is the base commit's, like the rest of the policy: commit it (recallgate gate --write-baseline FILE, reviewed) or fix the base config's baseline key on the base branch first; a baseline this change brings takes effect after merge"

// reviewedBaseline reads the reviewed baseline run that max_baseline_drop
// holds the head against (nil when th has no such rule), scored on the set
// the gate reads at the policy's depth d. With a base commit whose own
// config judges, the path is that config's and the file is read from the
// base commit's tree, never the checkout: a change that rewrites the
// baseline or points its own config elsewhere moves nothing before it
// merges. The path must stay inside that tree (no link out), and a base
// config that names a file its tree lacks is refused (fail closed). With
// a base commit but no config of its own (the change adopts recallgate),
// there is no reviewed baseline: the rule is skipped, saying why. Without
// a base commit, the given config's path is read, inside the workspace
// when there is one.
func reviewedBaseline(cfg *config.Config, th gate.Thresholds, d gate.Depth, set *gate.Set, b *BaseSide, workspace string) (_ *gate.ReviewedBaseline, err error) {
	if b != nil {
		defer func() { err = gate.WithFix(err, baselineFix) }()
	}
	if th.MaxBaselineDrop == nil {
		return nil, nil
	}
	if b != nil && !b.own {
		return &gate.ReviewedBaseline{Skipped: "the base commit " + ShortSHA(b.Tree.Commit) + " has no recallgate config, so there is no reviewed baseline to hold this change against (the rule applies once this config is merged)"}, nil
	}
	path, name, file, line := cfg.Baseline, cfg.Baseline, cfg.Path, cfg.BaselineLine
	if b != nil {
		path, file, line = b.cfg.Baseline, b.name, b.cfg.BaselineLine
		// Policy from the base commit with the rule but no baseline is
		// refused by the config reader; the flags may turn the rule on.
		if path == "" {
			return nil, &gate.InputError{File: file, Field: "baseline", Err: fmt.Errorf("%s is on, but the base commit's config names no baseline run", gate.RuleBaselineDrop)}
		}
		rel, ok := confine.Rel(b.Tree.Dir, path)
		if !ok {
			return nil, &gate.InputError{File: file, Line: line, Field: "baseline", Err: errors.New("the baseline run must be a path inside the repository: refused")}
		}
		rel = filepath.ToSlash(rel)
		name = rel + "@" + ShortSHA(b.Tree.Commit)
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, &gate.InputError{File: file, Line: line, Field: "baseline", Err: fmt.Errorf("the base commit's config names the baseline run %s, which the base commit's tree does not hold: commit the reviewed baseline on the base branch first (recallgate gate --write-baseline %s), or remove the key there", rel, rel)}
		}
		if !b.Tree.Inside(path) {
			return nil, &gate.InputError{File: file, Line: line, Field: "baseline", Err: fmt.Errorf("the baseline run %s is a link out of the base commit's tree: refused", rel)}
		}
	} else {
		if path == "" {
			return nil, &gate.InputError{File: file, Field: "baseline", Err: fmt.Errorf("%s is on, but the config names no baseline run", gate.RuleBaselineDrop)}
		}
		if err := InsideWorkspace(workspace, nil, path); err != nil {
			return nil, &gate.InputError{File: file, Line: line, Field: "baseline", Err: err}
		}
	}
	// Scored on the set the comparison scores on: a judge grade the
	// policy lets count (judgeView) counts for the baseline too.
	view, _, err := judgeView(cfg, th, set)
	if err != nil {
		return nil, err
	}
	return scoreBaseline(path, name, view, d)
}

// scoreBaseline reads the run at path (named name in errors and reports)
// and scores it on the set with today's labels through ScoreBaseline: a
// query it lacks, or whose text changed since it was written, is left out. A run larger than MaxBaselineBytes, not a run, or holding none of
// the set's queries is an *gate.InputError naming name (and the line).
func scoreBaseline(path, name string, set *gate.Set, d gate.Depth) (*gate.ReviewedBaseline, error) {
	rename := func(err error) error {
		if ie := new(gate.InputError); errors.As(err, &ie) && ie.File == path {
			ie.File = name
			ie.Err = errors.New(strings.ReplaceAll(ie.Err.Error(), path, name))
		}
		return fmt.Errorf("baseline run %s: %w", name, err)
	}
	abs, err := gate.CheckInputFile(path)
	if err != nil {
		return nil, &gate.InputError{File: name, Field: "baseline", Err: errors.New(strings.ReplaceAll(err.Error(), path, name))}
	}
	if fi, err := os.Stat(abs); err != nil || fi.Size() > MaxBaselineBytes {
		if err == nil {
			err = &gate.LimitError{What: "the baseline run", Limit: MaxBaselineBytes}
		}
		return nil, &gate.InputError{File: name, Field: "baseline", Err: err}
	}
	// Scored as a drift run scores its baseline: today's labels, and only
	// the queries it has whose text is unchanged.
	card, _, err := ScoreBaseline(context.Background(), path, set, d)
	if err != nil {
		return nil, rename(err)
	}
	out := &gate.ReviewedBaseline{Name: name, Recall: map[string]float64{}}
	for _, q := range card.Queries {
		out.Recall[q.ID] = q.Recall
	}
	return out, nil
}

// rewrittenBaseline is the note for a change that rewrites the base
// commit's baseline run at the same path: the base commit's file judged,
// the change's takes effect once merged. None when the file is the same,
// or the change names another path (its policy change says so).
func rewrittenBaseline(head *config.Config, b *BaseSide) []string {
	if head.Baseline == "" || b.cfg.Baseline == "" {
		return nil
	}
	baseRel, err := filepath.Rel(b.Tree.Dir, b.cfg.Baseline)
	if err != nil {
		return nil
	}
	_, headRel, err := b.Tree.Named(head.Baseline)
	if err != nil || headRel != filepath.ToSlash(baseRel) {
		return nil
	}
	if now := FingerprintFile(head.Baseline); now != FingerprintFile(b.cfg.Baseline) {
		what := "rewrites"
		if now == "" {
			what = "removes"
		}
		return []string{fmt.Sprintf("baseline: this change %s the baseline run %s; the base commit's (%s) judged it, the change's takes effect after merge", what, headRel, ShortSHA(b.Tree.Commit))}
	}
	return nil
}
