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
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"weak"

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

// chunk is one indexed passage: its document, its id, and where its text
// is in the corpus's texts (doc's text from start to end). A passage of a
// chunked document is its words joined by single spaces: when the span
// already reads so (plain), it is the span itself, else the span's words
// are joined when a hit shows it.
type chunk struct {
	doc, id    string
	text       int32 // the document's place in Texts
	start, end int32
	plain      bool
}

// field is one inverted index with its length statistics: postings[t]
// are term t's postings (t an id of the index's vocabulary; a term the
// field lacks has none, or is past the end).
type field struct {
	postings []postings
	lengths  []float32
	avg      float64
}

// list is term id's postings in f, for reading.
func (f *field) list(id int32) *postings {
	if id < 0 || int(id) >= len(f.postings) {
		return &noPostings
	}
	return &f.postings[id]
}

// noPostings are the postings of a term a field lacks; never written.
var noPostings postings

// Index is an in-memory BM25 index. It is safe for concurrent searches.
// It keeps no copy of a document's text: its chunks are offsets into the
// corpus's Texts, which every index of the corpus a Shared built shares.
type Index struct {
	opts        Options
	fingerprint string
	texts       *Texts
	chunks      []chunk
	vocab       vocabulary
	text        field
	title       *field
	acc         *sync.Pool // of *accumulator, sized for chunks
}

// vocabulary numbers an index's terms, in the order they were added.
type vocabulary struct {
	ids   map[string]int32
	terms []string
}

// id is term's id, or -1.
func (v *vocabulary) id(term string) int32 {
	if id, ok := v.ids[term]; ok {
		return id
	}
	return -1
}

// add is term's id, numbering it when it is new. A new term is kept as
// it is: it must be a string of its own, not part of a document's text
// (the analyser clones its terms; a decoded one is its own).
func (v *vocabulary) add(term string) int32 {
	if id, ok := v.ids[term]; ok {
		return id
	}
	if v.ids == nil {
		v.ids = map[string]int32{}
	}
	id := int32(len(v.terms))
	v.ids[term] = id
	v.terms = append(v.terms, term)
	return id
}

// Texts are the texts of a corpus's documents, in corpus order, held once
// for every index built from that corpus (chunked or not).
type Texts struct {
	fingerprint string
	docs        []string
}

// held are the texts of the corpora indexed last, by path, as long as an
// index still uses them: a build of the same corpus takes each document's
// text from there when it is equal, so every index of one corpus holds
// one copy, however it was built (one Shared or not, with another
// chunking or title field).
var held = struct {
	sync.Mutex
	by map[string]weak.Pointer[Texts]
}{by: map[string]weak.Pointer[Texts]{}}

// heldTexts are the texts an index of corpus holds, nil when none does.
func heldTexts(corpus string) []string {
	held.Lock()
	defer held.Unlock()
	if t := held.by[filepath.Clean(corpus)].Value(); t != nil {
		return t.docs
	}
	return nil
}

// holdTexts offers t, complete, to the next builds of corpus.
func holdTexts(corpus string, t *Texts) {
	held.Lock()
	defer held.Unlock()
	for k, p := range held.by {
		if p.Value() == nil {
			delete(held.by, k)
		}
	}
	held.by[filepath.Clean(corpus)] = weak.Make(t)
}

// Texts are the document texts this index's chunks point into.
func (ix *Index) Texts() *Texts { return ix.texts }

// chunkText is chunk c's text.
func (ix *Index) chunkText(c *chunk) string {
	t := ix.texts.docs[c.text][c.start:c.end]
	if c.plain {
		return t
	}
	return strings.Join(strings.Fields(t), " ")
}

// Chunks is how many chunks were indexed.
func (ix *Index) Chunks() int { return len(ix.chunks) }

// Fingerprint is "sha256:" and the hash of every document's id, title and
// text, in corpus order: it changes when the corpus does.
func (ix *Index) Fingerprint() string { return ix.fingerprint }

// batchChunks is how many chunks one worker analyses at a time.
const batchChunks = 256

// pending is one chunk read from the corpus, waiting for its analysis:
// its title and the text indexed (a flat title is indexed as the text's
// first line).
type pending struct {
	body, title string
}

// analysed is one chunk's terms with their counts, per field (the
// worker's local term ids), and its lengths in terms.
type analysed struct {
	text, title       []termCount
	textLen, titleLen int
}

type termCount struct {
	term  int32
	count int32
}

// batch is a run of consecutive chunks; done is closed once out holds
// their analysis, made by worker, and fresh the terms that worker
// numbered first in this batch.
type batch struct {
	in     []pending
	out    []analysed
	worker int
	fresh  []string
	done   chan struct{}
}

