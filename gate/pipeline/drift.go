package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/retriever/file"
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
// corpus no longer holds.
func Drift(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, o DriftOptions) (*gate.Comparison, error) {
	bl, err := LoadBaseline(ctx, o.Baseline, set, cfg.Depth.Candidates)
	if err != nil {
		return nil, gate.AtStage(gate.StageBaseline, "base", err)
	}
	check, err := bl.check(ctx, cfg, set)
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
	cmp, err := CompareRuns(e, bl.Set, cfg, cfg.Thresholds, bl.Results, runs, notes, true)
	if err != nil {
		return nil, err
	}
	cmp.Baseline = check
	return cmp, nil
}

// BaselineRun is a stored drift baseline read against today's set: the
// queries it can be compared on and its results for them.
type BaselineRun struct {
	// Path is the baseline file; Meta its metadata line.
	Path string
	Meta gate.RunMeta
	// Set is today's set with only the queries compared: those the
	// baseline has a result for and whose text it recorded unchanged.
	Set *gate.Set
	// Results are the baseline's results for Set's queries, in set order.
	Results []gate.Result
	// New are today's queries the baseline lacks, Edited those whose text
	// changed since it was made (in set order); Removed counts the
	// baseline's queries today's set lacks.
	New, Edited []string
	Removed     int
}

// LoadBaseline reads the baseline run at path (`gate --write-baseline`)
// against today's set, keeping the queries it can be compared on (see
// BaselineRun), k hits each. A metadata value that is not what recallgate
// writes is refused naming it, and so is a baseline on which fewer than
// half of today's answerable queries can be compared (*gate.InputError,
// exit 2).
func LoadBaseline(ctx context.Context, path string, set *gate.Set, k int) (*BaselineRun, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxBaselineBytes {
		return nil, &gate.InputError{File: path, Field: "baseline", Err: fmt.Errorf("%w: a baseline holds a run of the set's queries; write it again from the set (recallgate gate --write-baseline FILE)", &gate.LimitError{What: fmt.Sprintf("the baseline run (%s)", gate.FormatBytes(fi.Size())), Limit: MaxBaselineBytes})}
	}
	// Only today's queries are kept, each at most the hits an answer
	// keeps: the others are counted (a baseline of ids the set never had
	// costs the memory of one line).
	rf, others, err := file.LoadOnly(path, func(id string) bool { return set.Query(id) != nil }, gate.MaxKeptHits(k))
	if err != nil {
		return nil, fmt.Errorf("load baseline: %w", err)
	}
	b := &BaselineRun{Path: path, Meta: rf.Meta()}
	if err := checkMeta(path, b.Meta); err != nil {
		return nil, err
	}
	// A query is left out only when today's set proves it changed: with
	// the set the baseline records byte for byte today's, no text changed,
	// whatever the baseline's own text hashes claim (forged, or a query
	// with a run line left out of them).
	hashes := b.Meta.Queries
	if b.Meta.Set != "" && b.Meta.Set == set.Fingerprint {
		hashes = nil
	}
	edited := map[string]bool{}
	for _, q := range set.Queries {
		switch h, ok := hashes[q.ID]; {
		case !rf.Has(q.ID) || (hashes != nil && !ok):
			b.New = append(b.New, q.ID)
		case ok && h != gate.TextHash(q):
			b.Edited = append(b.Edited, q.ID)
			edited[q.ID] = true
		}
	}
	b.Removed = others
	if hashes != nil {
		b.Removed = 0
		for id := range hashes {
			if set.Query(id) == nil {
				b.Removed++
			}
		}
	}
	b.Set, _ = set.Only(func(id string) bool {
		return rf.Has(id) && !edited[id] && (hashes == nil || hashes[id] != "")
	})
	if len(b.Set.Queries) == 0 {
		return nil, &gate.InputError{File: path, Field: "baseline", Err: fmt.Errorf("the baseline run names no query of %s it can compare (%d queries, %d new since it was made, %d whose text changed): write it again from this set (recallgate gate --write-baseline FILE)", set.Path, len(set.Queries), len(b.New), len(b.Edited))}
	}
	if all, kept := set.Answerable(), b.Set.Answerable(); kept*2 < all {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("only %d of today's %d answerable queries can be compared with this baseline (%d new since it was made, %d whose text changed): fewer than half, so the comparison would say little; write a new baseline after review (recallgate gate --write-baseline %s)",
			kept, all, len(b.New), len(b.Edited), path)}
	}
	if b.Results, err = gate.RetrieveAll(ctx, "baseline", b.Set, rf, gate.RetrieveOptions{K: k, Concurrency: 1}); err != nil {
		return nil, err
	}
	return b, nil
}

