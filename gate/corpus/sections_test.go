package corpus

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/recallgate/recallgate/gate/section"
)

// TestSectionLookup: a folder's Markdown file is read for its headings
// (its first "# " line is the title, outside the text), a .txt file has
// none, a JSONL line may give its own sections (byte offsets in its
// text), and an id the corpus lacks has no sections.
func TestSectionLookup(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("guide/backup.md", "# Backup\n\nIntro.\n\n## Retention\n\nKeep 30 days.\n")
	write("notes.txt", "## Not a heading in plain text\n")
	snap, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	look := snap.SectionLookup()
	if got := look("guide/backup").Anchors(); !reflect.DeepEqual(got, []string{"retention"}) {
		t.Errorf("Markdown: %q", got)
	}
	if got := look("notes").Anchors(); len(got) != 0 {
		t.Errorf("plain text: %q", got)
	}
	if look("gone") != nil {
		t.Error("an id the corpus lacks has sections")
	}

	jl := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(jl, []byte(`{"id":"a","text":"0123456789","sections":[{"anchor":"first","start":0,"end":4},{"anchor":"rest","start":4,"end":10}]}`+"\n"+
		`{"id":"h","text":"<h2 id=\"x\">X</h2><p>y</p>"}`+"\n"), 0o644)
	js, err := Read(jl)
	if err != nil {
		t.Fatal(err)
	}
	if got := js.SectionLookup()("a").Counts(5, 9); !reflect.DeepEqual(got, []string{"rest"}) {
		t.Errorf("given sections: %q", got)
	}
	if got := js.SectionLookup()("h").Anchors(); !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("a JSONL line of HTML: %q", got)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id":"a","text":"t"}`+"\n"+`{"id":"b","text":"0123","sections":[{"anchor":"x","start":2,"end":9}]}`+"\n"), 0o644)
	_, err = Read(bad)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") || !strings.Contains(err.Error(), "sections") || !strings.Contains(err.Error(), "start 2, end 9 are not 0 ≤ start < end ≤ 4") {
		t.Errorf("sections past the text: got %v", err)
	}
}

// TestSectionLookupConcurrent: lookups from many goroutines (segmented
// scoring asks from one a core) read each document once and give every
// caller the same sections; run under -race.
func TestSectionLookupConcurrent(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c", "d"} {
		if err := os.WriteFile(filepath.Join(dir, n+".md"), []byte("# "+n+"\n\n## One\n\nx\n\n## Two\n\ny\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	look := snap.SectionLookup()
	got := make([][4]*section.Doc, 8)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				got[g][(i+g)%4] = look([]string{"a", "b", "c", "d"}[(i+g)%4])
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for i := range got[g] {
			if got[g][i] == nil || got[g][i] != got[0][i] || !reflect.DeepEqual(got[g][i].Anchors(), []string{"one", "two"}) {
				t.Fatalf("goroutine %d, document %d: %p, want the one read of %p with anchors one, two", g, i, got[g][i], got[0][i])
			}
		}
	}
}
