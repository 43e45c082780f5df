package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/recallgate/recallgate/gate/fingerprint"
)

// PolicyFingerprint is "sha256:" and the hash of the effective policy: the
// thresholds (segment rules included, without where they were written)
// and the depths they are judged at. Equal policies hash equal whatever
// file or key order they came from.
func PolicyFingerprint(t Thresholds, d Depth) string {
	t.Segments = slices.Clone(t.Segments)
	for i := range t.Segments {
		t.Segments[i].File, t.Segments[i].Line = "", 0
	}
	b, err := json.Marshal(struct {
		Thresholds Thresholds
		Depth      Depth
	}{t, d})
	if err != nil { // only plain numbers, strings and pointers to them
		return ""
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// The inputs a drift baseline records and a drift run checks.
const (
	InputSet       = "set"
	InputRetriever = "retriever"
	InputCorpus    = "corpus"
	InputPolicy    = "policy"
)

// BaselineInputs are the inputs a drift baseline records, in the order
// messages name them.
var BaselineInputs = []string{InputSet, InputRetriever, InputCorpus, InputPolicy}

// TextHash is a query's text hash as a baseline records it: 16 hex digits
// (fingerprint.ShortSum).
func TextHash(q *Query) string { return fingerprint.ShortSum(q.Text) }

// CorpusChange is how the corpus changed since a baseline that recorded
// its documents' hashes: how many documents were added, removed and
// edited, and the gold documents of today's set among each, by id.
type CorpusChange struct {
	Added, Removed, Edited             int
	GoldAdded, GoldRemoved, GoldEdited []string
}

// BaselineCommit is one commit since the baseline's that touched an input.
type BaselineCommit struct {
	// SHA is the short hash; Subject the first line of its message.
	SHA, Subject string
}

// InputChange is one input whose fingerprint differs from the baseline's.
type InputChange struct {
	// Input is one of BaselineInputs; Baseline and Now its fingerprints.
	Input, Baseline, Now string
	// Files are, for the retriever, the files its fingerprint covers (the
	// config holding its table, the files its start or command names)
	// that commits since the baseline's touched, each with the newest such
	// commit; none when git cannot tell.
	Files []ChangedFile
}

// ChangedFile is a file commits since the baseline touched: its path in
// the repository and the newest such commit.
type ChangedFile struct {
	Path   string
	Commit BaselineCommit
}

// String says "set 1a2b3c4d5e6f → 9f8e7d6c5b4a".
func (c InputChange) String() string {
	return fmt.Sprintf("%s %s → %s", c.Input, fingerprint.Short(c.Baseline), fingerprint.Short(c.Now))
}

// BaselineCheck is what a drift run found comparing the inputs of now with
// those its baseline recorded.
type BaselineCheck struct {
	// Changed are the inputs whose fingerprint differs: the likely cause
	// of any drift the comparison shows.
	Changed []InputChange
	// Unrecorded are the inputs known now that the baseline recorded no
	// fingerprint of (an older baseline): whether they changed is unknown.
	Unrecorded []string
	// Commit and Made are the commit and the time (RFC 3339, UTC) the
	// baseline was made at, "" when it did not record them.
	Commit, Made string
	// Corpus says how the corpus changed, when it did and the baseline
	// recorded its documents' hashes.
	Corpus *CorpusChange
	// NewQueries are today's queries the baseline has no run or text hash
	// of, EditedQueries those whose text changed since: neither is
	// compared. In set order.
	NewQueries, EditedQueries []string
	// RemovedQueries counts the baseline's queries today's set lacks.
	RemovedQueries int
	// Commits are the commits since Commit that touched the config, the
	// set, the corpus or a file a command retriever names, newest first
	// (at most MaxBaselineCommits).
	Commits []BaselineCommit
	// MoreCommits says older such commits were left out of Commits.
	MoreCommits bool
	// Lacks says, one sentence each, what the baseline or the checkout
	// could not tell (an older baseline, no git history).
	Lacks []string
}

// PlainBaseline begins the line of BaselineCheck.Lacks that says the
// baseline is a plain run, not gate --write-baseline's (baseline.Plain):
// the headline says so in its stead of each thing it lacks.
const PlainBaseline = "the baseline was written by retrieve (or gate --save-runs), not gate --write-baseline"

// MaxBaselineCommits is the most commits a drift run lists.
const MaxBaselineCommits = 10
