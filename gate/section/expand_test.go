package section

import (
	"reflect"
	"testing"
)

// TestExpandInRankOrder: each hit's sections in rank order, each once; a
// whole-document chunk counts for every section it holds; an unplaced
// hit keeps its rank as its document alone and is listed; a document the
// corpus lacks counts for the section it names, unchecked.
func TestExpandInRankOrder(t *testing.T) {
	d := NewDoc("guide", placeMD, Markdown)
	lookup := func(id string) *Doc {
		if id == "guide" {
			return d
		}
		return nil
	}
	hits := []Hit{
		{"guide", Chunk{Text: "Second backup section."}},
		{"guide", Chunk{Text: "Keep 30 days."}},
		{"guide", Chunk{Text: "not in the guide"}},
		{"other", Chunk{Section: "faq"}},
		{"other", Chunk{Text: "no corpus to look in"}},
		{"guide", Chunk{Start: 0, End: len(placeMD), Offsets: true}},
	}
	got := Expand(hits, lookup)
	wantKeys := []string{"guide#guide", "guide#backup-1", "guide#backup", "guide#retention", "guide", "other#faq", "other"}
	if !reflect.DeepEqual(got.Keys, wantKeys) {
		t.Errorf("keys: got %q, want %q", got.Keys, wantKeys)
	}
	wantLost := []Lost{{3, "guide", "its text is not in the document"}, {5, "other", "the document is not in the corpus read"}}
	if !reflect.DeepEqual(got.Unplaced, wantLost) {
		t.Errorf("unplaced: got %+v, want %+v", got.Unplaced, wantLost)
	}
	wantMethods := map[Method]int{ByText: 2, Unplaced: 2, BySection: 1, ByOffsets: 1}
	if !reflect.DeepEqual(got.Methods, wantMethods) {
		t.Errorf("methods: got %v, want %v", got.Methods, wantMethods)
	}
}

// TestSplitKey: the last "#" splits a label; a document id may hold one.
func TestSplitKey(t *testing.T) {
	for _, c := range []struct {
		key, doc, anchor string
		ok               bool
	}{
		{"guide/backup#retention", "guide/backup", "retention", true},
		{"a#2#intro", "a#2", "intro", true},
		{"guide/backup", "guide/backup", "", false},
		{"#intro", "#intro", "", false},
		{"guide#", "guide#", "", false},
	} {
		doc, anchor, ok := SplitKey(c.key)
		if doc != c.doc || anchor != c.anchor || ok != c.ok {
			t.Errorf("SplitKey(%q) = %q, %q, %v; want %q, %q, %v", c.key, doc, anchor, ok, c.doc, c.anchor, c.ok)
		}
		if ok && Key(doc, anchor) != c.key {
			t.Errorf("Key(%q, %q) = %q, want %q back", doc, anchor, Key(doc, anchor), c.key)
		}
	}
}

// TestDistanceAndNearest: edit distances counted by hand, and the
// nearest anchors a misspelt one is offered.
func TestDistanceAndNearest(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"retension", "retention", 1},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"café", "cafe", 1},
		{"backup", "backup", 0},
		{"backup-1", "backup", 2},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
	anchors := []string{"guide", "backup", "retention", "retention-1", "backup-1"}
	if got, want := Nearest("retension", anchors, 2), []string{"retention", "retention-1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Nearest: got %q, want %q", got, want)
	}
	if got, want := Nearest("backup-2", anchors, 3), []string{"backup-1", "backup", "guide"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Nearest: got %q, want %q", got, want)
	}
}