// Score scores the baseline's results with today's labels (Set's), at d.
func (b *BaselineRun) Score(d gate.Depth) (*gate.Scorecard, error) {
	c, err := gate.ScoreResults(b.Set, b.Results, d)
	if err != nil {
		return nil, fmt.Errorf("score baseline %s: %w", b.Path, err)
	}
	return c, nil
}

// ScoreBaseline scores a stored baseline run with today's set: the
// baseline's hits judged by today's labels (a relabel is no change), on
// the queries it can be compared on (LoadBaseline: those it has a result
// for and whose text is unchanged). The BaselineRun says which queries
// were left out; its Set is the one to score the other side on, so both
// means are over the same queries.
func ScoreBaseline(ctx context.Context, path string, set *gate.Set, d gate.Depth) (*gate.Scorecard, *BaselineRun, error) {
	b, err := LoadBaseline(ctx, path, set, d.Candidates)
	if err != nil {
		return nil, nil, err
	}
	c, err := b.Score(d)
	return c, b, err
}

// checkMeta refuses a metadata value that is not what recallgate writes,
// naming its field on line 1.
func checkMeta(path string, m gate.RunMeta) error {
	bad := func(field, why string, v string) error {
		return &gate.InputError{File: path, Line: 1, Field: "recallgate." + field, Err: fmt.Errorf("%.80q is not %s", v, why)}
	}
	for _, f := range []struct{ field, v string }{{"set", m.Set}, {"config", m.Config}, {"corpus", m.Corpus}, {"policy", m.Policy}} {
		if f.v != "" && !gate.IsFingerprint(f.v) {
			return bad(f.field, "a fingerprint (sha256: and 64 hex digits)", f.v)
		}
	}
	if m.Commit != "" && !report.IsCommitSHA(m.Commit) {
		return bad("commit", "a commit hash", m.Commit)
	}
	if m.Made != "" {
		if _, err := time.Parse(time.RFC3339, m.Made); err != nil {
			return bad("made", "a time (RFC 3339)", m.Made)
		}
	}
	for what, hs := range map[string]map[string]string{"queries": m.Queries, "docs": m.Docs} {
		for id, h := range hs {
			if !gate.IsShortHash(h) {
				return bad(what+"."+gate.Visible(id), "a content hash (16 hex digits)", h)
			}
		}
	}
	return nil
}

