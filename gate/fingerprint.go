package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// ShortHash is a fingerprint as reports show it: its first 12 hex digits,
// without the "sha256:" prefix.
func ShortHash(fp string) string {
	fp = strings.TrimPrefix(fp, "sha256:")
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
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

// ShortSum is the first 16 hex digits of the hash of the length-prefixed
// parts (each "len:part", as fmt's "%d:%s" writes it): a query's text hash
// (TextHash) and a document's (corpus.DocHash) as a baseline records them.
func ShortSum(parts ...string) string {
	n := 0
	for _, part := range parts {
		n += len(part) + 21
	}
	b := make([]byte, 0, n)
	for _, part := range parts {
		b = AppendLenPrefixed(b, part)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// AppendLenPrefixed appends "len:part" to b, as fmt's "%d:%s" writes it.
// A hash is fed through a buffer this fills, which its caller reuses:
// io.WriteString would copy each part into a new slice, since a SHA-256
// hash has no WriteString.
func AppendLenPrefixed(b []byte, part string) []byte {
	b = append(strconv.AppendInt(b, int64(len(part)), 10), ':')
	return append(b, part...)
}

// TextHash is a query's text hash as a baseline records it: 16 hex digits.
func TextHash(q *Query) string { return ShortSum(q.Text) }

// IsShortHash reports whether s is a corpus.DocHash or TextHash: 16 lowercase hex
// digits.
func IsShortHash(s string) bool {
	return len(s) == 16 && IsFingerprint("sha256:"+s+strings.Repeat("0", 48))
}

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
	return fmt.Sprintf("%s %s → %s", c.Input, ShortHash(c.Baseline), ShortHash(c.Now))
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

// CheckBaseline compares the fingerprints a baseline recorded with those
// of now, both keyed by BaselineInputs ("" or absent: not known). An input
// not known now is not compared.
func CheckBaseline(recorded, now map[string]string) BaselineCheck {
	var c BaselineCheck
	for _, in := range BaselineInputs {
		n := now[in]
		switch r := recorded[in]; {
		case n == "":
		case r == "":
			c.Unrecorded = append(c.Unrecorded, in)
		case r != n:
			c.Changed = append(c.Changed, InputChange{Input: in, Baseline: r, Now: n})
		}
	}
	return c
}

// IsFingerprint reports whether s is a fingerprint as recallgate writes
// them: "sha256:" and 64 lowercase hex digits.
func IsFingerprint(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
