package section

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Doc is one document's text and its sections, ready to place chunks in.
// It is safe for concurrent use.
type Doc struct {
	// ID is the document's id in the corpus.
	ID string
	// Text is the document's text, the one byte offsets count in.
	Text string
	// Sections are the document's sections in document order.
	Sections []Section

	once      sync.Once
	collapsed string // Text with each run of white space one space
	shrunk    []shift

	mu    sync.Mutex
	found map[string]Place // a chunk text's place (Unplaced: not found)

	keyOnce sync.Once
	keys    []string // "id#anchor" of each section, made once

	spanOnce sync.Once
	spans    *spanIndex // the sections by start, for a document of many
}

// NewDoc reads a document's sections from its text in the given format.
func NewDoc(id, text string, f Format) *Doc {
	return &Doc{ID: id, Text: text, Sections: Parse(f, text)}
}

// Given makes a document whose sections the corpus gave (a JSONL line's
// "sections"); Check has accepted them.
func Given(id, text string, sections []Section) *Doc {
	return &Doc{ID: id, Text: text, Sections: sections}
}

// Check refuses sections a corpus gives that cannot be placed in a text
// of size bytes: an empty or repeated anchor, one with "#" or white space
// in it, or offsets outside 0 ≤ start < end ≤ size.
func Check(sections []Section, size int) error {
	seen := map[string]bool{}
	for i, s := range sections {
		switch {
		case s.Anchor == "":
			return fmt.Errorf("sections[%d]: anchor is empty", i)
		case strings.ContainsAny(s.Anchor, "# \t\r\n"):
			return fmt.Errorf("sections[%d]: anchor %q holds \"#\" or white space", i, s.Anchor)
		case seen[s.Anchor]:
			return fmt.Errorf("sections[%d]: anchor %q is given twice", i, s.Anchor)
		case s.Start < 0 || s.End <= s.Start || s.End > size:
			return fmt.Errorf("sections[%d] (%s): start %d, end %d are not 0 ≤ start < end ≤ %d, the text's length in bytes", i, s.Anchor, s.Start, s.End, size)
		}
		seen[s.Anchor] = true
	}
	return nil
}

// Anchors returns the document's anchors in document order.
func (d *Doc) Anchors() []string {
	out := make([]string, len(d.Sections))
	for i, s := range d.Sections {
		out[i] = s.Anchor
	}
	return out
}

// Closest returns the section whose anchor (its heading's slug) is most
// like the one asked for: among the anchors that hold it or that it holds
// ("retention" and "retention-policy": a heading given words or losing
// some), when there are any, else among all, the nearest by edit distance,
// the first in document order on a tie. It is what a label whose heading
// was renamed most likely means now; ok is false when the document has no
// sections.
func (d *Doc) Closest(anchor string) (Section, bool) {
	all := d.Anchors()
	var holding []string
	for _, a := range all {
		if strings.Contains(a, anchor) || strings.Contains(anchor, a) {
			holding = append(holding, a)
		}
	}
	if len(holding) > 0 {
		all = holding
	}
	n := Nearest(anchor, all, 1)
	if len(n) == 0 {
		return Section{}, false
	}
	return d.Find(n[0])
}

// Find returns the section with the anchor (the first, should two share
// it).
func (d *Doc) Find(anchor string) (Section, bool) {
	for _, s := range d.Sections {
		if s.Anchor == anchor {
			return s, true
		}
	}
	return Section{}, false
}

// Chunk is what a retrieved hit says about where its passage is.
type Chunk struct {
	// Start and End are the passage's byte offsets in its document's
	// text, End exclusive, when Offsets is set.
	Start, End int
	// Offsets says Start and End were given.
	Offsets bool
	// Text is the passage's text, "" when the hit carries none.
	Text string
	// Section is the anchor the retriever names for the passage, "" when
	// none.
	Section string
}

// Method is how a chunk was placed in its document.
type Method uint8

// The ways a chunk is placed, in the order they are tried.
const (
	// Unplaced: nothing the hit carries places it; it counts for its
	// document only.
	Unplaced Method = iota
	// ByOffsets: the hit's start and end.
	ByOffsets
	// ByText: the hit's text found as it is in the document.
	ByText
	// ByCollapsedText: the hit's text found once every run of white space
	// in both is one space.
	ByCollapsedText
	// BySection: the section the hit names (its span stands for the
	// chunk).
	BySection
)

// String names the method in reports.
func (m Method) String() string {
	switch m {
	case ByOffsets:
		return "offsets"
	case ByText:
		return "text"
	case ByCollapsedText:
		return "text (white space collapsed)"
	case BySection:
		return "section"
	}
	return "unplaced"
}

// Place is where a chunk lies in its document.
type Place struct {
	// Start and End are the chunk's byte offsets, End exclusive (0, 0
	// when unplaced).
	Start, End int
	// Method is how it was found.
	Method Method
	// Why says what failed when the chunk could not be placed.
	Why string
}

