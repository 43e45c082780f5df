package builtin

import "encoding/binary"

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

// short reads the next posting when its gap and count take one byte each
// (most do), and is not ok for any other or at the end: it is small
// enough to be inlined into the search's loop, which then calls wide.
func (r *reader) short() (chunk int32, tf uint32, ok bool) {
	d := r.data
	if len(d) < 2 || d[0]|d[1] >= 0x80 {
		return 0, 0, false
	}
	r.chunk += int32(d[0])
	r.data = d[2:]
	return r.chunk, uint32(d[1]), true
}

// wide reads the next posting whatever its size; ok is false at the end
// or at data that does not decode, which a built or checked list never
// has.
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

// check reports whether p's data reads, as a search reads it, as exactly
// p.df postings with chunks rising from 0 and within sums, and counts
// positive; it adds each count to its chunk's sum.
func (p *postings) check(sums []uint64) bool {
	r, n, prev := p.reader(), int32(0), int32(-1)
	for {
		c, tf, ok := r.wide()
		if !ok {
			break
		}
		if c <= prev || int(c) >= len(sums) || tf == 0 {
			return false
		}
		sums[c] += uint64(tf)
		prev = c
		n++
	}
	return len(r.data) == 0 && n == p.df
}

// at is term id's postings in f, which grow to hold it.
func (f *field) at(id int32) *postings {
	if int(id) >= len(f.postings) {
		f.postings = append(f.postings, make([]postings, int(id)+1-len(f.postings))...)
	}
	return &f.postings[id]
}
