package gate

import "hash/maphash"

// Seen is the scratch set of documents that ScoreQuery collapses a query's
// hits with: an open-addressing table cleared per query, cheaper per hit
// than a map because it never grows while a query is scored and remembers
// each hash beside its slot. The zero value is ready; it is not safe for
// concurrent use.
type Seen struct {
	seed  maphash.Seed
	slots []int32 // 1 + index into docs; 0 is empty
	sums  []uint64
	docs  []string
	mask  uint64
}

// reset empties the set for a query of n hits.
func (s *Seen) reset(n int) {
	if s.slots == nil {
		s.seed = maphash.MakeSeed()
	}
	size := 64
	for size < 2*n {
		size *= 2
	}
	if len(s.slots) < size {
		s.slots = make([]int32, size)
		s.sums = make([]uint64, size)
	} else {
		size = len(s.slots)
		clear(s.slots)
	}
	clear(s.docs)
	s.docs = s.docs[:0]
	s.mask = uint64(size - 1)
}

// add reports whether doc is new, adding it. More adds than reset's n
// (up to half the table) stay correct: the table doubles when full.
func (s *Seen) add(doc string) bool { return s.addSum(doc, s.sum(doc)) }

// sum is doc's hash under the set's seed.
func (s *Seen) sum(doc string) uint64 { return maphash.String(s.seed, doc) }

// addSum is add with doc's hash already known (sum).
func (s *Seen) addSum(doc string, h uint64) bool {
	if 2*(len(s.docs)+1) > len(s.slots) {
		s.grow()
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		slot := s.slots[i]
		if slot == 0 {
			s.docs = append(s.docs, doc)
			s.slots[i] = int32(len(s.docs))
			s.sums[i] = h
			return true
		}
		if s.sums[i] == h && s.docs[slot-1] == doc {
			return false
		}
	}
}

// grow doubles the table, keeping what it holds.
func (s *Seen) grow() {
	docs := append([]string(nil), s.docs...)
	n := max(64, 2*len(s.slots))
	s.slots, s.sums = make([]int32, n), make([]uint64, n)
	s.docs = s.docs[:0]
	s.mask = uint64(n - 1)
	for _, d := range docs {
		s.add(d)
	}
}

// goldFilter is a 256-bit Bloom filter of a query's judged documents
// under a Seen's seed: a hash whose bit is clear is surely not among them,
// so most hits (not gold) skip the map lookup. With 31 documents judged,
// about one hit in nine still looks.
type goldFilter [4]uint64

// filter makes the goldFilter of grades' documents.
func (s *Seen) filter(grades map[string]int) goldFilter {
	var f goldFilter
	for d := range grades {
		f.set(s.sum(d))
	}
	return f
}

func (f *goldFilter) set(h uint64) { f[h>>62] |= 1 << (h >> 56 & 63) }

// may reports whether a document with hash h may be in the filter.
func (f *goldFilter) may(h uint64) bool { return f[h>>62]&(1<<(h>>56&63)) != 0 }

// Len is the number of distinct documents added since the last reset.
func (s *Seen) Len() int { return len(s.docs) }