// Build indexes a corpus read once (corpus.Read, or the run's
// corpus.Reads): a folder of .txt/.md files or a JSONL file. Its
// documents are split into chunks on one goroutine and the chunks
// analysed on every core (GOMAXPROCS); the postings are filled in corpus
// order, so the index is the same whatever the number of cores.
func Build(snap *corpus.Snapshot, o Options) (*Index, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ix := &Index{opts: o, texts: &Texts{}}
	if o.TitleBoost > 0 {
		ix.title = &field{}
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := newAnalyser(o)
			for b := range work {
				b.analyse(a)
				b.worker, b.fresh = w, a.takeFresh()
				close(b.done)
			}
		}()
	}
	var walkErr error
	go func() {
		defer close(order)
		defer close(work)
		cur := &batch{done: make(chan struct{})}
		send := func() {
			work <- cur
			order <- cur
			cur = &batch{done: make(chan struct{})}
		}
		walkErr = ix.walk(snap, func(p pending) {
			cur.in = append(cur.in, p)
			if len(cur.in) == batchChunks {
				send()
			}
		})
		if walkErr == nil && len(cur.in) > 0 {
			send()
		}
	}()
	// global[w] maps worker w's local term ids to the index's: a worker
	// takes batches in corpus order, so its fresh terms arrive here in
	// the order it numbered them.
	global := make([][]int32, workers)
	for b := range order {
		<-b.done
		for _, t := range b.fresh {
			global[b.worker] = append(global[b.worker], ix.vocab.add(t))
		}
		g := global[b.worker]
		for _, a := range b.out {
			ix.text.add(a.text, a.textLen, g)
			if ix.title != nil {
				ix.title.add(a.title, a.titleLen, g)
			}
		}
	}
	wg.Wait()
	if walkErr != nil {
		return nil, walkErr
	}
	ix.held(snap)
	ix.text.avg = mean(ix.text.lengths)
	ix.text.compact()
	if ix.title != nil {
		ix.title.avg = mean(ix.title.lengths)
		ix.title.compact()
	}
	ix.acc = accumulators(len(ix.chunks))
	return ix, nil
}

// walk splits snap's documents into ix's texts and chunks, and gives each
// chunk's text (and its document's title) to each, when not nil. A
// document's text an index of the same corpus holds already is taken
// from there, so the two share it.
func (ix *Index) walk(snap *corpus.Snapshot, each func(pending)) error {
	o := ix.opts
	prior := heldTexts(snap.Path)
	return snap.Each(func(d corpus.Document) error {
		n := int32(len(ix.texts.docs))
		if int(n) < len(prior) && prior[n] == d.Text {
			d.Text = prior[n] // the copy an index of this corpus holds; this one goes
		}
		ix.texts.docs = append(ix.texts.docs, d.Text)
		for i, sp := range split(d.Text, o.ChunkWords, o.ChunkOverlap) {
			c := chunk{doc: d.ID, id: d.ID, text: n, start: int32(sp.start), end: int32(sp.end), plain: sp.plain}
			if o.ChunkWords > 0 {
				c.id = fmt.Sprintf("%s#%d", d.ID, i)
			}
			ix.chunks = append(ix.chunks, c)
			if each != nil {
				each(pending{body: sp.text(d.Text), title: d.Title})
			}
		}
		return nil
	})
}

// held marks ix as the index of snap's content and offers its texts to
// the next builds of that corpus.
func (ix *Index) held(snap *corpus.Snapshot) {
	ix.fingerprint = snap.Fingerprint
	ix.texts.fingerprint = ix.fingerprint
	holdTexts(snap.Path, ix.texts)
}

// analyse counts the terms of b's chunks with a. A title that is no field
// of its own is counted as the text's first line (as if joined by a
// newline: a token never spans the two).
func (b *batch) analyse(a *analyser) {
	b.out = make([]analysed, len(b.in))
	var counts []termCount
	type cut struct{ text, title [2]int }
	cuts := make([]cut, len(b.in))
	for i, p := range b.in {
		var c cut
		var n int
		c.text[0] = len(counts)
		if a.opts.TitleBoost > 0 {
			counts, n = a.count(counts, p.body)
			b.out[i].textLen = n
			c.text[1], c.title[0] = len(counts), len(counts)
			counts, n = a.count(counts, p.title)
			b.out[i].titleLen = n
			c.title[1] = len(counts)
		} else {
			counts, n = a.count(counts, p.title, p.body)
			b.out[i].textLen = n
			c.text[1] = len(counts)
		}
		cuts[i] = c
	}
	for i, c := range cuts {
		b.out[i].text = counts[c.text[0]:c.text[1]:c.text[1]]
		b.out[i].title = counts[c.title[0]:c.title[1]:c.title[1]]
	}
}

