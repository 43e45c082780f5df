// Package builtin is recallgate's own retriever: Okapi BM25 over a corpus
// folder or a BEIR-style JSONL file, with optional chunking, English
// analysis (lower-casing, stop words, Snowball stemming) and a title field.
// It needs no service, so a gate runs offline on a fresh clone.
package builtin

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/corpus"
)

// Options configure the index and the scoring.
type Options struct {
	// ChunkWords splits documents into chunks of this many words; 0 keeps
	// each document whole.
	ChunkWords int
	// ChunkOverlap is how many words consecutive chunks share.
	ChunkOverlap int
	// K1 and B are the BM25 parameters.
	K1, B float64
	// TitleBoost weighs the title as a field of its own; 0 indexes the
	// title as part of the text ("flat", as Anserini does for BEIR).
	TitleBoost float64
	Analysis   Analysis
}

// DefaultOptions are Anserini's BM25 defaults: k1 = 0.9, b = 0.4, English
// stemming and stop words, flat title, no chunking.
func DefaultOptions() Options {
	return Options{K1: 0.9, B: 0.4, Analysis: Analysis{Stem: true, StopWords: true}}
}

// Validate reports options that cannot work.
func (o Options) Validate() error {
	switch {
	case o.ChunkWords < 0:
		return fmt.Errorf("chunk_words must not be negative, got %d", o.ChunkWords)
	case o.ChunkOverlap < 0 || (o.ChunkWords > 0 && o.ChunkOverlap >= o.ChunkWords):
		return fmt.Errorf("chunk_overlap must be within 0 and chunk_words-1, got %d", o.ChunkOverlap)
	case o.K1 < 0 || math.IsNaN(o.K1):
		return fmt.Errorf("k1 must not be negative, got %v", o.K1)
	case o.B < 0 || o.B > 1 || math.IsNaN(o.B):
		return fmt.Errorf("b must be within 0 and 1, got %v", o.B)
	case o.TitleBoost < 0:
		return fmt.Errorf("title_boost must not be negative, got %v", o.TitleBoost)
	}
	return nil
}

type chunk struct {
	doc, id, text string
}

type posting struct {
	chunk int32
	tf    float32
}

// field is one inverted index with its length statistics.
type field struct {
	postings map[string][]posting
	lengths  []float32
	avg      float64
}

// Index is an in-memory BM25 index. It is safe for concurrent searches.
type Index struct {
	opts        Options
	fingerprint string
	chunks      []chunk
	text        field
	title       *field
}

// Chunks is how many chunks were indexed.
func (ix *Index) Chunks() int { return len(ix.chunks) }

// Fingerprint is "sha256:" and the hash of every document's id, title and
// text, in corpus order: it changes when the corpus does.
func (ix *Index) Fingerprint() string { return ix.fingerprint }

// Build indexes a corpus read once (corpus.Read, or the run's
// corpus.Reads): a folder of .txt/.md files or a JSONL file.
func Build(snap *corpus.Snapshot, o Options) (*Index, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ix := &Index{opts: o, text: field{postings: map[string][]posting{}}}
	if o.TitleBoost > 0 {
		ix.title = &field{postings: map[string][]posting{}}
	}
	var scratch []string
	tf := map[string]int{}
	stems := map[string]string{}
	add := func(f *field, text string) {
		scratch = o.Analysis.termsCached(text, scratch, stems)
		clear(tf)
		for _, t := range scratch {
			tf[t]++
		}
		n := int32(len(f.lengths))
		for t, c := range tf {
			f.postings[t] = append(f.postings[t], posting{chunk: n, tf: float32(c)})
		}
		f.lengths = append(f.lengths, float32(len(scratch)))
	}
	for _, d := range snap.Docs {
		for i, body := range split(d.Text, o.ChunkWords, o.ChunkOverlap) {
			c := chunk{doc: d.ID, id: d.ID, text: body}
			if o.ChunkWords > 0 {
				c.id = fmt.Sprintf("%s#%d", d.ID, i)
			}
			ix.chunks = append(ix.chunks, c)
			if ix.title != nil {
				add(&ix.text, body)
				add(ix.title, d.Title)
			} else {
				add(&ix.text, strings.TrimSpace(d.Title+"\n"+body))
			}
		}
	}
	ix.fingerprint = snap.Fingerprint
	ix.text.avg = mean(ix.text.lengths)
	if ix.title != nil {
		ix.title.avg = mean(ix.title.lengths)
	}
	return ix, nil
}

func mean(xs []float32) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += float64(x)
	}
	return s / float64(len(xs))
}

// split cuts text into windows of n words overlapping by overlap; n = 0
// returns the text whole. An empty text gives one empty chunk, so every
// document stays retrievable by its title.
func split(text string, n, overlap int) []string {
	if n <= 0 {
		return []string{text}
	}
	words := strings.Fields(text)
	if len(words) == 0 {
		return []string{""}
	}
	var out []string
	for start := 0; ; start += n - overlap {
		end := min(start+n, len(words))
		out = append(out, strings.Join(words[start:end], " "))
		if end == len(words) {
			return out
		}
	}
}

// Retrieve implements gate.Retriever.
func (ix *Index) Retrieve(ctx context.Context, q *gate.Query, k int) ([]gate.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix.Search(q.Text, k), nil
}

// Search returns the top k chunks for the query text, best first; ties go
// to the chunk indexed first, so results are deterministic.
func (ix *Index) Search(text string, k int) []gate.Hit {
	if k <= 0 || len(ix.chunks) == 0 {
		return nil
	}
	terms := ix.opts.Analysis.terms(text, nil)
	scores := make(map[int32]float64)
	ix.score(&ix.text, terms, 1, scores)
	if ix.title != nil {
		ix.score(ix.title, terms, ix.opts.TitleBoost, scores)
	}
	h := &topK{}
	for c, s := range scores {
		if h.Len() < k {
			heap.Push(h, scored{c, s})
		} else if better(scored{c, s}, (*h)[0]) {
			(*h)[0] = scored{c, s}
			heap.Fix(h, 0)
		}
	}
	out := make([]gate.Hit, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		s := heap.Pop(h).(scored)
		c := ix.chunks[s.chunk]
		out[i] = gate.Hit{Doc: c.doc, Chunk: c.id, Score: s.score, Text: c.text}
	}
	return out
}

// score adds the BM25 score of each query term, weighted by boost.
func (ix *Index) score(f *field, terms []string, boost float64, into map[int32]float64) {
	n := float64(len(f.lengths))
	k1, b := ix.opts.K1, ix.opts.B
	for _, t := range terms {
		ps := f.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := k1 * (1 - b + b*float64(f.lengths[p.chunk])/f.avg)
			into[p.chunk] += boost * idf * tf * (k1 + 1) / (tf + norm)
		}
	}
}

type scored struct {
	chunk int32
	score float64
}

// better orders by score, then by index order.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.chunk < b.chunk
}

// topK is a min-heap of the best k scores seen so far.
type topK []scored

func (h topK) Len() int           { return len(h) }
func (h topK) Less(i, j int) bool { return better(h[j], h[i]) }
func (h topK) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *topK) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// The builtin BM25 index answers queries as gate.Retriever says.
var _ gate.Retriever = (*Index)(nil)
