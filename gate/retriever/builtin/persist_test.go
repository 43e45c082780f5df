package builtin

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"math"
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
		if h, _, err := readSaved(f); err == nil && h.Options == ix.opts {
			return f
		}
	}
	t.Fatalf("no saved index for %+v", ix.opts)
	return ""
}

// readSaved splits a saved index into its header and body.
func readSaved(path string) (header, body, error) {
	var h header
	var b body
	raw, err := os.ReadFile(path)
	if err != nil {
		return h, b, err
	}
	n := int(binary.BigEndian.Uint32(raw[len(magic)+2:]))
	rest := raw[len(magic)+6:]
	if err := gob.NewDecoder(bytes.NewReader(rest[:n])).Decode(&h); err != nil {
		return h, b, err
	}
	return h, b, gob.NewDecoder(bytes.NewReader(rest[n:])).Decode(&b)
}

// writeSaved writes h and b as a saved index, the body's length and
// checksum made for it.
func writeSaved(t *testing.T, path string, h header, b body) {
	t.Helper()
	var bb bytes.Buffer
	if err := gob.NewEncoder(&bb).Encode(&b); err != nil {
		t.Fatal(err)
	}
	head, err := headFor(h, bb.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(head, bb.Bytes()...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSavedIndexChecked: a saved index that was damaged, or whose
// postings, counts or lengths were edited, is not used: it is rebuilt
// with a warning naming what is wrong, and the rebuilt index answers as
// a fresh build. One of another version is rebuilt quietly. No document
// text is saved.
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
	// first is where term's postings start in f's data.
	first := func(f *savedField, term string) int64 {
		for i, x := range f.Terms {
			if x == term && f.DFs[i] >= 2 {
				if i == 0 {
					return 0
				}
				return f.Ends[i-1]
			}
		}
		t.Fatalf("no term %s with two postings", term)
		return 0
	}
	for _, c := range []struct {
		name, warn string
		edit       func(h *header, b *body)
		raw        func(raw []byte) []byte // edits the file's bytes instead
	}{
		{name: "chunk count", warn: "chunks", edit: func(h *header, b *body) { h.Chunks++ }},
		{name: "lengths", warn: "lengths", edit: func(h *header, b *body) { b.TextField.Lengths = b.TextField.Lengths[1:] }},
		{name: "length NaN", warn: "sum of its counts", edit: func(h *header, b *body) { b.TextField.Lengths[0] = float32(math.NaN()) }},
		{name: "length negative", warn: "sum of its counts", edit: func(h *header, b *body) { b.TextField.Lengths[1] = -1e9 }},
		{name: "count changed", warn: "sum of its counts", edit: func(h *header, b *body) { b.TextField.Data[first(&b.TextField, "key")+1] = 100 }},
		{name: "count zero", warn: "do not decode", edit: func(h *header, b *body) { b.TextField.Data[1] = 0 }},
		{name: "chunk past the end", warn: "do not decode", edit: func(h *header, b *body) { b.TextField.Data[0] = 100 }},
		{name: "df", warn: "do not decode", edit: func(h *header, b *body) { b.TextField.DFs[0]++ }},
		{name: "chunk twice", warn: "do not decode", edit: func(h *header, b *body) {
			b.TextField.Data[first(&b.TextField, "key")+2] = 0 // the second posting's gap: the same chunk again
		}},
		{name: "truncated", warn: "inconsistent", edit: func(h *header, b *body) { b.TextField.Data = b.TextField.Data[:len(b.TextField.Data)-1] }},
		{name: "ends", warn: "inconsistent", edit: func(h *header, b *body) { b.TextField.Ends[0] = 0 }},
		{name: "term twice", warn: "saved twice", edit: func(h *header, b *body) { b.TextField.Terms[1] = b.TextField.Terms[0] }},
		{name: "no title field", warn: "title field", edit: func(h *header, b *body) { b.TitleField = nil }},
		{name: "options", warn: "another corpus or options", edit: func(h *header, b *body) { h.Options.K1 = 2 }},
		{name: "damaged body", warn: "checksum", raw: func(raw []byte) []byte { raw[len(raw)-3] ^= 1; return raw }},
		{name: "short body", warn: "read body", raw: func(raw []byte) []byte { return raw[:len(raw)-1] }},
		{name: "header too long", warn: "header of", raw: func(raw []byte) []byte {
			binary.BigEndian.PutUint32(raw[len(magic)+2:], maxHeader+1)
			return raw
		}},
		{name: "body over what the corpus could need", warn: "could need", edit: func(h *header, b *body) {
			b.TextField.Data = append(b.TextField.Data, make([]byte, 2<<20)...)
		}},
		{name: "not a saved index", warn: "not a saved index", raw: func([]byte) []byte { return []byte("garbage") }},
		{name: "other version", raw: func(raw []byte) []byte {
			binary.BigEndian.PutUint16(raw[len(magic):], snapshotVersion-1)
			return raw
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.raw != nil {
				if err := os.WriteFile(path, c.raw(bytes.Clone(good)), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := os.WriteFile(path, good, 0o644); err != nil {
					t.Fatal(err)
				}
				h, b, err := readSaved(path)
				if err != nil {
					t.Fatal(err)
				}
				c.edit(&h, &b)
				writeSaved(t, path, h, b)
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

// FuzzLoadIndex loads a saved index of a small corpus whose body is the
// fuzzer's, under a header that fits the corpus, with the body's length
// and checksum, so every edit reaches the body's decoding and checks. It
// never panics; an index it accepts answers with finite scores, and with
// the body as saved, as the index it was saved from. (An accepted edit
// may answer otherwise: a term's postings swapped are not detectable,
// see BuildCached.)
func FuzzLoadIndex(f *testing.F) {
	dir := f.TempDir()
	for name, text := range map[string]string{"a": "# Keys\n\nrotate keys often", "b": "other words, other keys", "c": "keys keys"} {
		if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	o := Options{K1: 0.9, B: 0.4, TitleBoost: 2, Analysis: Analysis{Stem: true, StopWords: true}}
	snap := readSnap(f, dir)
	fresh, err := Build(snap, o)
	if err != nil {
		f.Fatal(err)
	}
	saved := filepath.Join(f.TempDir(), "saved.gob")
	if err := fresh.save(saved); err != nil {
		f.Fatal(err)
	}
	h, b, err := readSaved(saved)
	if err != nil {
		f.Fatal(err)
	}
	var good bytes.Buffer
	if err := gob.NewEncoder(&good).Encode(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	b.TitleField = nil
	var noTitle bytes.Buffer
	gob.NewEncoder(&noTitle).Encode(&b)
	f.Add(noTitle.Bytes())
	queries := []string{"keys", "rotating", "other", "often words"}
	f.Fuzz(func(t *testing.T, body []byte) {
		head, err := headFor(h, body)
		if err != nil {
			t.Fatal(err)
		}
		raw := append(head, body...)
		p := filepath.Join(t.TempDir(), "saved.gob")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := loadIndex(p, snap, o)
		if err != nil {
			return
		}
		for _, q := range queries {
			got := ix.Search(q, 10)
			for _, hit := range got {
				if math.IsNaN(hit.Score) || math.IsInf(hit.Score, 0) {
					t.Fatalf("%q: accepted index scores %v", q, got)
				}
			}
			if want := fresh.Search(q, 10); bytes.Equal(body, good.Bytes()) && !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: the saved body answers %v, want %v", q, got, want)
			}
		}
	})
}
