package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/recallgate/recallgate/gate/fingerprint"
)

// Hash is a corpus's content fingerprint, made document by document
// as a walk streams them (Walk): each document's id, title and text,
// each length-prefixed, in the walk's stable order. Memory stays one
// document; each is bounded by gate.MaxCorpusLineBytes.
type Hash struct {
	h   hash.Hash
	buf []byte // one document's parts, reused
}

// NewHash starts an empty corpus fingerprint.
func NewHash() *Hash { return &Hash{h: sha256.New()} }

// Add hashes one document.
func (c *Hash) Add(d Document) {
	c.buf = fingerprint.AppendLenPrefixed(c.buf[:0], d.ID)
	c.buf = fingerprint.AppendLenPrefixed(c.buf, d.Title)
	c.buf = fingerprint.AppendLenPrefixed(c.buf, d.Text)
	for _, sec := range d.Sections {
		// sections a line gives itself (none: the fingerprint as before)
		c.buf = fingerprint.AppendLenPrefixed(c.buf, fmt.Sprintf("section %s %d %d", sec.Anchor, sec.Start, sec.End))
	}
	c.h.Write(c.buf)
}

// Sum is "sha256:" and the hash of the documents added so far.
func (c *Hash) Sum() string { return "sha256:" + hex.EncodeToString(c.h.Sum(nil)) }

// Fingerprint walks the corpus at path (see Walk) and returns its content
// fingerprint.
func Fingerprint(path string) (string, error) {
	c := NewHash()
	if err := Walk(path, func(d Document) error { c.Add(d); return nil }); err != nil {
		return "", err
	}
	return c.Sum(), nil
}

// DocHash is a document's content hash as a baseline records it: 16 hex
// digits of its title and text.
func DocHash(d Document) string { return fingerprint.ShortSum(d.Title, d.Text) }
