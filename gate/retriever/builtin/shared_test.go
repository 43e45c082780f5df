package builtin

import (
	"reflect"
	"testing"
)

// TestSharedBuildsEachIndexOnce: tables that differ only in k1, b or the
// title's weight share one build, and each ranks as its own build would;
// chunking, analysis or a title field of their own are another index.
func TestSharedBuildsEachIndexOnce(t *testing.T) {
	dir := writeCorpus(t, map[string]string{
		"a": "# Apples\napple apple pear orchard",
		"b": "# Pears\napple",
		"c": "# Plums\npear plum orchard harvest apple",
	})
	var builds []Options
	build := func(corpus string, o Options) (*Index, error) {
		builds = append(builds, o)
		return Build(readSnap(t, corpus), o)
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
		own, err := Build(readSnap(t, dir), c.o)
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
	ix, err := Build(readSnap(t, dir), o)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
