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

// each calls f with every posting's chunk and count, in order. It stops
// at data that does not decode (which a built list never has).
func (p *postings) each(f func(chunk int32, tf uint32)) {
	data, chunk := p.data, int32(0)
	for len(data) > 0 {
		gap, n := uvarint(data)
		if n <= 0 || n >= len(data) {
			return
		}
		tf, m := uvarint(data[n:])
		if m <= 0 {
			return
		}
		data = data[n+m:]
		chunk += int32(gap)
		f(chunk, uint32(tf))
	}
}

// uvarint is binary.Uvarint with the one-byte case inlined.
func uvarint(b []byte) (uint64, int) {
	if b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
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