// Place finds a chunk in the document: by its offsets when they fit the
// text, else by its text (as it is, then with white space collapsed),
// else by the section it names.
func (d *Doc) Place(c Chunk) Place {
	var why []string
	if c.Offsets {
		if 0 <= c.Start && c.Start < c.End && c.End <= len(d.Text) {
			// Offsets into another version of the document (the base
			// side's corpus, say) hold other words than the hit's: where
			// the hit's text stands decides, when it stands anywhere.
			if c.Text == "" || sameWords(d.Text[c.Start:c.End], c.Text) {
				return Place{Start: c.Start, End: c.End, Method: ByOffsets}
			}
			if p := d.locate(c.Text); p.Method != Unplaced {
				return p
			}
			return Place{Start: c.Start, End: c.End, Method: ByOffsets}
		}
		why = append(why, fmt.Sprintf("offsets %d–%d outside the document's %d bytes", c.Start, c.End, len(d.Text)))
	}
	if c.Text != "" {
		if p := d.locate(c.Text); p.Method != Unplaced {
			return p
		}
		why = append(why, "its text is not in the document")
	}
	if c.Section != "" {
		if s, ok := d.Find(c.Section); ok {
			return Place{Start: s.Start, End: s.End, Method: BySection}
		}
		why = append(why, fmt.Sprintf("the document has no section %q", c.Section))
	}
	if len(why) == 0 {
		why = append(why, "the hit carries no offsets, text or section")
	}
	return Place{Method: Unplaced, Why: strings.Join(why, "; ")}
}

// Counts returns the anchors of the sections a span counts for, in
// document order: those holding at least half of its bytes, and those
// lying wholly inside it.
func (d *Doc) Counts(start, end int) []string {
	var out []string
	d.counting(start, end, func(i int) { out = append(out, d.Sections[i].Anchor) })
	return out
}

// appendKeys appends Counts as labels ("id#anchor", each made once a
// document) to out.
func (d *Doc) appendKeys(out []string, start, end int) []string {
	d.keyOnce.Do(func() {
		d.keys = make([]string, len(d.Sections))
		for i, s := range d.Sections {
			d.keys[i] = Key(d.ID, s.Anchor)
		}
	})
	d.counting(start, end, func(i int) { out = append(out, d.keys[i]) })
	return out
}

// indexFrom is how many sections a document has before the sections a
// span counts for are looked up in an index rather than read one by one.
const indexFrom = 64

// counting calls fn with the index of each section the span [start,
// end) counts for (Holds), in document order. A document of many
// sections is looked up in its index, so a run of many hits in a
// hostile document of many headings costs the sections each overlaps,
// not all of them each.
func (d *Doc) counting(start, end int, fn func(i int)) {
	if end <= start {
		return
	}
	if len(d.Sections) < indexFrom {
		for i, s := range d.Sections {
			if Holds(s.Start, s.End, start, end) {
				fn(i)
			}
		}
		return
	}
	d.spanOnce.Do(func() { d.spans = newSpanIndex(d.Sections) })
	var hit []int
	d.spans.overlapping(start, end, func(i int) {
		if s := d.Sections[i]; Holds(s.Start, s.End, start, end) {
			hit = append(hit, i)
		}
	})
	sort.Ints(hit)
	for _, i := range hit {
		fn(i)
	}
}

// spanIndex finds the sections that overlap a span: the sections sorted
// by start, and over them a tree of the largest end of each range, so a
// range none of whose sections reaches the span is passed over whole.
type spanIndex struct {
	order  []int // section indices by start
	starts []int // their starts
	ends   []int // their ends
	maxEnd []int // tree node → the largest end of its range (root 1)
}

func newSpanIndex(secs []Section) *spanIndex {
	x := &spanIndex{order: make([]int, len(secs))}
	for i := range secs {
		x.order[i] = i
	}
	sort.SliceStable(x.order, func(a, b int) bool { return secs[x.order[a]].Start < secs[x.order[b]].Start })
	x.starts, x.ends = make([]int, len(secs)), make([]int, len(secs))
	for k, i := range x.order {
		x.starts[k], x.ends[k] = secs[i].Start, secs[i].End
	}
	x.maxEnd = make([]int, 4*len(secs))
	x.build(1, 0, len(secs))
	return x
}

func (x *spanIndex) build(node, lo, hi int) int {
	if hi-lo == 1 {
		x.maxEnd[node] = x.ends[lo]
		return x.ends[lo]
	}
	mid := (lo + hi) / 2
	x.maxEnd[node] = max(x.build(2*node, lo, mid), x.build(2*node+1, mid, hi))
	return x.maxEnd[node]
}

// overlapping calls fn with each section overlapping [start, end): one
// that starts before end and ends after start.
func (x *spanIndex) overlapping(start, end int, fn func(i int)) {
	n := sort.SearchInts(x.starts, end) // starts before end: [0, n)
	x.visit(1, 0, len(x.starts), n, start, fn)
}

