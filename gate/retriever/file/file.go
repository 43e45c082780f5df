// Package file is the "file" retriever: it serves the results of a run
// file (JSONL or TREC) that an earlier CI step produced, so teams whose
// retrieval runs elsewhere can still gate on it.
package file

import (
	"context"
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/runfile"
)

// Retriever answers queries from a loaded run file.
type Retriever struct {
	path    string
	results map[string]gate.Answer
	meta    gate.RunMeta
}

// Load reads the whole run file into memory.
func Load(path string) (*Retriever, error) {
	r := &Retriever{path: path, results: map[string]gate.Answer{}}
	meta, err := runfile.ReadRunFile(path, func(res gate.Result) error {
		// The context is the line's own (the parser copies it); the hits
		// may share the reader's scratch space.
		r.results[res.ID] = gate.Answer{Hits: append([]gate.Hit(nil), res.Hits...), Context: res.Context, Abstain: res.Abstain}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.meta = meta
	return r, nil
}

// LoadOnly reads the results of the queries keep accepts, each cut to its
// first maxHits hits, and counts the run's other queries without keeping
// them (runfile.ReadRunFileOnly): a run's size in memory is then that of the
// kept queries, however many others the file holds.
func LoadOnly(path string, keep func(id string) bool, maxHits int) (*Retriever, int, error) {
	r := &Retriever{path: path, results: map[string]gate.Answer{}}
	meta, others, err := runfile.ReadRunFileOnly(path, keep, func(res gate.Result) error {
		hits := append([]gate.Hit(nil), res.Hits[:min(len(res.Hits), maxHits)]...)
		if len(hits) < len(res.Hits) {
			for i := range hits { // a TREC block's ids share one string: keep only these
				hits[i].Doc = strings.Clone(hits[i].Doc)
			}
		}
		r.results[strings.Clone(res.ID)] = gate.Answer{Hits: hits, Context: res.Context, Abstain: res.Abstain}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	r.meta = meta
	return r, others, nil
}

// CheckSet refuses a run file that records another eval set than s.
func (r *Retriever) CheckSet(s *gate.Set) error { return r.meta.CheckSet(s, r.path) }

// Meta is the run's metadata line (zero when the file has none).
func (r *Retriever) Meta() gate.RunMeta { return r.meta }

// Has reports whether the run holds a result for the query id.
func (r *Retriever) Has(id string) bool {
	_, ok := r.results[id]
	return ok
}

// Retrieve implements gate.Retriever. It returns every hit the file holds,
// whatever k is: the scorer cuts at the candidate depth in documents, and
// cutting chunks here would lose documents. A query the file has no line
// for is an error: the step that wrote the file did not retrieve it.
func (r *Retriever) Retrieve(ctx context.Context, q *gate.Query, k int) ([]gate.Hit, error) {
	a, err := r.Answer(ctx, q, k)
	return a.Hits, err
}

// Answer implements gate.AnswerRetriever: the line's hits, as Retrieve
// returns them, with the final context and refusal signal it kept.
func (r *Retriever) Answer(ctx context.Context, q *gate.Query, k int) (gate.Answer, error) {
	a, ok := r.results[q.ID]
	if !ok {
		return gate.Answer{}, fmt.Errorf("run file %s has no result for this query", r.path)
	}
	return a, nil
}

// The file retriever answers queries as gate.AnswerRetriever says.
var _ gate.AnswerRetriever = (*Retriever)(nil)