// add appends the next chunk's postings and length; global maps the
// terms' local ids to the index's.
func (f *field) add(terms []termCount, length int, global []int32) {
	n := int32(len(f.lengths))
	for _, t := range terms {
		f.at(global[t.term]).add(n, uint32(t.count))
	}
	f.lengths = append(f.lengths, float32(length))
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

// span is one chunk of a document's text: bytes start to end, from its
// first word's first byte to its last word's last; plain says its words
// are separated by single spaces there, so the span reads as the chunk.
type span struct {
	start, end int
	plain      bool
	words      []string // the chunk's words when not plain
}

// text is the chunk's text: its words joined by single spaces.
func (s span) text(doc string) string {
	if s.plain {
		return doc[s.start:s.end]
	}
	return strings.Join(s.words, " ")
}

// split cuts text into windows of n words overlapping by overlap; n = 0
// returns the text whole. An empty text gives one empty chunk, so every
// document stays retrievable by its title.
func split(text string, n, overlap int) []span {
	if n <= 0 {
		return []span{{start: 0, end: len(text), plain: true}}
	}
	var starts, ends []int
	in := false
	for i, r := range text {
		switch sp := unicode.IsSpace(r); {
		case !sp && !in:
			starts, in = append(starts, i), true
		case sp && in:
			ends, in = append(ends, i), false
		}
	}
	if in {
		ends = append(ends, len(text))
	}
	if len(starts) == 0 {
		return []span{{plain: true}}
	}
	var out []span
	for first := 0; ; first += n - overlap {
		last := min(first+n, len(starts)) - 1
		s := span{start: starts[first], end: ends[last], plain: true}
		for w := first; w < last; w++ {
			if starts[w+1]-ends[w] != 1 || text[ends[w]] != ' ' {
				s.plain = false
				break
			}
		}
		if !s.plain {
			s.words = make([]string, 0, last-first+1)
			for w := first; w <= last; w++ {
				s.words = append(s.words, text[starts[w]:ends[w]])
			}
		}
		out = append(out, s)
		if last == len(starts)-1 {
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
	acc := ix.acc.Get().(*accumulator)
	defer ix.acc.Put(acc)
	ix.score(&ix.text, terms, 1, acc)
	if ix.title != nil {
		ix.score(ix.title, terms, ix.opts.TitleBoost, acc)
	}
	h := &topK{}
	for _, c := range acc.touched {
		s := acc.scores[c]
		if h.Len() < k {
			heap.Push(h, scored{c, s})
		} else if better(scored{c, s}, (*h)[0]) {
			(*h)[0] = scored{c, s}
			heap.Fix(h, 0)
		}
	}
	acc.reset()
	out := make([]gate.Hit, h.Len())
	var offsets []int // a split document's chunks say where they lie (gate/section places them so)
	if ix.opts.ChunkWords > 0 {
		offsets = make([]int, 2*len(out))
	}
	for i := len(out) - 1; i >= 0; i-- {
		s := heap.Pop(h).(scored)
		c := &ix.chunks[s.chunk]
		out[i] = gate.Hit{Doc: c.doc, Chunk: c.id, Score: s.score, Text: ix.chunkText(c)}
		if offsets != nil {
			offsets[2*i], offsets[2*i+1] = int(c.start), int(c.end)
			out[i].Start, out[i].End = &offsets[2*i], &offsets[2*i+1]
		}
	}
	return out
}

// accumulator is one query's scores: dense, a slot per chunk, with the
// chunks touched listed so a reset clears only those.
type accumulator struct {
	scores  []float64
	seen    []bool
	touched []int32
}

// accumulators is a pool of accumulators for n chunks.
func accumulators(n int) *sync.Pool {
	return &sync.Pool{New: func() any {
		return &accumulator{scores: make([]float64, n), seen: make([]bool, n)}
	}}
}

func (a *accumulator) reset() {
	for _, c := range a.touched {
		a.scores[c], a.seen[c] = 0, false
	}
	a.touched = a.touched[:0]
}

// score adds the BM25 score of each query term, weighted by boost.
func (ix *Index) score(f *field, terms []string, boost float64, into *accumulator) {
	n := float64(len(f.lengths))
	k1, b := ix.opts.K1, ix.opts.B
	for _, t := range terms {
		ps := f.list(ix.vocab.id(t))
		if ps.df == 0 {
			continue
		}
		df := float64(ps.df)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		w := boost * idf // the same rounding as boost * idf * tf * …
		r := ps.reader()
		for {
			c, count, ok := r.short()
			if !ok {
				if c, count, ok = r.wide(); !ok {
					break
				}
			}
			tf := float64(count)
			norm := k1 * (1 - b + b*float64(f.lengths[c])/f.avg)
			if !into.seen[c] {
				into.seen[c] = true
				into.touched = append(into.touched, c)
			}
			into.scores[c] += w * tf * (k1 + 1) / (tf + norm)
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
