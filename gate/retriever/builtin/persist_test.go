package builtin

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/shareddata"
)

// TestSciFactLoadedAnswersAsBuilt saves each SciFact index shape, loads
// it back and compares every hit of the 300 queries with the built one's.
func TestSciFactLoadedAnswersAsBuilt(t *testing.T) {
	corpus := shareddata.Path(t, "data/scifact/corpus.jsonl.gz")
	queries := sciFactQueries(t)
	cache := t.TempDir()
	for _, v := range sciFactVariants {
		built, err := BuildCached(readSnap(t, corpus), v.opts(), cache, func(s string) { t.Fatal(s) })
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := loadIndex(savedPath(t, cache, built), readSnap(t, corpus), v.opts())
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if got, want := hitsHash(loaded, queries), hitsHash(built, queries); got != want || loaded.Chunks() != built.Chunks() {
			t.Errorf("%s: the loaded index answers otherwise", v.name)
		}
	}
}

// savedPath is the file BuildCached saved ix in.
func savedPath(t *testing.T, dir string, ix *Index) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "bm25-*.gob"))
	for _, f := range files {
		var s snapshot
		b, _ := os.ReadFile(f)
		if gob.NewDecoder(bytes.NewReader(b)).Decode(&s) == nil && s.Options == ix.opts {
			return f
		}
	}
	t.Fatalf("no saved index for %+v", ix.opts)
	return ""
}

// TestSavedIndexChecked: a saved index whose postings or counts were
// edited is not used; it is rebuilt with a warning naming what is wrong,
// and the rebuilt index answers as a fresh build. One of another version
// is rebuilt quietly. No document text is saved.
func TestSavedIndexChecked(t *testing.T) {
	dir := writeCorpus(t, map[string]string{"a": "# Keys\n\nrotate keys uniquewordinbody", "b": "other words", "c": "keys keys"})
	o := Options{K1: 0.9, B: 0.4, TitleBoost: 2, Analysis: Analysis{Stem: true}}
	fresh, err := Build(readSnap(t, dir), o)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if _, err := BuildCached(readSnap(t, dir), o, cache, func(s string) { t.Fatal(s) }); err != nil {
		t.Fatal(err)
	}
	path := savedPath(t, cache, fresh)
	good, _ := os.ReadFile(path)
	if !bytes.Contains(good, []byte("uniquewordinbod")) || bytes.Contains(good, []byte("rotate keys")) {
		t.Errorf("the saved index should hold the term but not the text")
	}
	var orig snapshot
	if err := gob.NewDecoder(bytes.NewReader(good)).Decode(&orig); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, warn string
		edit       func(s *snapshot)
	}{
		{"chunk count", "chunks", func(s *snapshot) { s.Chunks++ }},
		{"lengths", "lengths", func(s *snapshot) { s.TextField.Lengths = s.TextField.Lengths[1:] }},
		{"count zero", "do not decode", func(s *snapshot) { s.TextField.Data[1] = 0 }},
		{"chunk past the end", "do not decode", func(s *snapshot) { s.TextField.Data[0] = 100 }},
		{"df", "do not decode", func(s *snapshot) { s.TextField.DFs[0]++ }},
		{"chunk twice", "do not decode", func(s *snapshot) {
			f := &s.TextField
			for i, term := range f.Terms {
				if term == "key" && f.DFs[i] >= 2 {
					start := int64(0)
					if i > 0 {
						start = f.Ends[i-1]
					}
					f.Data[start+2] = 0 // the second posting's gap: the same chunk again
					return
				}
			}
			t.Fatal("no term key with two postings")
		}},
		{"truncated", "inconsistent", func(s *snapshot) { s.TextField.Data = s.TextField.Data[:len(s.TextField.Data)-1] }},
		{"ends", "inconsistent", func(s *snapshot) { s.TextField.Ends[0] = 0 }},
		{"term twice", "saved twice", func(s *snapshot) { s.TextField.Terms[1] = s.TextField.Terms[0] }},
		{"no title field", "title field", func(s *snapshot) { s.TitleField = nil }},
		{"options", "another corpus or options", func(s *snapshot) { s.Options.K1 = 2 }},
		{"other version", "", func(s *snapshot) { s.Version = 2 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s snapshot
			gob.NewDecoder(bytes.NewReader(good)).Decode(&s)
			c.edit(&s)
			var b bytes.Buffer
			if err := gob.NewEncoder(&b).Encode(&s); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			ix, err := BuildCached(readSnap(t, dir), o, cache, func(s string) { warnings = append(warnings, s) })
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.warn == "" && len(warnings) != 0:
				t.Errorf("warnings %q, want none", warnings)
			case c.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], c.warn)):
				t.Errorf("warnings %q, want one naming %q", warnings, c.warn)
			}
			for _, q := range []string{"keys", "rotating", "other", "uniquewordinbody"} {
				if !reflect.DeepEqual(ix.Search(q, 10), fresh.Search(q, 10)) {
					t.Errorf("%q: %v, want %v", q, ix.Search(q, 10), fresh.Search(q, 10))
				}
			}
		})
	}
}
