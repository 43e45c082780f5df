package pipeline

import (
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/label"
	"github.com/recallgate/recallgate/gate/section"
)

// placeSections gives a set whose gold names sections ("doc#anchor") the
// sections of the corpus at path (read once per run), so its hits are
// placed in them and its labels checked against them; a set of document
// labels only is left as it is. A set naming sections with no corpus to
// read is refused: its hits could not be placed, and every section query
// would score as a miss on both sides.
func placeSections(e *Env, set *gate.Set, path string) error {
	q := set.SectionQuery()
	if q == nil {
		return nil
	}
	if path == "" {
		return &gate.InputError{File: set.Path, Line: q.Line, Field: "gold", Err: fmt.Errorf("query %s labels sections (%s): hits are placed in them through the corpus; give --corpus, or the retriever's corpus in the config", gate.ClipID(q.ID), firstSectionLabel(q))}
	}
	snap, err := readCorpus(e, path, "for the sections")
	if err != nil {
		return err
	}
	set.PlaceSections(snap.SectionLookup())
	return nil
}

// PlaceSections is placeSections for a command that scores a run file
// itself (score): the set's hits placed in the corpus at path.
func PlaceSections(e *Env, set *gate.Set, path string) error { return placeSections(e, set, path) }

// firstSectionLabel is the query's first section label in sorted order.
func firstSectionLabel(q *gate.Query) string {
	first := ""
	for k := range q.Gold {
		if gate.IsSectionLabel(k) && (first == "" || k < first) {
			first = k
		}
	}
	return first
}

// sectionText is what the labelling page shows for a section label: the
// section's heading as its title and its text (ok false when the label
// names no section of the corpus).
func sectionText(lookup gate.SectionLookup, key string) (string, string, bool) {
	doc, anchor, ok := section.SplitKey(key)
	if !ok {
		return "", "", false
	}
	d := lookup(doc)
	if d == nil {
		return "", "", false
	}
	s, ok := d.Find(anchor)
	if !ok {
		return "", "", false
	}
	return s.Heading, d.Text[s.Start:s.End], true
}

// proposeSection is reverify's proposal for a section label whose anchor
// its document no longer has (a renamed or removed heading): the section
// of that document whose anchor is most like it, as "doc#anchor". ok is
// false for a document label, a document gone, or an anchor still there.
func proposeSection(lookup gate.SectionLookup, key string) (string, bool) {
	doc, anchor, ok := section.SplitKey(key)
	if !ok {
		return "", false
	}
	d := lookup(doc)
	if d == nil {
		return "", false
	}
	if _, ok := d.Find(anchor); ok {
		return "", false
	}
	s, ok := d.Closest(anchor)
	if !ok {
		return "", false
	}
	return section.Key(doc, s.Anchor), true
}

// sectionCandidates are a document's sections as the labelling page offers
// them to grade: "doc#anchor", the heading (the anchor when the corpus
// gave the section), the section's text; none for a document with no
// sections or not in the corpus.
func sectionCandidates(lookup gate.SectionLookup, doc string) []label.Candidate {
	d := lookup(doc)
	if d == nil {
		return nil
	}
	out := make([]label.Candidate, 0, len(d.Sections))
	for _, s := range d.Sections {
		title := s.Heading
		if title == "" {
			title = s.Anchor
		}
		out = append(out, label.Candidate{Doc: section.Key(doc, s.Anchor), Title: title, Texts: []string{d.Text[s.Start:s.End]}})
	}
	return out
}