func (x *spanIndex) visit(node, lo, hi, n, start int, fn func(i int)) {
	if lo >= n || x.maxEnd[node] <= start {
		return
	}
	if hi-lo == 1 {
		fn(x.order[lo])
		return
	}
	mid := (lo + hi) / 2
	x.visit(2*node, lo, mid, n, start, fn)
	x.visit(2*node+1, mid, hi, n, start, fn)
}

// Holds is the rule a chunk [start, end) counts for a section [sStart,
// sEnd) by: at least half of the chunk's bytes lie in the section, or
// the whole section lies in the chunk.
func Holds(sStart, sEnd, start, end int) bool {
	if end <= start {
		return false
	}
	if start <= sStart && sEnd <= end {
		return true
	}
	overlap := min(end, sEnd) - max(start, sStart)
	return overlap > 0 && 2*overlap >= end-start
}

// locate finds a chunk's text in the document, as it is and then with
// white space collapsed, once per text: a run names the same chunk in
// many queries, and both sides of a gate share the document.
func (d *Doc) locate(text string) Place {
	d.mu.Lock()
	p, ok := d.found[text]
	d.mu.Unlock()
	if ok {
		return p
	}
	if i := index(d.Text, text); i >= 0 {
		p = Place{Start: i, End: i + len(text), Method: ByText}
	} else if s, e, ok := d.locateCollapsed(text); ok {
		p = Place{Start: s, End: e, Method: ByCollapsedText}
	}
	d.mu.Lock()
	if d.found == nil {
		d.found = map[string]Place{}
	}
	d.found[text] = p
	d.mu.Unlock()
	return p
}

// shift says that from the offset at in the collapsed text on, an offset
// lies by bytes further on in the document's text (a run of white space
// longer than one byte before it became one space).
type shift struct {
	at, by int
}

// locateCollapsed finds text in the document with every run of white
// space (in both) read as one space, and maps the match back to offsets
// in the document's own text.
func (d *Doc) locateCollapsed(text string) (int, int, bool) {
	want, _ := collapse(strings.TrimSpace(text))
	if want == "" {
		return 0, 0, false
	}
	d.once.Do(func() { d.collapsed, d.shrunk = collapse(d.Text) })
	i := index(d.collapsed, want)
	if i < 0 {
		return 0, 0, false
	}
	// The match ends on a byte that is not white space, so the byte after
	// it lies right after that byte's origin.
	last := i + len(want) - 1
	return d.origin(i), d.origin(last) + 1, true
}

// origin is the offset in the document's text of the collapsed text's
// byte at c (a collapsed run's space: the run's first byte).
func (d *Doc) origin(c int) int {
	k := sort.Search(len(d.shrunk), func(k int) bool { return d.shrunk[k].at > c })
	if k == 0 {
		return c
	}
	return c + d.shrunk[k-1].by
}

// collapse turns each run of white space into one space, and returns
// where the result's offsets start to lie further on in s.
func collapse(s string) (string, []shift) {
	b := make([]byte, 0, len(s))
	var shifts []shift
	by := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && !unicode.IsSpace(r) || r == utf8.RuneError && w == 1 {
			b = append(b, s[i:i+w]...) // the bytes as they are, valid or not
			i += w
			continue
		}
		j := i + w
		for j < len(s) {
			r, w := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsSpace(r) {
				break
			}
			j += w
		}
		b = append(b, ' ')
		if j-i > 1 {
			by += j - i - 1
			shifts = append(shifts, shift{at: len(b), by: by})
		}
		i = j
	}
	return string(b), shifts
}

// probeLen is how much of a chunk's text is looked for first: short
// enough for the vector search strings.Index uses up to 63 bytes (a
// chunk of hundreds of bytes would be hashed window by window), long
// enough that few places in a document start with it.
const probeLen = 32

// index is strings.Index(text, chunk) for chunks of hundreds of bytes:
// the places that start with the chunk's first probeLen bytes, each
// checked for the rest. Once the checks have compared more bytes than
// the text and the chunk hold (a hostile chunk sharing its probe with
// every place of the text, "aaa…ab" in "aaa…a"), the rest is left to
// strings.Index, linear in the worst case.
func index(text, chunk string) int {
	if len(chunk) <= probeLen {
		return strings.Index(text, chunk)
	}
	probe := chunk[:probeLen]
	budget := len(text) + len(chunk)
	for off := 0; off+len(chunk) <= len(text); {
		k := strings.Index(text[off:len(text)-len(chunk)+probeLen], probe)
		if k < 0 {
			return -1
		}
		if budget -= len(chunk) - probeLen; budget < 0 {
			if j := strings.Index(text[off+k:], chunk); j >= 0 {
				return off + k + j
			}
			return -1
		}
		if text[off+k+probeLen:off+k+len(chunk)] == chunk[probeLen:] {
			return off + k
		}
		off += k + 1
	}
	return -1
}

// sameWords reports whether a and b hold the same words, white space
// aside.
func sameWords(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	return slices.Equal(fa, fb)
}
