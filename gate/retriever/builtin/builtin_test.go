package builtin

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/corpus"
	"github.com/recallgate/recallgate/internal/shareddata"
)

// readSnap reads the corpus at path for a build.
func readSnap(tb testing.TB, path string) *corpus.Snapshot {
	tb.Helper()
	s, err := corpus.Read(path)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func writeCorpus(t *testing.T, docs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for id, text := range docs {
		p := filepath.Join(dir, id+".md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAnalysis(t *testing.T) {
	a := Analysis{Stem: true, StopWords: true}
	got := a.terms("The Rotating of API-keys, TP-429!", nil)
	want := []string{"rotat", "api", "key", "tp", "429"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
	if got := (Analysis{}).terms("The Keys", nil); !reflect.DeepEqual(got, []string{"the", "keys"}) {
		t.Errorf("no analysis: %q", got)
	}
}

// TestBM25HandComputed checks the score of a one-term query against the
// formula idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avg)).
func TestBM25HandComputed(t *testing.T) {
	dir := writeCorpus(t, map[string]string{
		"a": "apple apple pear",
		"b": "apple",
		"c": "pear plum",
	})
	o := Options{K1: 1.2, B: 0.75}
	ix, err := Build(readSnap(t, dir), o)
	if err != nil {
		t.Fatal(err)
	}
	hits := ix.Search("apple", 10)
	if len(hits) != 2 || hits[0].Doc != "b" || hits[1].Doc != "a" {
		t.Fatalf("hits %+v", hits)
	}
	// N = 3, df = 2: idf = ln(1 + 1.5/2.5); avg length = 6/3 = 2.
	idf := math.Log(1 + 1.5/2.5)
	wantB := idf * 1 * 2.2 / (1 + 1.2*(1-0.75+0.75*1/2.0))
	wantA := idf * 2 * 2.2 / (2 + 1.2*(1-0.75+0.75*3/2.0))
	if math.Abs(hits[0].Score-wantB) > 1e-12 || math.Abs(hits[1].Score-wantA) > 1e-12 {
		t.Errorf("scores %v %v, want %v %v", hits[0].Score, hits[1].Score, wantB, wantA)
	}
}

func TestChunkingAndTitle(t *testing.T) {
	dir := writeCorpus(t, map[string]string{
		"guide/keys": "# Rotating keys\n\none two three four five six seven",
		"other":      "# Unrelated\n\nseven",
	})
	ix, err := Build(readSnap(t, dir), Options{K1: 0.9, B: 0.4, ChunkWords: 3, ChunkOverlap: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Chunks() != 4 { // [one two three] [three four five] [five six seven] + other
		t.Fatalf("%d chunks", ix.Chunks())
	}
	hits := ix.Search("five", 10)
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Chunk)
	}
	if strings.Join(ids, ",") != "guide/keys#1,guide/keys#2" {
		t.Errorf("chunks %v", ids)
	}
	if hits[0].Doc != "guide/keys" || hits[0].Text != "three four five" {
		t.Errorf("hit %+v", hits[0])
	}
	// The title is searchable in every chunk.
	if hs := ix.Search("rotating", 10); len(hs) != 3 {
		t.Errorf("title match in %d chunks, want 3", len(hs))
	}
}

func TestTitleBoostField(t *testing.T) {
	dir := writeCorpus(t, map[string]string{
		"a": "# Keys\n\nsomething else entirely here",
		"b": "# Other\n\nkeys keys mentioned in body",
	})
	flat, _ := Build(readSnap(t, dir), Options{K1: 0.9, B: 0.4})
	boosted, _ := Build(readSnap(t, dir), Options{K1: 0.9, B: 0.4, TitleBoost: 5})
	if flat.Search("keys", 1)[0].Doc != "b" || boosted.Search("keys", 1)[0].Doc != "a" {
		t.Errorf("flat %v boosted %v", flat.Search("keys", 2), boosted.Search("keys", 2))
	}
}

func TestDeterministicTies(t *testing.T) {
	dir := writeCorpus(t, map[string]string{"a": "same words", "b": "same words", "c": "same words"})
	ix, _ := Build(readSnap(t, dir), DefaultOptions())
	for i := 0; i < 20; i++ {
		hs := ix.Search("same", 2)
		if len(hs) != 2 || hs[0].Doc != "a" || hs[1].Doc != "b" {
			t.Fatalf("ties: %+v", hs)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{
		{ChunkWords: -1}, {ChunkWords: 5, ChunkOverlap: 5}, {K1: -1}, {B: 2}, {TitleBoost: -1},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

func TestBuildCachedReusesAndRebuilds(t *testing.T) {
	dir := writeCorpus(t, map[string]string{"a": "# Keys\n\nrotate keys", "b": "other words", "c": "keys keys"})
	cache := t.TempDir()
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }
	o := Options{K1: 0.9, B: 0.4, TitleBoost: 2, Analysis: Analysis{Stem: true}}
	first, err := BuildCached(readSnap(t, dir), o, cache, warn)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "bm25-*.gob"))
	if len(files) != 1 {
		t.Fatalf("%d saved indexes", len(files))
	}
	second, err := BuildCached(readSnap(t, dir), o, cache, warn)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first.Search("rotating keys", 10), second.Search("rotating keys", 10)) || second.Fingerprint() != first.Fingerprint() {
		t.Error("the loaded index answers differently")
	}
	// Other options, another index; a corrupt file is rebuilt with a warning.
	if _, err := BuildCached(readSnap(t, dir), Options{K1: 1.2, B: 0.75}, cache, warn); err != nil {
		t.Fatal(err)
	}
	if files, _ = filepath.Glob(filepath.Join(cache, "bm25-*.gob")); len(files) != 2 {
		t.Errorf("%d saved indexes, want 2", len(files))
	}
	os.WriteFile(files[0], []byte("garbage"), 0o644)
	os.WriteFile(files[1], []byte("garbage"), 0o644)
	third, err := BuildCached(readSnap(t, dir), o, cache, warn)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "unusable and is rebuilt") {
		t.Fatalf("err %v warnings %q", err, warnings)
	}
	if !reflect.DeepEqual(first.Search("keys", 10), third.Search("keys", 10)) {
		t.Error("rebuilt index differs")
	}
	// A changed corpus gets a new index.
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("keys now"), 0o644)
	fourth, _ := BuildCached(readSnap(t, dir), o, cache, warn)
	if fourth.Fingerprint() == first.Fingerprint() || len(fourth.Search("keys", 10)) != 3 {
		t.Error("a changed corpus reused the old index")
	}
}

func BenchmarkSciFactIndex(b *testing.B) {
	path := shareddata.Path(b, "data/scifact/corpus.jsonl.gz")
	cache := b.TempDir()
	if _, err := BuildCached(readSnap(b, path), DefaultOptions(), cache, func(string) {}); err != nil {
		b.Fatal(err)
	}
	b.Run("build", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Build(readSnap(b, path), DefaultOptions()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load-persisted", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := BuildCached(readSnap(b, path), DefaultOptions(), cache, func(s string) { b.Fatal(s) }); err != nil {
				b.Fatal(err)
			}
		}
	})
}
