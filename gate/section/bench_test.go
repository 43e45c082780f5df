package section

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// benchCorpus makes docs Markdown documents of sections sections, each a
// heading and words words, and returns them with their texts' words.
func benchCorpus(docs, sections, words int) (map[string]string, []string) {
	r := rand.New(rand.NewSource(1))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	texts := map[string]string{}
	ids := make([]string, docs)
	for d := range docs {
		var b strings.Builder
		for s := range sections {
			fmt.Fprintf(&b, "## Section %d of doc %d\n\n", s, d)
			for w := range words {
				b.WriteString(vocab[r.Intn(len(vocab))])
				if w%12 == 11 {
					b.WriteByte('\n')
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString("\n\n")
		}
		ids[d] = fmt.Sprintf("doc/%d", d)
		texts[ids[d]] = b.String()
	}
	return texts, ids
}

// BenchmarkPlaceByText is the cost of placing hits that carry only their
// text: 3,000 queries × 100 hits over 1,000 Markdown documents of 10
// sections (about 5 KB each). One op is one side of a gate: the
// documents' sections read and every hit placed and expanded.
//
// "chunked": the hits are chunks of a fixed splitter (60 words, about
// 14 a document), as a pipeline returns them, so a chunk recurs across
// queries; 80% of the chunks are found as they are, 15% only with white
// space collapsed, 5% nowhere. "distinct": the worst case, every hit a
// different 360-byte window at a random byte, in the same mix.
func BenchmarkPlaceByText(b *testing.B) {
	texts, ids := benchCorpus(1000, 10, 80)
	variant := func(r *rand.Rand, text string) string {
		switch k := r.Intn(20); {
		case k < 3:
			return strings.Join(strings.Fields(text), "  ")
		case k == 3:
			return "absent " + text
		}
		return text
	}
	r := rand.New(rand.NewSource(2))
	var chunks []Hit
	for _, id := range ids {
		t := texts[id]
		words := strings.Fields(t)
		off := 0
		for w := 0; w < len(words); w += 60 {
			end := off + strings.Index(t[off:], words[w]) // the chunk's first word
			stop := end
			for _, x := range words[w:min(w+60, len(words))] {
				stop += strings.Index(t[stop:], x) + len(x)
			}
			chunks = append(chunks, Hit{Doc: id, Chunk: Chunk{Text: variant(r, t[end:stop])}})
			off = stop
		}
	}
	sets := map[string][][]Hit{"chunked": make([][]Hit, 3000), "distinct": make([][]Hit, 3000)}
	for q := range 3000 {
		chunked, distinct := make([]Hit, 100), make([]Hit, 100)
		for i := range 100 {
			chunked[i] = chunks[r.Intn(len(chunks))]
			id := ids[r.Intn(len(ids))]
			t := texts[id]
			start := r.Intn(len(t) - 400)
			distinct[i] = Hit{Doc: id, Chunk: Chunk{Text: variant(r, t[start:start+360])}}
		}
		sets["chunked"][q], sets["distinct"][q] = chunked, distinct
	}
	for _, name := range []string{"chunked", "distinct"} {
		queries := sets[name]
		b.Run(name, func(b *testing.B) {
			for range b.N {
				docs := make(map[string]*Doc, len(texts))
				for id, t := range texts {
					docs[id] = NewDoc(id, t, Markdown)
				}
				lookup := func(id string) *Doc { return docs[id] }
				placed := 0
				for _, hits := range queries {
					e := Expand(hits, lookup)
					placed += len(hits) - len(e.Unplaced)
				}
				if placed < len(queries)*90 {
					b.Fatalf("%d of %d hits placed", placed, len(queries)*100)
				}
			}
		})
	}
}
