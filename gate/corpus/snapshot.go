package corpus

import (
	"path/filepath"
	"sync"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/section"
)

// Snapshot is one read of a corpus: its documents in the walk's stable
// order and their content fingerprint. Every part of a run that needs the
// corpus (the gold check, the cache key, the index builds, attribution,
// the drift check, the baseline record) takes the one Snapshot, so the
// folder or file is read once per run, and all of them see the same
// documents.
type Snapshot struct {
	// Path is the corpus as it was named.
	Path string
	// Docs are the documents, in Walk's order.
	Docs []Document
	// Fingerprint is the content fingerprint (Hash over Docs).
	Fingerprint string

	idsOnce sync.Once
	ids     map[string]bool

	secOnce sync.Once
	index   map[string]int // a document's place in Docs
	secs    []sections     // each document's sections, read when first asked for
}

// sections is one document's sections, read once.
type sections struct {
	once sync.Once
	doc  *section.Doc
}

// SectionLookup returns each document's sections, read the first time a
// document is asked for (nil for an id the corpus lacks): its given
// sections, else its headings in its format.
func (s *Snapshot) SectionLookup() gate.SectionLookup {
	s.secOnce.Do(func() {
		s.index = make(map[string]int, len(s.Docs))
		for i, d := range s.Docs {
			s.index[d.ID] = i
		}
		s.secs = make([]sections, len(s.Docs))
	})
	return func(id string) *section.Doc {
		i, ok := s.index[id]
		if !ok {
			return nil
		}
		// Each document is parsed once, by its first caller; callers
		// asking for other documents meanwhile do not wait for it.
		e := &s.secs[i]
		e.once.Do(func() {
			d := &s.Docs[i]
			if d.Sections != nil {
				e.doc = section.Given(d.ID, d.Text, d.Sections)
			} else {
				e.doc = section.NewDoc(d.ID, d.Text, d.Format)
			}
		})
		return e.doc
	}
}

// Read reads the corpus at path (see Walk) into a Snapshot.
func Read(path string) (*Snapshot, error) {
	s := &Snapshot{Path: path}
	h := NewHash()
	err := Walk(path, func(d Document) error {
		h.Add(d)
		s.Docs = append(s.Docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Fingerprint = h.Sum()
	return s, nil
}

// Each calls fn with each document in order, stopping at its first error.
func (s *Snapshot) Each(fn func(Document) error) error {
	for _, d := range s.Docs {
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// IDs is the set of the snapshot's document ids (made once; do not
// modify it).
func (s *Snapshot) IDs() map[string]bool {
	s.idsOnce.Do(func() {
		s.ids = make(map[string]bool, len(s.Docs))
		for _, d := range s.Docs {
			s.ids[d.ID] = true
		}
	})
	return s.ids
}

// Hashes is each document's DocHash by id, nil when the corpus has more
// than max documents (a drift baseline records none past
// baseline.MaxDocs).
func (s *Snapshot) Hashes(max int) map[string]string {
	if len(s.Docs) > max {
		return nil
	}
	out := make(map[string]string, len(s.Docs))
	for _, d := range s.Docs {
		out[d.ID] = DocHash(d)
	}
	return out
}

// Reads reads each corpus a run names once: Get returns the snapshot of
// a path, reading it the first time it is asked for (a failed read is
// not retried: its error is returned again). It is safe for concurrent
// use; the zero value is ready and reads with Read.
type Reads struct {
	// Read reads one corpus; nil means Read. Tests count reads with it.
	Read func(path string) (*Snapshot, error)

	mu   sync.Mutex
	done map[string]*read
}

// read is one corpus's read, made once.
type read struct {
	once sync.Once
	snap *Snapshot
	err  error
}

// Get returns the snapshot of the corpus at path, read once per Reads
// (paths that name one file or folder share it). A nil *Reads reads
// afresh on every call.
func (r *Reads) Get(path string) (*Snapshot, error) {
	if r == nil {
		return Read(path)
	}
	key := path
	if abs, err := filepath.Abs(path); err == nil {
		key = abs
	}
	r.mu.Lock()
	if r.done == nil {
		r.done = map[string]*read{}
	}
	rd, ok := r.done[key]
	if !ok {
		rd = &read{}
		r.done[key] = rd
	}
	r.mu.Unlock()
	rd.once.Do(func() {
		read := r.Read
		if read == nil {
			read = Read
		}
		rd.snap, rd.err = read(path)
	})
	return rd.snap, rd.err
}
