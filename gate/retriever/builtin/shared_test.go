package builtin

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestSharedBuildsEachIndexOnce: tables that differ only in k1, b or the
// title's weight share one build, and each ranks as its own build would;
// chunking, analysis or a title field of their own are another index.
func TestSharedBuildsEachIndexOnce(t *testing.T) {
	dir := corpus(t, map[string]string{
		"a": "# Apples\napple apple pear orchard",
		"b": "# Pears\napple",
		"c": "# Plums\npear plum orchard harvest apple",
	})
	var builds []Options
	build := func(corpus string, o Options) (*Index, error) {
		builds = append(builds, o)
		return Build(corpus, o)
	}
	def := DefaultOptions()
	k1b := def
	k1b.K1, k1b.B = 1.2, 0.75
	title2, title3 := def, def
	title2.TitleBoost, title3.TitleBoost = 2, 3
	chunked := def
	chunked.ChunkWords = 2
	nostem := def
	nostem.Analysis.Stem = false
	var s Shared
	for _, c := range []struct {
		o         Options
		newBuilds int
	}{
		{def, 1}, {k1b, 0}, {title2, 1}, {title3, 0}, {chunked, 1}, {nostem, 1}, {def, 0},
	} {
		before := len(builds)
		ix, err := s.Build(dir, c.o, build)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(builds) - before; got != c.newBuilds {
			t.Errorf("%+v: %d builds, want %d", c.o, got, c.newBuilds)
		}
		own, err := Build(dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"apple", "pear orchard", "plums apple"} {
			if got, want := ix.Search(q, 3), own.Search(q, 3); !reflect.DeepEqual(got, want) {
				t.Errorf("%+v %q: shared %+v, own build %+v", c.o, q, got, want)
			}
		}
	}
	if len(builds) != 4 {
		t.Errorf("%d builds for 4 distinct indexes", len(builds))
	}
	if _, err := mustBuild(t, dir, def).Rescored(chunked); err == nil {
		t.Error("an index rescored with options of another index")
	}
}

func mustBuild(t *testing.T, dir string, o Options) *Index {
	t.Helper()
	ix, err := Build(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestSharedTextsHeldOnce: every index a Shared builds from one corpus
// (whole documents, a title field of their own, chunks of irregularly
// spaced words) points into one set of texts, and a hit's text is the
// bytes of that set, not a copy; the chunked hit reads as its words joined
// by single spaces, as before.
func TestSharedTextsHeldOnce(t *testing.T) {
	dir := corpus(t, map[string]string{
		"a": "# Apples\napple  apple\tpear orchard",
		"b": "# Pears\napple",
	})
	def := DefaultOptions()
	title := def
	title.TitleBoost = 2
	chunked := def
	chunked.ChunkWords, chunked.ChunkOverlap = 2, 1
	var s Shared
	var first *Index
	for _, o := range []Options{def, title, chunked} {
		ix, err := s.Build(dir, o, Build)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = ix
		}
		if ix.Texts() != first.Texts() {
			t.Errorf("options %+v: the index holds texts of its own", o)
		}
	}
	whole := first.Search("pear", 10)
	if len(whole) == 0 {
		t.Fatal("no hit")
	}
	var held string
	for _, d := range first.Texts().docs {
		if strings.Contains(d, whole[0].Text) && len(d) == len(whole[0].Text) {
			held = d
		}
	}
	if held == "" || unsafe.StringData(held) != unsafe.StringData(whole[0].Text) {
		t.Errorf("the hit's text %q is a copy, not the held text", whole[0].Text)
	}
	ix, _ := s.Build(dir, chunked, Build)
	var texts []string
	for _, h := range ix.Search("apple pear", 10) {
		texts = append(texts, h.Chunk+"="+h.Text)
	}
	slices.Sort(texts)
	// "apple  apple\tpear orchard" in chunks of two words, one shared.
	want := []string{"a#0=apple apple", "a#1=apple pear", "a#2=pear orchard", "b#0=apple"}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("chunk texts %q, want %q", texts, want)
	}
}

// TestBuildsShareHeldTexts: two builds of one corpus outside a Shared
// (another title field) still hold one copy of each text while the first
// index lives; a changed document is the new build's own.
func TestBuildsShareHeldTexts(t *testing.T) {
	dir := corpus(t, map[string]string{"a": "# A\napple pear", "b": "# B\nplum"})
	first, err := Build(dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.TitleBoost = 2
	second, err := Build(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range first.Texts().docs {
		if unsafe.StringData(d) != unsafe.StringData(second.Texts().docs[i]) {
			t.Errorf("document %d: the second build holds its own copy", i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\nplum cherry"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := Build(dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h := third.Search("cherry", 1); len(h) != 1 || h[0].Text != "plum cherry" {
		t.Errorf("changed document: %+v", h)
	}
	runtime.KeepAlive(first)
}
