package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/recallgate/recallgate/gate"
)

// ScoreSpill is a gate.Spill for the JSON score report: each query's entry
// is encoded as it is scored (on the scoring goroutines) and parked in an
// unlinked temporary file, so scoring a run of a million queries holds
// their numbers, not their documents. ScoreJSON then writes the report
// from it, byte for byte what Score with JSON writes.
type ScoreSpill struct {
	set *gate.Set

	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	off  int64
	at   map[string]span
	bufs sync.Pool
}

type span struct {
	off int64
	n   int
}

// NewScoreSpill makes a spill for the set's queries in dir ("" is the
// system's temporary folder). The file is removed at once; Close frees it.
func NewScoreSpill(set *gate.Set, dir string) (*ScoreSpill, error) {
	f, err := os.CreateTemp(dir, "recallgate-score-*")
	if err != nil {
		return nil, &gate.SpillError{Err: err}
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, &gate.SpillError{Err: err}
	}
	return &ScoreSpill{set: set, f: f, w: bufio.NewWriterSize(f, 1<<20), at: map[string]span{},
		bufs: sync.Pool{New: func() any { return new(bytes.Buffer) }}}, nil
}

// Put encodes one query's entry and parks it.
func (s *ScoreSpill) Put(q gate.QueryScore) error {
	b := s.bufs.Get().(*bytes.Buffer)
	defer s.bufs.Put(b)
	b.Reset()
	text := ""
	if sq := s.set.Query(q.ID); sq != nil {
		text = sq.Text
	}
	if err := encodeScoreQuery(b, ScoreQuery{ID: q.ID, Query: text, Scores: scores(q)}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.at[q.ID]; dup {
		// A run that holds a query twice, in two segments: the scoring
		// fails with the run's own error when the segments merge.
		return nil
	}
	if _, err := s.w.Write(b.Bytes()); err != nil {
		return err
	}
	s.at[q.ID] = span{s.off, b.Len()}
	s.off += int64(b.Len())
	return nil
}

// Close frees the spill's file.
func (s *ScoreSpill) Close() error { return s.f.Close() }

// ScoreJSON writes the JSON score report of a Scorecard made with the
// spill (runfile.ScoreRunFileSpilled): the summary from the card, each query's
// entry from the spill, in set order.
func (s *ScoreSpill) ScoreJSON(w io.Writer, c *gate.Scorecard) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.w.Flush(); err != nil {
		return &gate.SpillError{Err: err}
	}
	r := scoreJSONHead(c)
	var buf []byte
	return writeScoreJSONWith(w, r, len(c.Queries), func(j int) ([]byte, error) {
		sp, ok := s.at[c.Queries[j].ID]
		if !ok {
			return nil, fmt.Errorf("score spill: query %s was never put", c.Queries[j].ID)
		}
		if cap(buf) < sp.n {
			buf = make([]byte, sp.n)
		}
		buf = buf[:sp.n]
		if _, err := s.f.ReadAt(buf, sp.off); err != nil {
			return nil, &gate.SpillError{ID: c.Queries[j].ID, Err: err}
		}
		return buf, nil
	})
}

// CompactDocs is the longest docs list a query's entry of the score
// report is indented with: an entry with more (a cutoff over 100) is
// written on one line, since indenting a thousand ids a query was most of
// the report's cost and size. Either reads back the same.
const CompactDocs = 100

// encodeScoreQuery writes one query's entry as it sits in the report's
// "queries" array: indented for that depth (on one line past
// CompactDocs documents), without the final newline.
func encodeScoreQuery(b *bytes.Buffer, q ScoreQuery) error {
	enc := json.NewEncoder(b)
	if len(q.Docs) <= CompactDocs {
		enc.SetIndent("    ", "  ")
	}
	if err := enc.Encode(q); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}
