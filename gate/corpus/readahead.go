package corpus

import "io"

// readAheadBlock is how much a readAhead reads at once; readAheadBlocks
// how many blocks it holds ahead of its reader.
const (
	readAheadBlock  = 1 << 20
	readAheadBlocks = 4
)

// readAhead reads r on a goroutine of its own, a few blocks ahead of its
// reader: a gzip-compressed corpus decompresses on one core while its
// lines are decoded on another. Close stops the goroutine; it must be
// called once the reader is done, whether or not it read to the end.
type readAhead struct {
	full    chan block
	free    chan []byte
	done    chan struct{}
	stopped chan struct{}
	cur     block
	off     int
}

// block is one read of the underlying reader: its bytes and its error.
type block struct {
	b   []byte
	err error
}

func newReadAhead(r io.Reader) *readAhead {
	ra := &readAhead{full: make(chan block, readAheadBlocks), free: make(chan []byte, readAheadBlocks+1), done: make(chan struct{}), stopped: make(chan struct{})}
	for range readAheadBlocks + 1 {
		ra.free <- make([]byte, readAheadBlock)
	}
	go func() {
		defer close(ra.stopped)
		defer close(ra.full)
		for {
			var buf []byte
			select {
			case buf = <-ra.free:
			case <-ra.done:
				return
			}
			n, err := io.ReadFull(r, buf)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			select {
			case ra.full <- block{b: buf[:n], err: err}:
			case <-ra.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ra
}

// Read implements io.Reader.
func (ra *readAhead) Read(p []byte) (int, error) {
	for ra.off == len(ra.cur.b) {
		if ra.cur.err != nil {
			return 0, ra.cur.err
		}
		if ra.cur.b != nil {
			ra.free <- ra.cur.b[:cap(ra.cur.b)]
		}
		b, ok := <-ra.full
		if !ok {
			return 0, io.ErrClosedPipe
		}
		ra.cur, ra.off = b, 0
	}
	n := copy(p, ra.cur.b[ra.off:])
	ra.off += n
	return n, nil
}

// Close stops the goroutine reading ahead and waits until it has, so the
// underlying reader may be closed after it.
func (ra *readAhead) Close() {
	close(ra.done)
	<-ra.stopped
}
