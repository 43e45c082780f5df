package builtin

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/corpus"
)

// snapshot is the on-disk form of an Index (encoding/gob).
type snapshot struct {
	Version     int
	Options     Options
	Fingerprint string
	Docs        []string // chunk i's parent document
	IDs         []string // chunk ids
	DocTexts    []string // every document's text, in corpus order
	TextOf      []int32  // chunk i's document in DocTexts
	Starts      []int32  // chunk i's span in its document's text
	Ends        []int32
	Plain       []bool // chunk i's span reads as the chunk
	Text        fieldSnapshot
	Title       *fieldSnapshot
}

type fieldSnapshot struct {
	Terms   []string
	Chunks  [][]int32
	TFs     [][]float32
	Lengths []float32
	Avg     float64
}

const snapshotVersion = 2

// snapshot is f's postings by term, terms the index's vocabulary.
func (f *field) snapshot(terms []string) fieldSnapshot {
	s := fieldSnapshot{Lengths: f.lengths, Avg: f.avg}
	for id := range f.postings {
		p := &f.postings[id]
		if p.df == 0 {
			continue
		}
		cs := make([]int32, 0, p.df)
		tfs := make([]float32, 0, p.df)
		p.each(func(c int32, tf uint32) {
			cs, tfs = append(cs, c), append(tfs, float32(tf))
		})
		s.Terms = append(s.Terms, terms[id])
		s.Chunks = append(s.Chunks, cs)
		s.TFs = append(s.TFs, tfs)
	}
	return s
}

// field is the field s saved, its terms numbered in v.
func (s *fieldSnapshot) field(v *vocabulary) (field, error) {
	f := field{lengths: s.Lengths, avg: s.Avg}
	if len(s.Chunks) != len(s.Terms) || len(s.TFs) != len(s.Terms) {
		return f, fmt.Errorf("postings are inconsistent")
	}
	for i, t := range s.Terms {
		if len(s.Chunks[i]) != len(s.TFs[i]) || len(s.Chunks[i]) == 0 {
			return f, fmt.Errorf("postings of %q are inconsistent", t)
		}
		id := v.add(t)
		if int(id) >= len(f.postings) {
			f.postings = append(f.postings, make([]postings, int(id)+1-len(f.postings))...)
		}
		p := &f.postings[id]
		if p.df > 0 {
			return f, fmt.Errorf("term %q is saved twice", t)
		}
		for j, c := range s.Chunks[i] {
			tf := s.TFs[i][j]
			switch {
			case c < 0 || int(c) >= len(s.Lengths):
				return f, fmt.Errorf("posting points past the last chunk")
			case j > 0 && c <= s.Chunks[i][j-1]:
				return f, fmt.Errorf("postings of %q are out of order", t)
			case !(tf >= 1 && tf <= math.MaxUint32) || tf != float32(math.Trunc(float64(tf))):
				return f, fmt.Errorf("postings of %q have a count %v", t, tf)
			}
			p.add(c, uint32(tf))
		}
	}
	f.compact()
	return f, nil
}

// BuildCached is Build with a persisted index: it reuses dir's index of the
// same corpus content (the snapshot's fingerprint) and options, or builds
// one and saves it. A corrupt or unreadable saved index is rebuilt; warn
// hears why.
func BuildCached(snap *corpus.Snapshot, o Options, dir string, warn func(string)) (*Index, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	fp := snap.Fingerprint
	opts, _ := json.Marshal(o)
	sum := sha256.Sum256(append([]byte(fp+"\x00"), opts...))
	path := filepath.Join(dir, "bm25-"+hex.EncodeToString(sum[:])[:32]+".gob")
	if ix, err := loadIndex(path, fp, o); err == nil {
		return ix, nil
	} else if !os.IsNotExist(err) {
		warn(fmt.Sprintf("saved index %s is unusable and is rebuilt: %v", path, err))
	}
	ix, err := Build(snap, o)
	if err != nil {
		return nil, err
	}
	if err := ix.save(path); err != nil {
		warn(fmt.Sprintf("cannot save the index: %v", err))
	}
	return ix, nil
}

func loadIndex(path, fp string, o Options) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s snapshot
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&s); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if s.Version != snapshotVersion || s.Fingerprint != fp || s.Options != o {
		return nil, fmt.Errorf("it is for another corpus, options or version")
	}
	n := len(s.Docs)
	if len(s.IDs) != n || len(s.TextOf) != n || len(s.Starts) != n || len(s.Ends) != n || len(s.Plain) != n || len(s.Text.Lengths) != n {
		return nil, fmt.Errorf("chunk lists are inconsistent")
	}
	ix := &Index{opts: o, fingerprint: fp, texts: &Texts{fingerprint: fp, docs: s.DocTexts}}
	for i := range s.Docs {
		c := chunk{doc: s.Docs[i], id: s.IDs[i], text: s.TextOf[i], start: s.Starts[i], end: s.Ends[i], plain: s.Plain[i]}
		if c.text < 0 || int(c.text) >= len(s.DocTexts) || c.start < 0 || c.start > c.end || int(c.end) > len(s.DocTexts[c.text]) {
			return nil, fmt.Errorf("chunk %d points outside the texts", i)
		}
		ix.chunks = append(ix.chunks, c)
	}
	if ix.text, err = s.Text.field(&ix.vocab); err != nil {
		return nil, err
	}
	if s.Title != nil {
		t, err := s.Title.field(&ix.vocab)
		if err != nil {
			return nil, err
		}
		ix.title = &t
	}
	if (ix.title != nil) != (o.TitleBoost > 0) {
		return nil, fmt.Errorf("title field does not match the options")
	}
	ix.acc = accumulators(len(ix.chunks))
	return ix, nil
}

// save writes the index atomically.
func (ix *Index) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	s := snapshot{Version: snapshotVersion, Options: ix.opts, Fingerprint: ix.fingerprint, Text: ix.text.snapshot(ix.vocab.terms)}
	s.DocTexts = ix.texts.docs
	for _, c := range ix.chunks {
		s.Docs, s.IDs = append(s.Docs, c.doc), append(s.IDs, c.id)
		s.TextOf, s.Starts, s.Ends, s.Plain = append(s.TextOf, c.text), append(s.Starts, c.start), append(s.Ends, c.end), append(s.Plain, c.plain)
	}
	if ix.title != nil {
		t := ix.title.snapshot(ix.vocab.terms)
		s.Title = &t
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return gob.NewEncoder(w).Encode(&s) })
}