// check compares what the baseline recorded with today's set, head
// retriever table, corpus (CorpusFor's) and policy, and says how the
// corpus changed and which commits since the baseline's touched them.
func (b *BaselineRun) check(ctx context.Context, cfg *config.Config, set *gate.Set) (*gate.BaselineCheck, error) {
	m := b.Meta
	recorded := map[string]string{gate.InputSet: m.Set, gate.InputRetriever: m.Config, gate.InputCorpus: m.Corpus, gate.InputPolicy: m.Policy}
	now := map[string]string{gate.InputSet: set.Fingerprint, gate.InputPolicy: gate.PolicyFingerprint(cfg.Thresholds, cfg.Depth)}
	if cfg.Head != nil {
		now[gate.InputRetriever] = cfg.Head.Fingerprint()
	}
	var docs map[string]string
	if c := CorpusFor("", cfg); c != "" {
		sum := gate.NewCorpusHash()
		if m.Docs != nil {
			docs = map[string]string{}
		}
		if err := gate.WalkCorpus(c, func(d gate.Document) error {
			sum.Add(d)
			if docs != nil {
				docs[d.ID] = gate.DocHash(d)
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("read corpus to check the baseline: %w", err)
		}
		now[gate.InputCorpus] = sum.Sum()
	}
	c := gate.CheckBaseline(recorded, now)
	check := &c
	check.Commit, check.Made = m.Commit, m.Made
	check.NewQueries, check.EditedQueries, check.RemovedQueries = b.New, b.Edited, b.Removed
	if m.Queries == nil {
		check.Lacks = append(check.Lacks, "the baseline records no query text hashes (an older baseline): a query whose text changed since is compared as if it had not")
	}
	for _, ch := range check.Changed {
		if ch.Input != gate.InputCorpus {
			continue
		}
		if docs == nil {
			check.Lacks = append(check.Lacks, "the baseline records no document hashes (an older baseline, or a corpus over "+fmt.Sprint(gate.MaxBaselineDocs)+" documents): how the corpus changed is not known")
			break
		}
		gold := map[string]bool{}
		for _, q := range set.Queries {
			for d := range q.Gold {
				gold[d] = true
			}
		}
		check.Corpus = gate.DiffCorpus(m.Docs, docs, gold)
	}
	if m.Commit == "" {
		check.Lacks = append(check.Lacks, "the baseline records no commit (an older baseline, or one made outside a git checkout): the commits since are not listed")
		return check, nil
	}
	commits, more, err := CommitsSince(ctx, cfg, m.Commit)
	if err != nil {
		check.Lacks = append(check.Lacks, "the commits since the baseline's "+ShortSHA(m.Commit)+" are not listed: "+plainText(err.Error()))
	}
	check.Commits, check.MoreCommits = commits, more
	return check, nil
}

// BaselineRecord is the metadata line `gate --write-baseline` writes
// beside the head's run: the set, the head's retriever table, the corpus
// and the policy fingerprints, the commit of the checkout holding the
// config and the time it was made, each query's text hash and each
// document's content hash (none past gate.MaxBaselineDocs documents, with
// a warning), so a drift run can say what changed.
func BaselineRecord(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, head SideRun, cmp *gate.Comparison) (gate.RunMeta, error) {
	var err error
	m := gate.RunMeta{Set: set.Fingerprint, Config: head.Config, Corpus: Fingerprint(cmp.Fingerprints, gate.InputCorpus),
		Policy: gate.PolicyFingerprint(cfg.Thresholds, cfg.Depth), Made: e.Clock().UTC().Format(time.RFC3339), Queries: map[string]string{}}
	for _, q := range set.Queries {
		m.Queries[q.ID] = gate.TextHash(q)
	}
	if m.Commit, err = headCommit(ctx, cfg); err != nil {
		e.Warn("%s: the baseline records no commit, so a drift run cannot list the commits since: %v", cfg.Path, err)
	}
	if c := CorpusFor("", cfg); c != "" {
		m.Docs = map[string]string{}
		err = gate.WalkCorpus(c, func(d gate.Document) error {
			if len(m.Docs) == gate.MaxBaselineDocs {
				return errTooManyDocs
			}
			m.Docs[d.ID] = gate.DocHash(d)
			return nil
		})
		switch {
		case errors.Is(err, errTooManyDocs):
			m.Docs = nil
			e.Warn("%s: the corpus has over %d documents: the baseline records no per-document hashes, so a drift run cannot say which documents changed", c, gate.MaxBaselineDocs)
		case err != nil:
			return m, fmt.Errorf("read corpus for the baseline: %w", err)
		}
	}
	return m, nil
}

var errTooManyDocs = errors.New("too many documents")
