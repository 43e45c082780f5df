package builtin

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
)

// indexOptions are the options an index's postings depend on: chunking,
// analysis and whether the title is a field of its own. BM25's k1 and b
// and the title's weight only score those postings.
func (o Options) indexOptions() Options {
	o.K1, o.B = 0, 0
	if o.TitleBoost > 0 {
		o.TitleBoost = 1
	}
	return o
}

// IndexKey names the index a corpus and options build: two tables of one
// key index the same chunks and terms and differ only in scoring, so one
// build serves both (Shared).
func IndexKey(corpus string, o Options) string {
	k, _ := json.Marshal(o.indexOptions())
	return filepath.Clean(corpus) + "\x00" + string(k)
}

// Rescored returns an index that shares ix's chunks and postings and
// scores them with o's k1, b and title weight. o must build the same
// index (IndexKey), else it is an error.
func (ix *Index) Rescored(o Options) (*Index, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.indexOptions() != ix.opts.indexOptions() {
		return nil, fmt.Errorf("options %+v build another index than %+v", o, ix.opts)
	}
	c := *ix
	c.opts = o
	return &c, nil
}

// Shared builds each distinct index once for the retrievers made with it:
// a table whose corpus and index options (IndexKey) were built already
// gets that index rescored with its own k1, b and title weight, so an
// experiment's variants of k1 and b, or a gate whose sides differ only in
// them, cost one build and one index in memory. It is safe for concurrent
// use; it holds every index it built until it is dropped.
type Shared struct {
	mu    sync.Mutex
	built map[string]*Index
	texts map[string]*Texts // by corpus path
}

// Build returns the index of corpus with o: one Shared built before under
// the same IndexKey, rescored, else build(corpus, o), kept for the next.
func (s *Shared) Build(corpus string, o Options, build func(string, Options) (*Index, error)) (*Index, error) {
	key := IndexKey(corpus, o)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix, ok := s.built[key]; ok {
		return ix.Rescored(o)
	}
	ix, err := build(corpus, o)
	if err != nil {
		return nil, err
	}
	if s.built == nil {
		s.built, s.texts = map[string]*Index{}, map[string]*Texts{}
	}
	s.built[key] = ix
	// Another index of the same corpus content holds its texts already:
	// this one points into them, and its own copy goes.
	c := filepath.Clean(corpus)
	if t := s.texts[c]; !ix.shareTexts(t) {
		s.texts[c] = ix.texts
	}
	return ix, nil
}

// shareTexts points ix's chunks into t when t holds the texts of the
// same corpus content (same fingerprint, same documents), and reports
// whether it did. The chunks' offsets hold, since the texts are equal.
func (ix *Index) shareTexts(t *Texts) bool {
	if t == nil || ix.texts == nil || t.fingerprint != ix.fingerprint || len(t.docs) != len(ix.texts.docs) {
		return false
	}
	ix.texts = t
	return true
}
