package section

import (
	"reflect"
	"strings"
	"testing"
)

// TestHoldsAtItsEdges: the half-of-the-chunk rule around a section of
// bytes [10, 20), each case counted by hand.
func TestHoldsAtItsEdges(t *testing.T) {
	for _, c := range []struct {
		start, end int
		want       bool
		why        string
	}{
		{0, 10, false, "touches the section's start, no byte inside"},
		{20, 30, false, "starts at the section's end"},
		{5, 15, true, "5 of 10 bytes inside: exactly half"},
		{4, 15, false, "5 of 11 bytes inside: just under half"},
		{15, 25, true, "5 of 10 at the end: exactly half"},
		{15, 26, false, "5 of 11 at the end"},
		{19, 21, true, "1 of 2"},
		{19, 22, false, "1 of 3"},
		{18, 21, true, "2 of 3"},
		{12, 18, true, "wholly inside"},
		{10, 20, true, "the section itself"},
		{0, 30, true, "the whole section inside a chunk three times its size (1/3 of the chunk)"},
		{9, 21, true, "the section inside, one byte either side"},
		{12, 12, false, "an empty chunk"},
	} {
		if got := Holds(10, 20, c.start, c.end); got != c.want {
			t.Errorf("chunk [%d,%d): got %v, want %v (%s)", c.start, c.end, got, c.want, c.why)
		}
	}
}

const placeMD = "# Guide\n\nIntro words.\n\n## Backup\n\nBack up  the\n  database nightly.\n\n### Retention\n\nKeep 30 days.\n\n## Backup\n\nSecond backup section.\n"

// TestPlaceByOffsetsTextAndSection: offsets first when they fit, the
// text as it is, the text with white space collapsed (mapped back to the
// document's own bytes), the section named, and a hit nothing places.
func TestPlaceByOffsetsTextAndSection(t *testing.T) {
	d := NewDoc("guide", placeMD, Markdown)
	retention := at(t, placeMD, "### Retention", 1)
	keep := at(t, placeMD, "Keep 30", 1)
	backUp := at(t, placeMD, "Back up", 1)
	nightly := at(t, placeMD, "nightly.", 1) + len("nightly.")
	second := at(t, placeMD, "## Backup", 2)
	for _, c := range []struct {
		name string
		in   Chunk
		want Place
	}{
		{"offsets", Chunk{Start: keep, End: keep + 13, Offsets: true, Text: "ignored"}, Place{keep, keep + 13, ByOffsets, ""}},
		{"exact text", Chunk{Text: "Keep 30 days."}, Place{keep, keep + 13, ByText, ""}},
		{"offsets past the end fall back to the text", Chunk{Start: 5, End: 5000, Offsets: true, Text: "Keep 30 days."}, Place{keep, keep + 13, ByText, ""}},
		{"collapsed text", Chunk{Text: "\n Back up the database\tnightly.  "}, Place{backUp, nightly, ByCollapsedText, ""}},
		{"a named section", Chunk{Text: "not in it", Section: "retention"}, Place{retention, second, BySection, ""}},
		{"nothing", Chunk{}, Place{0, 0, Unplaced, "the hit carries no offsets, text or section"}},
		{"every way fails", Chunk{Start: 3, End: 2, Offsets: true, Text: "absent", Section: "nope"}, Place{0, 0, Unplaced,
			`offsets 3–2 outside the document's 132 bytes; its text is not in the document; the document has no section "nope"`}},
	} {
		if got := d.Place(c.in); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	if len(placeMD) != 132 {
		t.Fatalf("the document is %d bytes; the failure text above counts 132", len(placeMD))
	}
	if got := placeMD[backUp:nightly]; got != "Back up  the\n  database nightly." {
		t.Errorf("the collapsed match maps back to %q", got)
	}
}

// TestCountsNested: a chunk inside a subsection counts for it and for
// the section around it; a chunk over the whole document counts for
// every section; the duplicate heading's second section is its own.
func TestCountsNested(t *testing.T) {
	d := NewDoc("guide", placeMD, Markdown)
	keep := at(t, placeMD, "Keep 30", 1)
	second := at(t, placeMD, "Second backup", 1)
	for _, c := range []struct {
		start, end int
		want       []string
	}{
		{keep, keep + 13, []string{"guide", "backup", "retention"}},
		{second, second + 6, []string{"guide", "backup-1"}},
		{0, len(placeMD), []string{"guide", "backup", "retention", "backup-1"}},
	} {
		if got := d.Counts(c.start, c.end); !reflect.DeepEqual(got, c.want) {
			t.Errorf("[%d,%d): got %q, want %q", c.start, c.end, got, c.want)
		}
	}
}

// TestCheckGivenSections: sections a corpus gives are refused when they
// cannot be placed.
func TestCheckGivenSections(t *testing.T) {
	ok := []Section{{Anchor: "a", Start: 0, End: 5}, {Anchor: "b", Start: 3, End: 10}}
	if err := Check(ok, 10); err != nil {
		t.Errorf("overlapping sections inside the text: %v", err)
	}
	for _, c := range []struct {
		in   []Section
		want string
	}{
		{[]Section{{Anchor: "", Start: 0, End: 1}}, "sections[0]: anchor is empty"},
		{[]Section{{Anchor: "a#b", Start: 0, End: 1}}, `sections[0]: anchor "a#b" holds "#" or white space`},
		{[]Section{{Anchor: "a", Start: 0, End: 1}, {Anchor: "a", Start: 1, End: 2}}, `sections[1]: anchor "a" is given twice`},
		{[]Section{{Anchor: "a", Start: 4, End: 4}}, "sections[0] (a): start 4, end 4 are not 0 ≤ start < end ≤ 10"},
		{[]Section{{Anchor: "a", Start: 0, End: 11}}, "sections[0] (a): start 0, end 11 are not"},
	} {
		err := Check(c.in, 10)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.in, err, c.want)
		}
	}
}

