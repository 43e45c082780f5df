package builtin

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
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
	"github.com/recallgate/recallgate/gate/input"
)

// A saved index is magic, the format's version (uint16), the header's
// length (uint32), the header (gob) and the body (gob) the header gives
// the length and SHA-256 of. A load reads the small header first and the
// body only when the header matches the corpus and options and its
// length is within what that corpus could need; the body's checksum
// catches a damaged file before it is decoded.
//
// The chunks and their texts are not saved: a load splits the corpus it
// is given again (cheap beside the analysis) and takes the texts from
// there.
const (
	magic           = "recallgate-bm25\x00"
	snapshotVersion = 3
	maxHeader       = 64 << 10
)

// header says what a saved index is for and what its body is.
type header struct {
	Options     Options
	Fingerprint string
	Chunks      int
	BodyBytes   int64
	BodySum     [sha256.Size]byte
}

// body is a saved index's postings and lengths, per field.
type body struct {
	TextField  savedField
	TitleField *savedField
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
// numbered in v. Every list is read once, as a search reads it, and
// checked: its count, its chunks rising and in range, its counts
// positive; every chunk's length is a whole number, the sum of its
// counts.
func (s *savedField) field(v *vocabulary, chunks int) (field, error) {
	f := field{lengths: s.Lengths}
	if len(s.Lengths) != chunks {
		return f, fmt.Errorf("%d lengths for %d chunks", len(s.Lengths), chunks)
	}
	if len(s.DFs) != len(s.Terms) || len(s.Ends) != len(s.Terms) {
		return f, fmt.Errorf("postings are inconsistent")
	}
	sums := make([]uint64, chunks)
	var start int64
	for i, t := range s.Terms {
		end := s.Ends[i]
		if end <= start || end > int64(len(s.Data)) || s.DFs[i] <= 0 {
			return f, fmt.Errorf("postings of %q are inconsistent", t)
		}
		p := postings{data: s.Data[start:end:end], df: s.DFs[i]}
		start = end
		if !p.check(sums) {
			return f, fmt.Errorf("postings of %q do not decode", t)
		}
		p2 := f.at(v.add(t))
		if p2.df > 0 {
			return f, fmt.Errorf("term %q is saved twice", t)
		}
		*p2 = p
	}
	if start != int64(len(s.Data)) {
		return f, fmt.Errorf("postings are inconsistent")
	}
	for c, l := range s.Lengths {
		if float64(l) != float64(sums[c]) {
			return f, fmt.Errorf("chunk %d's length %v is not the sum of its counts, %d", c, l, sums[c])
		}
	}
	f.avg = mean(f.lengths)
	return f, nil
}

// BuildCached is Build with a persisted index: it reuses dir's index of the
// same corpus content (the snapshot's fingerprint) and options, or builds
// one and saves it. A saved index that is damaged (its checksum), does not
// fit the corpus or fails a check is rebuilt, and warn hears why; one of
// another version is rebuilt quietly. The checks cannot tell a term's
// postings swapped with another's by hand, with the checksum made again:
// the cache is trusted as far as that (the pipeline refuses any cache file
// the repository tracks).
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
	// A FIFO (or a device, a folder) at the index's path is refused
	// without waiting: a plain open of a FIFO blocks until a writer comes.
	f, err := input.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pre [len(magic) + 2 + 4]byte
	if _, err := io.ReadFull(f, pre[:]); err != nil || string(pre[:len(magic)]) != magic {
		return nil, fmt.Errorf("it is not a saved index of this recallgate (an older one saved it, or it is damaged)")
	}
	if binary.BigEndian.Uint16(pre[len(magic):]) != snapshotVersion {
		return nil, errOtherVersion
	}
	n := binary.BigEndian.Uint32(pre[len(magic)+2:])
	if n > maxHeader {
		return nil, fmt.Errorf("its header of %d bytes is over %d", n, maxHeader)
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(f, hb); err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	var h header
	if err := gob.NewDecoder(bytes.NewReader(hb)).Decode(&h); err != nil {
		return nil, fmt.Errorf("decode header: %w", err)
	}
	if h.Fingerprint != snap.Fingerprint || h.Options != o {
		return nil, fmt.Errorf("it is for another corpus or options")
	}
	ix := &Index{opts: o, texts: &Texts{}}
	var text int64 // the bytes the chunks' analysis reads
	if err := ix.walk(snap, func(p pending) { text += int64(len(p.body) + len(p.title)) }); err != nil {
		return nil, err
	}
	if len(ix.chunks) != h.Chunks {
		return nil, fmt.Errorf("it has %d chunks, the corpus splits into %d", h.Chunks, len(ix.chunks))
	}
	// A posting takes at most 10 bytes and stands for at least one byte
	// of a chunk's text; a term (with its count and end) at most the
	// token it came from, lower-cased, and 20; a length 5.
	if limit := 64*text + 8*int64(h.Chunks) + 1<<20; h.BodyBytes < 0 || h.BodyBytes > limit {
		return nil, fmt.Errorf("its body of %d bytes is over the %d this corpus could need", h.BodyBytes, limit)
	}
	bb := make([]byte, h.BodyBytes)
	if _, err := io.ReadFull(f, bb); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if sha256.Sum256(bb) != h.BodySum {
		return nil, fmt.Errorf("its body does not match its checksum")
	}
	var b body
	if err := gob.NewDecoder(bytes.NewReader(bb)).Decode(&b); err != nil {
		return nil, fmt.Errorf("decode body: %w", err)
	}
	bb = nil
	if ix.text, err = b.TextField.field(&ix.vocab, h.Chunks); err != nil {
		return nil, err
	}
	if b.TitleField != nil {
		t, err := b.TitleField.field(&ix.vocab, h.Chunks)
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
	b := body{TextField: ix.text.saved(ix.vocab.terms)}
	if ix.title != nil {
		t := ix.title.saved(ix.vocab.terms)
		b.TitleField = &t
	}
	var bb bytes.Buffer
	if err := gob.NewEncoder(&bb).Encode(&b); err != nil {
		return err
	}
	head, err := headFor(header{Options: ix.opts, Fingerprint: ix.fingerprint, Chunks: len(ix.chunks)}, bb.Bytes())
	if err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		for _, part := range [][]byte{head, bb.Bytes()} {
			if _, err := w.Write(part); err != nil {
				return err
			}
		}
		return nil
	})
}

// headFor is what comes before body in a saved index: magic, version,
// the header's length and the header, h with body's length and checksum.
func headFor(h header, body []byte) ([]byte, error) {
	h.BodyBytes, h.BodySum = int64(len(body)), sha256.Sum256(body)
	var hb bytes.Buffer
	if err := gob.NewEncoder(&hb).Encode(&h); err != nil {
		return nil, err
	}
	head := binary.BigEndian.AppendUint16([]byte(magic), snapshotVersion)
	head = binary.BigEndian.AppendUint32(head, uint32(hb.Len()))
	return append(head, hb.Bytes()...), nil
}
