// Package baseline reads a drift baseline (the head's run a reviewed
// `gate --write-baseline` stored, with what it was made from) against
// today: the queries it can be compared on, its scorecard with today's
// labels, what changed since it (the set, the retriever, the corpus
// document by document, the policy), and the record a new one carries.
package baseline

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/fingerprint"
	"github.com/recallgate/recallgate/gate/input"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/retrieval"
	"github.com/recallgate/recallgate/gate/retriever/file"
)

// Run is a stored drift baseline read against today's set: the
// queries it can be compared on and its results for them.
type Run struct {
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

// Load reads the baseline run at path (`gate --write-baseline`)
// against today's set, keeping the queries it can be compared on (see
// Run), k hits each. A metadata value that is not what recallgate
// writes is refused naming it, and so is a baseline on which fewer than
// half of today's answerable queries can be compared (*gate.InputError,
// exit 2).
func Load(ctx context.Context, path string, set *gate.Set, k int) (*Run, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxBytes {
		return nil, &gate.InputError{File: path, Field: "baseline", Err: fmt.Errorf("%w: a baseline holds a run of the set's queries; write it again from the set (recallgate gate --write-baseline FILE)", &gate.LimitError{What: fmt.Sprintf("the baseline run (%s)", gate.FormatBytes(fi.Size())), Limit: MaxBytes})}
	}
	// Only today's queries are kept, each at most the hits an answer
	// keeps: the others are counted (a baseline of ids the set never had
	// costs the memory of one line).
	rf, others, err := file.LoadOnly(path, func(id string) bool { return set.Query(id) != nil }, input.MaxKeptHits(k))
	if err != nil {
		return nil, fmt.Errorf("load baseline: %w", err)
	}
	b := &Run{Path: path, Meta: rf.Meta()}
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
	if b.Results, err = retrieval.All(ctx, "baseline", b.Set, rf, retrieval.Options{K: k, Concurrency: 1}); err != nil {
		return nil, err
	}
	return b, nil
}

// Score scores the baseline's results with today's labels (Set's), at d.
func (b *Run) Score(d gate.Depth) (*gate.Scorecard, error) {
	c, err := gate.ScoreResults(b.Set, b.Results, d)
	if err != nil {
		return nil, fmt.Errorf("score baseline %s: %w", b.Path, err)
	}
	return c, nil
}

// Score scores a stored baseline run with today's set: the
// baseline's hits judged by today's labels (a relabel is no change), on
// the queries it can be compared on (Load: those it has a result
// for and whose text is unchanged). The Run says which queries
// were left out; its Set is the one to score the other side on, so both
// means are over the same queries.
func Score(ctx context.Context, path string, set *gate.Set, d gate.Depth) (*gate.Scorecard, *Run, error) {
	b, err := Load(ctx, path, set, d.Candidates)
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
		if f.v != "" && !fingerprint.Valid(f.v) {
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
			if !fingerprint.IsShortSum(h) {
				return bad(what+"."+gate.Visible(id), "a content hash (16 hex digits)", h)
			}
		}
	}
	return nil
}
