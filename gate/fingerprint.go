package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"
)

// CorpusHash is a corpus's content fingerprint, made document by document
// as a walk streams them (WalkCorpus): each document's id, title and text,
// each length-prefixed, in the walk's stable order. Memory stays one
// document; each is bounded by MaxCorpusLineBytes.
type CorpusHash struct{ h hash.Hash }

// NewCorpusHash starts an empty corpus fingerprint.
func NewCorpusHash() *CorpusHash { return &CorpusHash{h: sha256.New()} }

// Add hashes one document.
func (c *CorpusHash) Add(d Document) {
	var n [24]byte
	for _, part := range []string{d.ID, d.Title, d.Text} {
		// "len:part", as fmt's "%d:%s" writes it, without its allocations.
		c.h.Write(append(strconv.AppendInt(n[:0], int64(len(part)), 10), ':'))
		io.WriteString(c.h, part)
	}
}

// Sum is "sha256:" and the hash of the documents added so far.
func (c *CorpusHash) Sum() string { return "sha256:" + hex.EncodeToString(c.h.Sum(nil)) }

// CorpusFingerprint walks the corpus at path (see WalkCorpus) and returns
// its content fingerprint.
func CorpusFingerprint(path string) (string, error) {
	c := NewCorpusHash()
	if err := WalkCorpus(path, func(d Document) error { c.Add(d); return nil }); err != nil {
		return "", err
	}
	return c.Sum(), nil
}

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
)

// BaselineInputs are the inputs a drift baseline records, in the order
// messages name them.
var BaselineInputs = []string{InputSet, InputRetriever, InputCorpus}

// InputChange is one input whose fingerprint differs from the baseline's.
type InputChange struct {
	// Input is one of BaselineInputs; Baseline and Now its fingerprints.
	Input, Baseline, Now string
}

// String says "set 1a2b3c4d5e6f → 9f8e7d6c5b4a".
func (c InputChange) String() string {
	return fmt.Sprintf("%s %s → %s", c.Input, ShortHash(c.Baseline), ShortHash(c.Now))
}

// BaselineCheck is what a drift run found comparing the inputs of now with
// those its baseline recorded.
type BaselineCheck struct {
	// Changed are the inputs whose fingerprint differs (the run went on
	// only because they were accepted).
	Changed []InputChange
	// Unrecorded are the inputs known now that the baseline recorded no
	// fingerprint of (an older baseline): whether they changed is unknown.
	Unrecorded []string
}

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
