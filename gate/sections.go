package gate

import (
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate/section"
)

// The units a query is scored in: its gold names documents, or sections
// of them ("doc#anchor").
const (
	UnitDocuments = "documents"
	UnitSections  = "sections"
)

// SectionLookup returns a document's sections, nil for a document the
// corpus read lacks.
type SectionLookup func(doc string) *section.Doc

// IsSectionLabel reports whether a gold key names a section: a document
// id, "#", an anchor (split at the last "#").
func IsSectionLabel(key string) bool {
	_, _, ok := section.SplitKey(key)
	return ok
}

// InSections reports whether the query's gold names sections: it is then
// scored over the sections its hits count for.
func (q *Query) InSections() bool { return q.sections }

// Unit is the unit the query is scored in.
func (q *Query) Unit() string {
	if q.sections {
		return UnitSections
	}
	return UnitDocuments
}

// MixedUnits returns a document label and a section label of the query's
// gold when it has both (ok true): a query is scored in one unit.
func (q *Query) MixedUnits() (doc, sec string, ok bool) {
	for k := range q.Gold {
		if IsSectionLabel(k) {
			if sec == "" || k < sec {
				sec = k
			}
		} else if doc == "" || k < doc {
			doc = k
		}
	}
	return doc, sec, doc != "" && sec != ""
}

// Unit is the set's: "documents", "sections" or "documents and sections"
// (each query scored in its own).
func (s *Set) Unit() string {
	var docs, secs bool
	for _, q := range s.Queries {
		if q.sections {
			secs = true
		} else if len(q.Gold) > 0 {
			docs = true
		}
	}
	switch {
	case secs && docs:
		return UnitDocuments + " and " + UnitSections
	case secs:
		return UnitSections
	}
	return UnitDocuments
}

// SectionQuery is the first query whose gold names sections, nil when
// none does.
func (s *Set) SectionQuery() *Query {
	for _, q := range s.Queries {
		if q.sections {
			return q
		}
	}
	return nil
}

// PlaceSections gives the set's queries the corpus's sections: a section
// query's hits are placed in them, and its labels checked against them.
func (s *Set) PlaceSections(lookup SectionLookup) {
	for _, q := range s.Queries {
		q.lookup = lookup
	}
}

// MissingSection says why a section label does not name a section of the
// corpus ("" when it does, or when no corpus was given): its document is
// missing, or the document has no such anchor (the nearest named).
func (q *Query) MissingSection(key string) string {
	doc, anchor, ok := section.SplitKey(key)
	if !ok || q.lookup == nil {
		return ""
	}
	d := q.lookup(doc)
	if d == nil {
		return fmt.Sprintf("no document %s", doc)
	}
	if _, ok := d.Find(anchor); ok {
		return ""
	}
	anchors := d.Anchors()
	if len(anchors) == 0 {
		return fmt.Sprintf("%s has no sections (no headings)", doc)
	}
	return fmt.Sprintf("%s has no section %q; nearest: %s", doc, anchor, strings.Join(section.Nearest(anchor, anchors, 3), ", "))
}

// GoldMissing reports whether a gold key names nothing in the corpus
// whose ids are given: a document it lacks, or a section its document
// lacks (a renamed or removed heading).
func (q *Query) GoldMissing(key string, ids map[string]bool) bool {
	doc, _, ok := section.SplitKey(key)
	if !ok {
		return !ids[key]
	}
	if !ids[doc] {
		return true
	}
	return q.MissingSection(key) != ""
}

// held reports whether the corpus whose ids are given holds what a
// scored id names: a document, or a section of one (its anchor is the
// gold check's to question, not this one's).
func held(corpus map[string]bool, id string) bool {
	if corpus[id] {
		return true
	}
	doc, _, ok := section.SplitKey(id)
	return ok && corpus[doc]
}

// unplacedShown is how many unplaced hits a scorecard names.
const unplacedShown = 3

// sectionHits turns a section query's hits into one hit per section each
// counts for ("doc#anchor" as its Doc, in rank order; the document alone
// for a hit that counts for none), so the document scoring scores
// sections; a section an earlier hit already counted for is left out but
// for a hit's first, which carries its text. It returns how many hits could not be placed and the first
// of them described.
func sectionHits(q *Query, hits []Hit) ([]Hit, int, []string) {
	lookup := func(doc string) *section.Doc {
		if q.lookup == nil {
			return nil
		}
		return q.lookup(doc)
	}
	out := make([]Hit, 0, len(hits))
	unplaced := 0
	var first []string
	var keys []string
	var counted map[string]bool
	for i, h := range hits {
		c := section.Chunk{Text: h.Text, Section: h.Section}
		if h.Start != nil && h.End != nil {
			c.Start, c.End, c.Offsets = *h.Start, *h.End, true
		}
		var lost *section.Lost
		keys, _, lost = section.KeysOf(section.Hit{Doc: h.Doc, Chunk: c}, i+1, lookup, keys[:0])
		if lost != nil {
			unplaced++
			if len(first) < unplacedShown {
				first = append(first, fmt.Sprintf("%s #%d %s: %s", ClipID(q.ID), lost.Rank, ClipID(lost.Doc), lost.Why))
			}
		}
		for j, k := range keys {
			// A section already counted adds nothing to the document
			// scores (they keep its first place); only the hit's text
			// (its first section) still counts for the context. So a
			// hostile document of many sections over the same bytes
			// costs its sections plus the hits, not their product.
			if counted[k] && j > 0 {
				continue
			}
			if counted == nil {
				counted = map[string]bool{}
			}
			counted[k] = true
			v := Hit{Doc: k, Chunk: h.Chunk, Score: h.Score}
			if j == 0 {
				v.Text = h.Text
			}
			out = append(out, v)
		}
	}
	return out, unplaced, first
}

// Placed is the hits a query is scored on: for a query whose gold names
// sections, one hit per section each hit counts for ("doc#anchor"), in
// rank order, once the set was given the corpus's sections
// (PlaceSections); a document query's hits as they are.
func (q *Query) Placed(hits []Hit) []Hit {
	out, _, _ := placed(q, hits)
	return out
}

// placed is the hits a query is scored on: a section query's hits as
// sectionHits makes them, a document query's as they are.
func placed(q *Query, hits []Hit) ([]Hit, int, []string) {
	if !q.sections {
		return hits, 0, nil
	}
	return sectionHits(q, hits)
}

// unplacedWarning says how many hits of the section queries could not be
// placed in their document's sections, with the first few: they count
// for their document only, so no section label can match them.
func unplacedWarning(qs []QueryScore) string {
	n := 0
	var first []string
	for _, q := range qs {
		n += q.Unplaced
		for _, f := range q.UnplacedFirst {
			if len(first) < unplacedShown {
				first = append(first, f)
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s of section-labelled queries could not be placed in their document's sections and count for the document only (no section label matches them); give the hits start/end offsets or their text, and the corpus: %s",
		n, Plural(n, "hit", "hits"), strings.Join(first, "; "))
}
