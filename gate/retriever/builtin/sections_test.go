package builtin

import (
	"testing"

	"github.com/recallgate/recallgate/gate/section"
)

// TestChunksPlacedByOffsets: with chunk_words, every hit carries its
// chunk's byte offsets in its document's text, so gate/section places it
// by them (no text search); a whole-document index carries none.
func TestChunksPlacedByOffsets(t *testing.T) {
	snap := readSnap(t, "../../../frozen-set/corpus")
	o := DefaultOptions()
	o.ChunkWords = 12
	ix, err := Build(snap, o)
	if err != nil {
		t.Fatal(err)
	}
	look := snap.SectionLookup()
	joined := 0
	hits := ix.Search("rotate api key retention encryption backup", 60)
	if len(hits) < 20 {
		t.Fatalf("only %d hits", len(hits))
	}
	for _, h := range hits {
		if h.Start == nil || h.End == nil {
			t.Fatalf("hit %s has no offsets", h.Chunk)
		}
		d := look(h.Doc)
		p := d.Place(section.Chunk{Start: *h.Start, End: *h.End, Offsets: true, Text: h.Text})
		if p.Method != section.ByOffsets || p.Start != *h.Start || p.End != *h.End {
			t.Errorf("%s: placed %+v, want by its offsets %d–%d", h.Chunk, p, *h.Start, *h.End)
		}
		if d.Text[*h.Start:*h.End] != h.Text {
			joined++
		}
	}
	whole := DefaultOptions()
	ix2, err := Build(snap, whole)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range ix2.Search("rotate api key", 5) {
		if h.Start != nil || h.End != nil {
			t.Errorf("a whole-document hit carries offsets: %s", h.Chunk)
		}
	}
	t.Logf("%d of %d chunks' texts are not substrings of their document (words re-joined)", joined, len(hits))
}
