package pipeline

import (
	"context"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/baseline"
	"github.com/recallgate/recallgate/gate/config"
)

// DriftOptions are the choices of one drift run.
type DriftOptions struct {
	// Baseline is the stored run (written by a reviewed `gate
	// --write-baseline`) the head is compared against.
	Baseline string
	// AcceptChangedInputs is kept so that workflows which set it still
	// run: it does nothing, since a drift run compares across changed
	// inputs and names them.
	AcceptChangedInputs bool
}

// Drift is the nightly drift job: the head side retrieved now against the
// stored baseline run, both scored with today's set (a relabel is no
// drift). Whatever changed since the baseline (the set, the head's
// retriever table, the corpus, the policy) is compared, not refused, and
// named as the likely cause in the comparison's Baseline: for the corpus
// how (documents added, removed, edited, the gold among them), and in a
// git checkout the commits since the baseline's that touched an input.
// Queries new since the baseline or whose text changed are not compared;
// fewer than half of today's answerable queries comparable is refused
// (exit 2). On a drift run the max_missing_gold rule judges gold the
// corpus no longer holds. The ruling is the given config's (GivenRuling):
// a drift run has no base commit.
func Drift(ctx context.Context, e *Env, r *Ruling, o DriftOptions) (*gate.Comparison, error) {
	cfg, set := r.Config, r.Set
	bl, err := baseline.Load(ctx, o.Baseline, set, cfg.Depth.Candidates)
	if err != nil {
		return nil, gate.AtStage(gate.StageBaseline, "base", err)
	}
	check, err := checkBaseline(ctx, e, bl, cfg, set)
	if err != nil {
		return nil, gate.AtStage(gate.StageBaseline, "base", err)
	}
	runs, err := Retrieve(ctx, e, cfg, bl.Set, []string{"head"}, cfg.Depth.Candidates, 1)
	if err != nil {
		return nil, err
	}
	if runs["head"].Err != nil {
		return nil, runs["head"].Err
	}
	notes := []string{"baseline: " + o.Baseline}
	cmp, err := CompareRuns(e, bl.Set, cfg, r.Thresholds, bl.Results, runs, notes, true)
	if err != nil {
		return nil, err
	}
	cmp.Baseline = check
	return cmp, nil
}

// checkBaseline is what changed since the baseline (baseline.Run.Check,
// with the run's snapshot of the head's corpus: the one its index is built
// from) and, in a git checkout, the commits since it that touched an
// input.
func checkBaseline(ctx context.Context, e *Env, bl *baseline.Run, cfg *config.Config, set *gate.Set) (*gate.BaselineCheck, error) {
	snap, err := readCorpus(e, cfg.SideCorpus("head"), "to check the baseline")
	if err != nil {
		return nil, err
	}
	check := bl.Check(cfg, set, snap)
	m := bl.Meta
	if m.Commit == "" {
		if !baseline.Plain(m) { // else its one line says so
			check.Lacks = append(check.Lacks, "the baseline records no commit (it was made outside a git checkout): the commits since are not listed")
		}
		return check, nil
	}
	commits, more, err := CommitsSince(ctx, cfg, m.Commit)
	if err != nil {
		check.Lacks = append(check.Lacks, "the commits since the baseline's "+ShortSHA(m.Commit)+" are not listed: "+plainText(err.Error()))
	}
	check.Commits, check.MoreCommits = commits, more
	for i, c := range check.Changed {
		if c.Input == gate.InputRetriever {
			check.Changed[i].Files = RetrieverFiles(ctx, cfg, m.Commit)
		}
	}
	return check, nil
}

// BaselineRecord is the metadata line `gate --write-baseline` writes
// beside the head's run (baseline.Record): with the run's snapshot of the
// head's corpus and the commit checked out where the config is, each
// warned about when it cannot be recorded.
func BaselineRecord(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, head SideRun) (gate.RunMeta, error) {
	commit, err := headCommit(ctx, cfg)
	if err != nil {
		e.Warn("%s: the baseline records no commit, so a drift run cannot list the commits since: %v", cfg.Path, err)
	}
	snap, err := readCorpus(e, cfg.SideCorpus("head"), "for the baseline")
	if err != nil {
		return gate.RunMeta{}, err
	}
	m, tooMany := baseline.Record(cfg, set, head.Config, snap, commit, e.Clock())
	if tooMany {
		e.Warn("%s: the corpus has over %d documents: the baseline records no per-document hashes, so a drift run cannot say which documents changed", snap.Path, baseline.MaxDocs)
	}
	return m, nil
}
