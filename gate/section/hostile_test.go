package section

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// finishes fails the test when f has not returned within limit: a
// hostile document or chunk must cost time linear in its size, not hang
// the gate (the limit is two orders of magnitude above the linear cost,
// and as far below the quadratic one).
func finishes(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still running after %v: quadratic in the input's size", limit)
	}
}

// TestHostileHeadingsParseInLinearTime: a pull request's corpus may hold
// a Markdown document whose one heading is megabytes of nested brackets,
// "<" with no ">", "[a](" with no ")" or backtick runs of every length;
// reading its sections must not take minutes (1 MiB of "[" then "]"
// took 4m17s). The anchors read are still GitHub's.
func TestHostileHeadingsParseInLinearTime(t *testing.T) {
	const n = 1 << 20
	ticks := func() string {
		var b strings.Builder
		for l := 1; b.Len() < n; l++ {
			b.WriteString(strings.Repeat("`", l) + "x")
		}
		return b.String()
	}
	for _, c := range []struct{ name, heading string }{
		{"nested brackets", strings.Repeat("[", n/2) + strings.Repeat("]", n/2)},
		{"nested links", strings.Repeat("[", n/8) + "x" + strings.Repeat("](y)", n/8)},
		{"open angle", strings.Repeat("<", n)},
		{"open link destination", strings.Repeat("[a](", n/4)},
		{"open reference", strings.Repeat("[a][", n/4)},
		{"backtick runs", ticks()},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := "# " + c.heading + "\n\nbody\n"
			var d *Doc
			finishes(t, 10*time.Second, func() { d = NewDoc("d", text, Markdown) })
			if len(d.Sections) != 1 || d.Sections[0].Start != 0 || d.Sections[0].End != len(text) {
				t.Fatalf("sections %+v, want one over the whole text", d.Sections)
			}
		})
	}
}

// TestHostileChunkTextLocatedInLinearTime: a hit's text that shares a
// long prefix with every place of its document ("aaa…ab" in "aaa…a")
// must be looked for in linear time (2 MiB of "a" and a 1 MiB chunk
// took minutes), and found where strings.Index finds it.
func TestHostileChunkTextLocatedInLinearTime(t *testing.T) {
	const n = 2 << 20
	text := strings.Repeat("a", n)
	for _, c := range []struct {
		name, chunk string
		want        int
	}{
		{"absent", strings.Repeat("a", n/2) + "b", -1},
		{"at the end", strings.Repeat("a", n/2), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got int
			finishes(t, 10*time.Second, func() { got = index(text, c.chunk) })
			if got != c.want {
				t.Fatalf("index = %d, want %d", got, c.want)
			}
		})
	}
	doc := text + "b" + strings.Repeat("a", 40)
	finishes(t, 10*time.Second, func() {
		if p := NewDoc("d", doc, Plain).Place(Chunk{Text: strings.Repeat("a", n/2) + "b"}); p.Method != ByText || p.Start != n/2 {
			t.Errorf("placed %+v, want by text at %d", p, n/2)
		}
	})
}

// TestHostileManySectionsCountInLogTime: a document of half a million
// headings ("# a" lines, 2 MiB) and a run of 40,000 hits in it: each
// hit's sections used to be found by reading every section (2 ms a hit,
// over a minute in all); they are found in the sections' index, the same
// anchors as reading them all.
func TestHostileManySectionsCountInLogTime(t *testing.T) {
	const headings, hits = 1 << 19, 40000
	text := strings.Repeat("# a\n", headings)
	finishes(t, 15*time.Second, func() {
		d := NewDoc("d", text, Markdown)
		for i := range hits {
			at := len(text) - 4*(i%1000) - 4
			if got := d.Counts(at, at+4); len(got) != 1 || got[0] != "a-"+strconv.Itoa(headings-1-i%1000) {
				t.Errorf("Counts(%d, %d) = %q", at, at+4, got)
				return
			}
		}
	})
}

// TestCountsIndexAgreesWithReadingAll: on given sections that nest,
// overlap, repeat a span and come out of order, the index finds for
// every span the anchors, in the document's order, that reading every
// section finds.
func TestCountsIndexAgreesWithReadingAll(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for round := range 200 {
		size := 1 + r.Intn(300)
		secs := make([]Section, 1+r.Intn(200))
		for i := range secs {
			s := r.Intn(size)
			secs[i] = Section{Anchor: fmt.Sprintf("s%d", i), Start: s, End: s + 1 + r.Intn(size-s)}
		}
		d := Given("d", strings.Repeat("x", size), secs)
		for range 50 {
			start := r.Intn(size)
			end := start + r.Intn(size-start+1)
			var want []string
			for _, s := range secs {
				if Holds(s.Start, s.End, start, end) {
					want = append(want, s.Anchor)
				}
			}
			if got := d.Counts(start, end); !slices.Equal(got, want) {
				t.Fatalf("round %d: Counts(%d, %d) = %q, want %q", round, start, end, got, want)
			}
		}
	}
}
