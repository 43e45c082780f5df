package section

import (
	"sort"
	"strings"
)

// Key is a section's label: the document id, "#", the anchor; the
// document id alone when anchor is "".
func Key(doc, anchor string) string {
	if anchor == "" {
		return doc
	}
	return doc + "#" + anchor
}

// SplitKey splits a label at its last "#" into the document id and the
// anchor (an anchor never holds "#"; a document id may). ok is false for
// a label with no "#", or an empty document id or anchor.
func SplitKey(key string) (doc, anchor string, ok bool) {
	i := strings.LastIndexByte(key, '#')
	if i <= 0 || i == len(key)-1 {
		return key, "", false
	}
	return key[:i], key[i+1:], true
}

// Hit is one retrieved chunk with its document id, as Expand reads it.
type Hit struct {
	// Doc is the chunk's document id.
	Doc string
	// Chunk is what the hit says about where it lies.
	Chunk Chunk
}

// Lost is a hit that could not be placed in its document's sections.
type Lost struct {
	// Rank is the hit's 1-based rank.
	Rank int
	// Doc is its document id.
	Doc string
	// Why says what failed.
	Why string
}

// Expansion is a ranked list of hits turned into section candidates.
type Expansion struct {
	// Keys are the distinct candidates in rank order: "doc#anchor" for
	// each section a hit counts for (in document order within one hit),
	// the document id alone for a hit that counts for no section (an
	// unplaced one, or one outside every section), so it keeps its rank
	// and can match no section label.
	Keys []string
	// Unplaced are the hits nothing placed, in rank order.
	Unplaced []Lost
	// Methods counts the hits by how they were placed.
	Methods map[Method]int
}

// Expand maps a query's hits, in rank order, to the distinct sections
// they count for (KeysOf each hit).
func Expand(hits []Hit, lookup func(doc string) *Doc) Expansion {
	out := Expansion{Methods: map[Method]int{}}
	seen := make(map[string]bool, len(hits))
	var keys []string
	for i, h := range hits {
		var m Method
		var lost *Lost
		keys, m, lost = KeysOf(h, i+1, lookup, keys[:0])
		out.Methods[m]++
		if lost != nil {
			out.Unplaced = append(out.Unplaced, *lost)
		}
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				out.Keys = append(out.Keys, k)
			}
		}
	}
	return out
}

// KeysOf appends to out the labels one hit (at rank, 1-based) counts for:
// "doc#anchor" for each section it counts for, in document order, or the
// document id alone when it counts for none. lookup returns a document's
// sections (its Doc's ID the id asked for), nil for a document the corpus
// lacks (or no corpus): such a hit counts for the section it names, if
// any, unchecked; else for its document only. A hit nothing places is
// returned as lost.
func KeysOf(h Hit, rank int, lookup func(doc string) *Doc, out []string) ([]string, Method, *Lost) {
	d := lookup(h.Doc)
	if d == nil {
		if h.Chunk.Section != "" {
			return append(out, Key(h.Doc, h.Chunk.Section)), BySection, nil
		}
		return append(out, h.Doc), Unplaced, &Lost{Rank: rank, Doc: h.Doc, Why: "the document is not in the corpus read"}
	}
	p := d.Place(h.Chunk)
	if p.Method == Unplaced {
		return append(out, h.Doc), Unplaced, &Lost{Rank: rank, Doc: h.Doc, Why: p.Why}
	}
	n := len(out)
	out = d.appendKeys(out, p.Start, p.End)
	if len(out) == n {
		out = append(out, h.Doc)
	}
	return out, p.Method, nil
}

// Distance is the Levenshtein edit distance between a and b, counted in
// characters (runes): the fewest insertions, deletions and substitutions
// that turn one into the other.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Nearest returns up to n of the anchors closest to the one asked for by
// edit distance, closest first (ties in the anchors' own order).
func Nearest(anchor string, anchors []string, n int) []string {
	type scored struct {
		a string
		d int
		i int
	}
	s := make([]scored, len(anchors))
	for i, a := range anchors {
		s[i] = scored{a, Distance(anchor, a), i}
	}
	sort.SliceStable(s, func(i, j int) bool { return s[i].d < s[j].d })
	var out []string
	for _, x := range s {
		if len(out) == n {
			break
		}
		out = append(out, x.a)
	}
	return out
}
