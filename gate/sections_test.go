package gate

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/section"
)

const sectionsGuide = "# Guide\n\nIntro.\n\n## Backup\n\nBack up nightly.\n\n### Retention\n\nKeep 30 days.\n\n## Backup\n\nSecond backup.\n"

// TestSectionQueryScoredOverSections: a query whose gold names sections
// is scored over the distinct sections its hits count for, in rank order
// (every value counted by hand); a document query of the same set, on
// the same hits, by documents.
func TestSectionQueryScoredOverSections(t *testing.T) {
	doc := section.NewDoc("guide", sectionsGuide, section.Markdown)
	set := NewSet("set.jsonl")
	sq := &Query{ID: "s", Gold: map[string]int{"guide#retention": 3, "guide#backup-1": 1}}
	dq := &Query{ID: "d", Gold: map[string]int{"guide": 1}}
	for _, q := range []*Query{sq, dq} {
		q.prepare()
		set.Add(q)
	}
	set.PlaceSections(func(id string) *section.Doc {
		if id == "guide" {
			return doc
		}
		return nil
	})
	if got := set.Unit(); got != "documents and sections" {
		t.Errorf("set unit %q", got)
	}
	hits := []Hit{{Doc: "guide", Text: "Second backup."}, {Doc: "guide", Text: "Keep 30 days."}, {Doc: "guide", Text: "not there"}}
	d := Depth{Candidates: 5, Context: 2}
	s := ScoreQuery(sq, hits, d, nil)
	// Candidates: guide#guide, guide#backup-1 (hit 1); guide#backup,
	// guide#retention (hit 2, guide#guide already in); guide (hit 3,
	// unplaced). Gold: retention (3) at rank 4, backup-1 (1) at rank 2.
	wantDocs := []string{"guide#guide", "guide#backup-1", "guide#backup", "guide#retention", "guide"}
	if !reflect.DeepEqual(s.Docs, wantDocs) {
		t.Errorf("candidates %q, want %q", s.Docs, wantDocs)
	}
	ndcg := (1 / math.Log2(3)) / (3 + 1/math.Log2(3)) // rank 2 holds grade 1; ideal 3, 1
	if s.Recall != 1 || s.Precision != 0.5 || math.Abs(s.NDCG-ndcg) > 1e-12 || s.RR != 0.5 || s.FirstHitRank != 2 {
		t.Errorf("recall %v precision %v nDCG %v (want %v) RR %v first %d", s.Recall, s.Precision, s.NDCG, ndcg, s.RR, s.FirstHitRank)
	}
	if s.Unplaced != 1 || len(s.UnplacedFirst) != 1 || !strings.Contains(s.UnplacedFirst[0], "s #3 guide: its text is not in the document") {
		t.Errorf("unplaced %d %q", s.Unplaced, s.UnplacedFirst)
	}
	ds := ScoreQuery(dq, hits, d, nil)
	if !reflect.DeepEqual(ds.Docs, []string{"guide"}) || ds.Recall != 1 || ds.Precision != 0.5 || ds.Unplaced != 0 {
		t.Errorf("the document query: docs %q recall %v precision %v unplaced %d", ds.Docs, ds.Recall, ds.Precision, ds.Unplaced)
	}
	c := &Scorecard{Set: set, Queries: []QueryScore{s, ds}}
	if w := c.RunWarnings(); len(w) != 1 || !strings.HasPrefix(w[0], "1 hit of section-labelled queries could not be placed") {
		t.Errorf("warnings %q", w)
	}
}

// TestMissingGoldSections: a section label whose document left the
// corpus, or whose heading was renamed, is missing gold; the nearest
// anchors are named.
func TestMissingGoldSections(t *testing.T) {
	doc := section.NewDoc("guide", sectionsGuide, section.Markdown)
	set := NewSet("set.jsonl")
	q := &Query{ID: "s", Gold: map[string]int{"guide#retension": 3, "guide#backup": 1, "gone#intro": 1}}
	q.prepare()
	set.Add(q)
	set.PlaceSections(func(id string) *section.Doc {
		if id == "guide" {
			return doc
		}
		return nil
	})
	ids := map[string]bool{"guide": true}
	var got []string
	for _, k := range []string{"gone#intro", "guide#backup", "guide#retension"} {
		if q.GoldMissing(k, ids) {
			got = append(got, k)
		}
	}
	if want := []string{"gone#intro", "guide#retension"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, want := q.MissingSection("guide#retension"), `guide has no section "retension"; nearest: retention, guide, backup`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
