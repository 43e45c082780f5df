package gate

import (
	"fmt"
	"testing"

	"github.com/recallgate/recallgate/gate/section"
)

// TestSectionHitsDoNotMultiply: a corpus a pull request gives may hold a
// document with 20,000 sections over the same bytes; 50 hits in it used
// to expand to 50 × 20,000 = 1,000,000 scored hits (4.5 MB of corpus
// and a 50-hit run took 1.7 GB). A section already counted for the query
// is not counted again unless the hit carries its text, so the hits
// scored stay within the sections plus the hits, and the score is the
// same: every section once, in the order they first appear.
func TestSectionHitsDoNotMultiply(t *testing.T) {
	const sections, hits = 20000, 50
	secs := make([]section.Section, sections)
	for i := range secs {
		secs[i] = section.Section{Anchor: fmt.Sprintf("s%d", i), Start: 0, End: 100}
	}
	doc := section.Given("doc", string(make([]byte, 100)), secs)
	q := &Query{ID: "q", Gold: map[string]int{"doc#s19999": 2}}
	q.prepare()
	set := NewSet("set.jsonl")
	set.Add(q)
	set.PlaceSections(func(id string) *section.Doc { return doc })
	start, end := 0, 10
	var in []Hit
	for range hits {
		in = append(in, Hit{Doc: "doc", Start: &start, End: &end})
	}
	out, unplaced, _ := sectionHits(q, in)
	if unplaced != 0 || len(out) > sections+hits {
		t.Fatalf("%d hits scored for %d hits in %d sections (unplaced %d), want at most %d", len(out), hits, sections, unplaced, sections+hits)
	}
	s := ScoreQuery(q, in, Depth{Candidates: sections, Context: 5}, nil)
	if s.Returned != sections || s.Found != 1 || s.GoldRanks["doc#s19999"] != sections {
		t.Errorf("returned %d found %d gold rank %d, want %d, 1, %d", s.Returned, s.Found, s.GoldRanks["doc#s19999"], sections, sections)
	}
}
