package gate

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestSeenMatchesAMap adds random documents with many duplicates, more
// than reset was told (so the table grows), and checks every answer and
// the count against a map; a second query after reset starts empty.
func TestSeenMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var s Seen
	for round, n := range []int{0, 1, 10, 1000, 5} {
		s.reset(n)
		want := map[string]bool{}
		for i := 0; i < 3*n+200; i++ {
			d := fmt.Sprintf("d%d", rng.Intn(2*n+150))
			if got, fresh := s.add(d), !want[d]; got != fresh {
				t.Fatalf("round %d: add(%s) = %v, want %v", round, d, got, fresh)
			}
			want[d] = true
		}
		if s.Len() != len(want) {
			t.Fatalf("round %d: Len %d, want %d", round, s.Len(), len(want))
		}
	}
	s.reset(3)
	if !s.add("d1") || s.add("d1") || s.Len() != 1 {
		t.Fatal("reset did not empty the set")
	}
}

// TestSeenFilterHasNoFalseNegative: every document of the grades passes
// the filter (a miss would score a gold hit as not relevant).
func TestSeenFilterHasNoFalseNegative(t *testing.T) {
	var s Seen
	s.reset(10)
	grades := map[string]int{}
	for i := 0; i < 40; i++ {
		grades[fmt.Sprintf("gold-%d", i)] = i % 4
	}
	f := s.filter(grades)
	for d := range grades {
		if !f.may(s.sum(d)) {
			t.Fatalf("%s is filtered out", d)
		}
	}
	if s.filter(nil) != (goldFilter{}) {
		t.Error("an empty filter lets hashes through")
	}
}
