package builtin

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/corpus"
)

// snapshot is the on-disk form of an Index (encoding/gob): its
// postings and lengths. The chunks and their texts are not saved: a load
// splits the corpus it is given again (cheap beside the analysis), after
// checking its fingerprint, and takes the texts from there.
type snapshot struct {
	Version     int
	Options     Options
	Fingerprint string
	Chunks      int
	TextField   savedField
	TitleField  *savedField
}

// savedField is a field's postings, packed as in memory: term i's are
// Data[Ends[i-1]:Ends[i]], DFs[i] of them.
type savedField struct {
	Terms   []string
	DFs     []int32
	Ends    []int64
	Data    []byte
	Lengths []float32
}

// snapshotVersion 3 packs the postings and saves no text; a file of
// another version is rebuilt without a warning.
const snapshotVersion = 3

// saved is f's postings by term, terms the index's vocabulary.
func (f *field) saved(terms []string) savedField {
	s := savedField{Lengths: f.lengths}
	for id := range f.postings {
		p := &f.postings[id]
		if p.df == 0 {
			continue
		}
		s.Terms = append(s.Terms, terms[id])
		s.DFs = append(s.DFs, p.df)
		s.Data = append(s.Data, p.data...)
		s.Ends = append(s.Ends, int64(len(s.Data)))
	}
	return s
}

// field is the field s saved for an index of chunks chunks, its terms
// numbered in v. Every list is decoded once and checked: its count, its
// chunks rising and in range, its counts positive.
func (s *savedField) field(v *vocabulary, chunks int) (field, error) {
	f := field{lengths: s.Lengths, avg: mean(s.Lengths)}
	if len(s.Lengths) != chunks {
		return f, fmt.Errorf("%d lengths for %d chunks", len(s.Lengths), chunks)
	}
	if len(s.DFs) != len(s.Terms) || len(s.Ends) != len(s.Terms) {
		return f, fmt.Errorf("postings are inconsistent")
	}
	var start int64
	for i, t := range s.Terms {
		end := s.Ends[i]
		if end <= start || end > int64(len(s.Data)) || s.DFs[i] <= 0 {
			return f, fmt.Errorf("postings of %q are inconsistent", t)
		}
		p := postings{data: s.Data[start:end:end], df: s.DFs[i]}
		start = end
		if !p.check(chunks) {
			return f, fmt.Errorf("postings of %q do not decode", t)
		}
		id := v.add(t)
		if int(id) >= len(f.postings) {
			f.postings = append(f.postings, make([]postings, int(id)+1-len(f.postings))...)
		}
		if f.postings[id].df > 0 {
			return f, fmt.Errorf("term %q is saved twice", t)
		}
		f.postings[id] = p
	}
	if start != int64(len(s.Data)) {
		return f, fmt.Errorf("postings are inconsistent")
	}
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
	if ix, err := loadIndex(path, snap, o); err == nil {
		return ix, nil
	} else if !os.IsNotExist(err) && !errors.Is(err, errOtherVersion) {
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

// errOtherVersion is a saved index of another version: rebuilt quietly.
var errOtherVersion = errors.New("saved by another version")

func loadIndex(path string, snap *corpus.Snapshot, o Options) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s snapshot
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&s); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if s.Version != snapshotVersion {
		return nil, errOtherVersion
	}
	if s.Fingerprint != snap.Fingerprint || s.Options != o {
		return nil, fmt.Errorf("it is for another corpus or options")
	}
	ix := &Index{opts: o, texts: &Texts{}}
	if err := ix.walk(snap, nil); err != nil {
		return nil, err
	}
	if len(ix.chunks) != s.Chunks {
		return nil, fmt.Errorf("it has %d chunks, the corpus splits into %d", s.Chunks, len(ix.chunks))
	}
	if ix.text, err = s.TextField.field(&ix.vocab, s.Chunks); err != nil {
		return nil, err
	}
	if s.TitleField != nil {
		t, err := s.TitleField.field(&ix.vocab, s.Chunks)
		if err != nil {
			return nil, err
		}
		ix.title = &t
	}
	if (ix.title != nil) != (o.TitleBoost > 0) {
		return nil, fmt.Errorf("title field does not match the options")
	}
	ix.held(snap)
	ix.acc = accumulators(len(ix.chunks))
	return ix, nil
}

// save writes the index atomically.
func (ix *Index) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	s := snapshot{Version: snapshotVersion, Options: ix.opts, Fingerprint: ix.fingerprint, Chunks: len(ix.chunks), TextField: ix.text.saved(ix.vocab.terms)}
	if ix.title != nil {
		t := ix.title.saved(ix.vocab.terms)
		s.TitleField = &t
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return gob.NewEncoder(w).Encode(&s) })
}
