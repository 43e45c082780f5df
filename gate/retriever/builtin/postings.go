package builtin

import (
	"encoding/binary"
	"math"
)

// postings are one term's postings in one field, in chunk order, packed:
// each is the gap from the previous posting's chunk (the first's from
// chunk 0) and the term's count in the chunk, both as uvarints. A
// posting of a frequent term takes two or three bytes, not eight.
type postings struct {
	data []byte
	df   int32 // how many postings
	last int32 // the chunk of the last one (0 before the first)
}

// add appends chunk's posting with count tf; chunks come in increasing
// order.
func (p *postings) add(chunk int32, tf uint32) {
	p.data = binary.AppendUvarint(p.data, uint64(chunk-p.last))
	p.data = binary.AppendUvarint(p.data, uint64(tf))
	p.df++
	p.last = chunk
}

// reader reads postings in order.
type reader struct {
	data  []byte
	chunk int32
}

func (p *postings) reader() reader { return reader{data: p.data} }

// next is the next posting's chunk and count; ok is false at the end (or
// at data that does not decode, which a built or checked list never has).
func (r *reader) next() (chunk int32, tf uint32, ok bool) {
	if chunk, tf, ok = r.short(); ok {
		return chunk, tf, ok
	}
	return r.wide()
}

// short is next for the common posting whose gap and count take one byte
// each, and ok false for any other (or the end); it is small enough to be
// inlined into the search's loop, which calls wide when it is not ok.
func (r *reader) short() (chunk int32, tf uint32, ok bool) {
	d := r.data
	if len(d) < 2 || d[0]|d[1] >= 0x80 {
		return 0, 0, false
	}
	r.chunk += int32(d[0])
	r.data = d[2:]
	return r.chunk, uint32(d[1]), true
}

// wide is next for a posting whose gap or count takes more than a byte.
func (r *reader) wide() (int32, uint32, bool) {
	gap, i := binary.Uvarint(r.data)
	if i <= 0 {
		return 0, 0, false
	}
	tf, j := binary.Uvarint(r.data[i:])
	if j <= 0 {
		return 0, 0, false
	}
	r.data = r.data[i+j:]
	r.chunk += int32(gap)
	return r.chunk, uint32(tf), true
}

// compact moves every list of f into one block of exactly their size,
// dropping what appending left spare.
func (f *field) compact() {
	total := 0
	for i := range f.postings {
		total += len(f.postings[i].data)
	}
	block := make([]byte, 0, total)
	for i := range f.postings {
		p := &f.postings[i]
		at := len(block)
		block = append(block, p.data...)
		p.data = block[at:len(block):len(block)]
	}
}

// check reports whether p's data is exactly p.df postings, chunks rising
// from the first and below chunks, counts positive and within uint32,
// and sets p.last: a saved list is read only after this.
func (p *postings) check(chunks int) bool {
	data, c, n := p.data, int64(0), int32(0)
	for len(data) > 0 {
		gap, i := binary.Uvarint(data)
		if i <= 0 {
			return false
		}
		tf, j := binary.Uvarint(data[i:])
		if j <= 0 || tf == 0 || tf > math.MaxUint32 || gap > math.MaxInt32 || (n > 0 && gap == 0) {
			return false
		}
		data = data[i+j:]
		if c += int64(gap); c >= int64(chunks) {
			return false
		}
		n++
	}
	p.last = int32(c)
	return n == p.df
}
