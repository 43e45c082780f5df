// Package section finds the sections of a document and places a
// retrieved chunk in them, so a label can name a section ("doc#anchor")
// that survives re-splitting the corpus into chunks.
//
// A section's anchor is the one GitHub gives its heading; a section runs
// from its heading to the next heading of the same or a higher level
// (Markdown, HTML; a plain-text document has none, and a corpus may give
// the sections as byte offsets itself). A chunk is placed in its document
// by byte offsets, else by locating its text, else by the section it
// names, and counts for a section when at least half of its bytes lie in
// it or the whole section lies in the chunk. Standard library only.
package section

import (
	"strconv"
	"strings"
	"unicode"
)

// Slug is GitHub's anchor for a heading's text, without the count a
// repeated heading gets (Slugger adds it). It follows github-slugger
// (github.com/Flet/github-slugger, v2: index.js and
// script/generate-regex.mjs), the rules GitHub's own renderer applies:
// the text is lower-cased; every character is dropped but letters (L),
// marks (M), decimal and letter numbers (Nd, Nl), connector punctuation
// (Pc, "_"), alphabetic symbols (Other_Alphabetic, such as Ⓐ), the
// hyphen-minus and the space; each space then becomes "-". So other
// numbers (No: ², ½), all other punctuation (the en and em dash
// included), symbols and emoji, control and format characters and every
// separator but U+0020 are dropped; no run of hyphens is squeezed and the
// ends are not trimmed ("a - b" is "a---b"). Lower-casing is Go's rune by
// rune mapping, which differs from JavaScript's toLowerCase only for
// context-dependent cases (a final capital sigma becomes σ, not ς; İ
// becomes i, not i̇).
func Slug(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-':
			b.WriteByte('-')
		case keptInSlug(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// keptInSlug says whether github-slugger keeps r (see Slug).
func keptInSlug(r rune) bool {
	if r < 0x80 {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Pc, r) || unicode.Is(unicode.Other_Alphabetic, r)
}

// Slugger hands out the anchors of one document's headings in order: a
// slug already given gets "-1", "-2", … (the first count that makes it
// new, as github-slugger does: "echo", "echo", "echo 1" give "echo",
// "echo-1", "echo-1-1"). The zero value is ready to use.
type Slugger struct {
	seen map[string]int
}

// Slug returns the anchor of the next heading with this text.
func (s *Slugger) Slug(text string) string {
	return s.unique(Slug(text))
}

// Take records an anchor given explicitly ({#id} in Markdown, id= in
// HTML), so a later heading that slugs to it is counted past it, and
// returns it unchanged.
func (s *Slugger) Take(anchor string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	if _, ok := s.seen[anchor]; !ok {
		s.seen[anchor] = 0
	}
	return anchor
}

// unique counts slug past the anchors already given.
func (s *Slugger) unique(slug string) string {
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	out := slug
	for {
		if _, ok := s.seen[out]; !ok {
			break
		}
		s.seen[slug]++
		out = slug + "-" + strconv.Itoa(s.seen[slug])
	}
	s.seen[out] = 0
	return out
}
