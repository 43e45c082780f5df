package builtin

import (
	"math"
	"reflect"
	"testing"
)

type pt struct {
	chunk int32
	tf    uint32
}

// readAll is every posting of p, read as the search reads it.
func readAll(p *postings) []pt {
	var out []pt
	for r := p.reader(); ; {
		c, tf, ok := r.short()
		if !ok {
			if c, tf, ok = r.wide(); !ok {
				return out
			}
		}
		out = append(out, pt{c, tf})
	}
}

// TestPostingsRoundTrip packs postings whose gaps and counts take one,
// two and three bytes, and reads them back in order.
func TestPostingsRoundTrip(t *testing.T) {
	want := []pt{{0, 1}, {1, 127}, {2, 128}, {130, 1}, {16513, 300}, {16514, 70000}, {math.MaxInt32, 2}}
	var p postings
	for _, w := range want {
		p.add(w.chunk, w.tf)
	}
	got := readAll(&p)
	if !reflect.DeepEqual(got, want) || p.df != int32(len(want)) {
		t.Fatalf("read back %v (df %d), want %v", got, p.df, want)
	}
	// 0,1 | 1,127 | 1,128(2) | 128(2),1 | 16383(2),300(2) | 1,70000(3) | gap(5),2
	if n := len(p.data); n != 2+2+3+3+4+4+6 {
		t.Errorf("packed into %d bytes", n)
	}
	f := field{postings: []postings{p, {}}, lengths: make([]float32, 3)}
	f.compact()
	got = got[:0]
	got = readAll(&f.postings[0])
	if !reflect.DeepEqual(got, want) || cap(f.postings[0].data) != len(f.postings[0].data) {
		t.Errorf("after compact: %v, cap %d len %d", got, cap(f.postings[0].data), len(f.postings[0].data))
	}
}

// TestScoreReadsWidePostings scores a term whose postings need more than
// a byte (chunk gaps past 127, a count of 200) against the BM25 formula,
// so the search's unpacking of long varints is checked, not only the
// one-byte path SciFact mostly takes.
func TestScoreReadsWidePostings(t *testing.T) {
	o := Options{K1: 1.2, B: 0.75}
	n := 300
	ix := &Index{opts: o, text: field{lengths: make([]float32, n)}}
	for i := range ix.text.lengths {
		ix.text.lengths[i] = 10
	}
	ix.text.lengths[299] = 400
	id := ix.vocab.add("x")
	ix.text.postings = make([]postings, id+1)
	ix.text.postings[id].add(5, 1)
	ix.text.postings[id].add(299, 200)
	ix.text.avg = mean(ix.text.lengths)
	ix.acc = accumulators(n)
	acc := ix.acc.Get().(*accumulator)
	ix.score(&ix.text, []string{"x"}, 1, acc)
	idf := math.Log(1 + (float64(n)-2+0.5)/(2+0.5))
	bm := func(tf, l float64) float64 {
		return idf * tf * 2.2 / (tf + 1.2*(1-0.75+0.75*l/ix.text.avg))
	}
	if len(acc.touched) != 2 || acc.scores[5] != bm(1, 10) || acc.scores[299] != bm(200, 400) {
		t.Errorf("touched %v, scores %v %v, want %v %v", acc.touched, acc.scores[5], acc.scores[299], bm(1, 10), bm(200, 400))
	}
}

// FuzzPostingsCheck: a list check accepts reads, with the search's
// reader, as exactly its count of postings, chunks rising within the
// index and counts positive, whose counts add up to the sums it made.
func FuzzPostingsCheck(f *testing.F) {
	var p postings
	for _, x := range []pt{{0, 1}, {2, 130}, {200, 3}} {
		p.add(x.chunk, x.tf)
	}
	f.Add(p.data, p.df, 300)
	f.Add([]byte{0, 1, 0, 1}, int32(2), 3)
	f.Add([]byte{5, 1}, int32(1), 3)
	f.Fuzz(func(t *testing.T, data []byte, df int32, chunks int) {
		if chunks < 0 || chunks > 1<<16 {
			return
		}
		p := postings{data: data, df: df}
		sums := make([]uint64, chunks)
		if !p.check(sums) {
			return
		}
		got := readAll(&p)
		want := make([]uint64, chunks)
		for i, x := range got {
			if x.chunk < 0 || int(x.chunk) >= chunks || x.tf == 0 || (i > 0 && x.chunk <= got[i-1].chunk) {
				t.Fatalf("check accepted %x (df %d, %d chunks), which reads as %v", data, df, chunks, got)
			}
			want[x.chunk] += uint64(x.tf)
		}
		if len(got) != int(df) || !reflect.DeepEqual(sums, want) {
			t.Fatalf("check accepted %x (df %d): %d postings read, sums %v, want %v", data, df, len(got), sums, want)
		}
	})
}
