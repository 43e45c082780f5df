package baseline

import (
	"fmt"
	"slices"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/corpus"
)

// MaxBytes bounds a baseline run, the reviewed one max_baseline_drop
// reads and a drift run's: a run of a hundred thousand queries with fifty
// hits each is under it. Only the set's queries are kept, each at most
// input.MaxKeptHits(k) hits (Load), so memory follows the set, not the
// file.
const MaxBytes = 256 << 20

// MaxDocs is the largest corpus whose per-document hashes a drift
// baseline records: past it the metadata line would near the run line's
// bound (gate.MaxRunLineBytes), and a drift run says how the corpus changed is
// not known.
const MaxDocs = 200_000

// Check compares what the baseline recorded with today's set, head
// retriever table, corpus (snap: the head's, config.SideCorpus; nil when
// none is known) and policy, and says how the corpus changed. The commits
// since the baseline's are the caller's to list (they need git).
func (b *Run) Check(cfg *config.Config, set *gate.Set, snap *corpus.Snapshot) *gate.BaselineCheck {
	m := b.Meta
	recorded := map[string]string{gate.InputSet: m.Set, gate.InputRetriever: m.Config, gate.InputCorpus: m.Corpus, gate.InputPolicy: m.Policy}
	now := map[string]string{gate.InputSet: set.Fingerprint, gate.InputPolicy: gate.PolicyFingerprint(cfg.Thresholds, cfg.Depth)}
	if cfg.Head != nil {
		now[gate.InputRetriever] = cfg.Head.Fingerprint()
	}
	if snap != nil {
		now[gate.InputCorpus] = snap.Fingerprint
	}
	c := checkInputs(recorded, now)
	check := &c
	check.Commit, check.Made = m.Commit, m.Made
	check.NewQueries, check.EditedQueries, check.RemovedQueries = b.New, b.Edited, b.Removed
	switch {
	case Plain(m):
		what := "no policy or commit recorded, so a change of the policy and the commits since are not checked"
		if m.Queries == nil {
			what = "no policy, commit or query text hashes recorded, so a change of the policy, a query whose text changed and the commits since are not checked"
		}
		check.Lacks = append(check.Lacks, gate.PlainBaseline+": "+what+"; write the nightly's baseline with recallgate gate --write-baseline FILE")
	case m.Queries == nil:
		check.Lacks = append(check.Lacks, "the baseline records no query text hashes (it was not written by gate --write-baseline): a query whose text changed since is compared as if it had not")
	}
	for _, ch := range check.Changed {
		if ch.Input != gate.InputCorpus {
			continue
		}
		var docs map[string]string
		if m.Docs != nil {
			docs = snap.Hashes(len(snap.Docs))
		}
		if docs == nil {
			check.Lacks = append(check.Lacks, "the baseline records no document hashes (its corpus was over "+fmt.Sprint(MaxDocs)+" documents, or it was not written by gate --write-baseline): how the corpus changed is not known")
			break
		}
		gold := map[string]bool{}
		for _, q := range set.Queries {
			for d := range q.Gold {
				gold[d] = true
			}
		}
		check.Corpus = DiffCorpus(m.Docs, docs, gold)
	}
	return check
}

// Plain reports whether a baseline's record is a plain run's: none of
// what gate --write-baseline records beside the fingerprints and the
// query text hashes (the policy, the commit, the time it was made), as
// retrieve --out and gate --save-runs write it. Reports say so
// (gate.PlainBaseline), never that the file is older than it is.
func Plain(m gate.RunMeta) bool {
	return m.Policy == "" && m.Commit == "" && m.Made == ""
}

// DiffCorpus compares the document hashes a baseline recorded with
// today's (both id → corpus.DocHash); gold says which ids are gold in today's set.
func DiffCorpus(then, now map[string]string, gold map[string]bool) *gate.CorpusChange {
	c := &gate.CorpusChange{}
	for id, h := range now {
		switch old, ok := then[id]; {
		case !ok:
			c.Added++
			if gold[id] {
				c.GoldAdded = append(c.GoldAdded, id)
			}
		case old != h:
			c.Edited++
			if gold[id] {
				c.GoldEdited = append(c.GoldEdited, id)
			}
		}
	}
	for id := range then {
		if _, ok := now[id]; !ok {
			c.Removed++
			if gold[id] {
				c.GoldRemoved = append(c.GoldRemoved, id)
			}
		}
	}
	slices.Sort(c.GoldAdded)
	slices.Sort(c.GoldRemoved)
	slices.Sort(c.GoldEdited)
	return c
}

// Record is the metadata line `gate --write-baseline` writes beside the
// head's run: the set, the head's retriever table (headConfig, its
// fingerprint), the corpus (snap, nil when none is known) and the policy
// fingerprints, the commit of the checkout holding the config ("" when
// not known) and the time it was made, each query's text hash and each
// document's content hash (none past MaxDocs documents: tooMany says so),
// so a drift run can say what changed.
func Record(cfg *config.Config, set *gate.Set, headConfig string, snap *corpus.Snapshot, commit string, made time.Time) (m gate.RunMeta, tooMany bool) {
	m = gate.RunMeta{Set: set.Fingerprint, Config: headConfig, Commit: commit,
		Policy: gate.PolicyFingerprint(cfg.Thresholds, cfg.Depth), Made: made.UTC().Format(time.RFC3339), Queries: map[string]string{}}
	for _, q := range set.Queries {
		m.Queries[q.ID] = gate.TextHash(q)
	}
	if snap != nil {
		m.Corpus = snap.Fingerprint
		m.Docs = snap.Hashes(MaxDocs)
		tooMany = m.Docs == nil
	}
	return m, tooMany
}

// checkInputs compares the fingerprints a baseline recorded with those
// of now, both keyed by gate.BaselineInputs ("" or absent: not known). An input
// not known now is not compared.
func checkInputs(recorded, now map[string]string) gate.BaselineCheck {
	var c gate.BaselineCheck
	for _, in := range gate.BaselineInputs {
		n := now[in]
		switch r := recorded[in]; {
		case n == "":
		case r == "":
			c.Unrecorded = append(c.Unrecorded, in)
		case r != n:
			c.Changed = append(c.Changed, gate.InputChange{Input: in, Baseline: r, Now: n})
		}
	}
	return c
}