// TestCollapsedMapsBackThroughWideSpace: runs of white space of several
// bytes (no-break spaces, tabs, CRLF) before and inside the match map the
// match back to the document's own bytes.
func TestCollapsedMapsBackThroughWideSpace(t *testing.T) {
	text := "x\u00a0\u00a0y\r\n\r\nalpha\t\u3000beta\n gamma\u00a0delta end"
	d := NewDoc("d", text, Plain)
	start := strings.Index(text, "alpha")
	end := strings.Index(text, "delta") + len("delta")
	want := Place{start, end, ByCollapsedText, ""}
	if got := d.Place(Chunk{Text: "alpha beta gamma delta"}); got != want {
		t.Errorf("got %+v (%q), want %+v (%q)", got, text[got.Start:got.End], want, text[start:end])
	}
	if got := d.Place(Chunk{Text: " y alpha"}); got != (Place{strings.Index(text, "y"), start + 5, ByCollapsedText, ""}) {
		t.Errorf("a match across a CRLF pair: got %+v", got)
	}
}

// TestClosest: among the anchors holding the one asked for (or held by
// it), else among all, the nearest by edit distance, the first in
// document order on a tie; none for a document with no sections.
func TestClosest(t *testing.T) {
	d := NewDoc("g", "# Schedule\n\nx\n\n# Notes\n\nz\n\n# Retention policy\n\ny\n", Markdown)
	for _, c := range []struct{ asked, want string }{
		{"retention", "retention-policy"}, // holds it; by distance alone notes (7, earlier) ties it (7)
		{"notes-and-tips", "notes"},       // held by it
		{"note", "notes"},                 // 1
		{"schedules", "schedule"},         // 1
		{"xyz", "notes"},                  // schedule 8, retention-policy 16, notes 5
	} {
		if s, ok := d.Closest(c.asked); !ok || s.Anchor != c.want {
			t.Errorf("Closest(%q) = %q, %v; want %q", c.asked, s.Anchor, ok, c.want)
		}
	}
	if _, ok := NewDoc("p", "plain", Plain).Closest("a"); ok {
		t.Error("a plain document proposed a section")
	}
}

// TestOffsetsIntoAnotherVersion: offsets that fit the document but hold
// other text than the hit's (offsets into the base side's version of an
// edited document) give way to where the text stands; offsets whose
// bytes hold the hit's words, white space aside, stand, and so do
// offsets whose text is nowhere in the document (a retriever's own
// rendering of the passage).
func TestOffsetsIntoAnotherVersion(t *testing.T) {
	d := NewDoc("guide", placeMD, Markdown)
	at := strings.Index(placeMD, "Keep 30 days.")
	intro := strings.Index(placeMD, "Intro words.")
	got := d.Place(Chunk{Start: intro, End: intro + len("Keep 30 days."), Offsets: true, Text: "Keep 30 days."})
	if got.Method != ByText || got.Start != at {
		t.Errorf("offsets over other text: %+v, want placed by text at %d", got, at)
	}
	back := strings.Index(placeMD, "Back up  the")
	got = d.Place(Chunk{Start: back, End: back + len("Back up  the\n  database nightly."), Offsets: true, Text: "Back up the database nightly."})
	if got.Method != ByOffsets || got.Start != back {
		t.Errorf("offsets over the same words: %+v, want by offsets at %d", got, back)
	}
	got = d.Place(Chunk{Start: intro, End: intro + 5, Offsets: true, Text: "Section 1: Intro"})
	if got.Method != ByOffsets || got.Start != intro {
		t.Errorf("offsets with text found nowhere: %+v, want by offsets at %d", got, intro)
	}
}
