package pipeline

import (
	"testing"

	"github.com/recallgate/recallgate/gate/corpus"
	"github.com/recallgate/recallgate/gate/section"
)

// TestSectionText: the labelling page shows a section label as its
// heading and its text; a label naming no section shows nothing.
func TestSectionText(t *testing.T) {
	snap := &corpus.Snapshot{Docs: []corpus.Document{{ID: "g", Text: "## A\n\nx\n\n## B b\n\ny\n", Format: section.Markdown}}}
	look := snap.SectionLookup()
	title, text, ok := sectionText(look, "g#b-b")
	if !ok || title != "B b" || text != "## B b\n\ny\n" {
		t.Errorf("g#b-b: %q %q %v", title, text, ok)
	}
	for _, k := range []string{"g#c", "h#a", "g"} {
		if _, _, ok := sectionText(look, k); ok {
			t.Errorf("%s: shown", k)
		}
	}
}
