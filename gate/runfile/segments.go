package runfile

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/recallgate/recallgate/gate"
)

// minSegmentBytes is the least a segment of a TREC run scored on its own
// core holds: below it, the split costs more than it saves.
var minSegmentBytes int64 = 8 << 20

// trecSegments cuts a TREC run file into up to n byte ranges that each
// start on a query's first line, so each can be parsed and scored on its
// own core. It returns nil when the file is JSONL, small, or one query.
func trecSegments(f *os.File, size int64, n int) []int64 {
	if n < 2 || size < 2*minSegmentBytes {
		return nil
	}
	if int64(n) > size/minSegmentBytes {
		n = int(size / minSegmentBytes)
	}
	head := make([]byte, 4096)
	k, _ := f.ReadAt(head, 0)
	first := bytes.TrimLeft(head[:k], " \t\r\n")
	if len(first) == 0 || first[0] == '{' {
		return nil
	}
	cuts := []int64{0}
	for i := 1; i < n; i++ {
		at, ok := queryStartAfter(f, size*int64(i)/int64(n), size)
		if ok && at > cuts[len(cuts)-1] {
			cuts = append(cuts, at)
		}
	}
	if len(cuts) < 2 {
		return nil
	}
	return append(cuts, size)
}

// queryStartAfter finds the first line at or after off whose query id
// differs from the line before it.
func queryStartAfter(f *os.File, off, size int64) (int64, bool) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, off, size-off), 1<<16)
	skipped, err := r.ReadSlice('\n') // the partial line off falls in
	if err != nil {
		return 0, false
	}
	pos := off + int64(len(skipped))
	var prev []byte
	for {
		line, err := r.ReadSlice('\n')
		if len(line) == 0 || (err != nil && !errors.Is(err, io.EOF)) {
			return 0, false
		}
		qid := firstField(line)
		if prev != nil && !bytes.Equal(qid, prev) && len(qid) > 0 {
			return pos, true
		}
		if len(qid) > 0 {
			prev = append(prev[:0], qid...)
		}
		pos += int64(len(line))
		if err != nil {
			return 0, false
		}
	}
}

// firstField is a line's first blank-separated field.
func firstField(line []byte) []byte {
	line = bytes.TrimLeft(line, " \t")
	end := bytes.IndexAny(line, " \t\r\n")
	if end < 0 {
		return line
	}
	return line[:end]
}

// scoreSegments parses and scores the segments of a TREC run at once,
// one Scorer each, and merges them into sc. Errors carry the line numbers
// of the whole file.
func scoreSegments(f *os.File, path string, cuts []int64, sc *gate.Scorer) error {
	parts := make([]*gate.Scorer, len(cuts)-1)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		parts[i] = sc.Part()
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sec := io.NewSectionReader(f, cuts[i], cuts[i+1]-cuts[i])
			errs[i] = ReadRun(sec, path, parts[i].Add)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		var ie *gate.InputError
		if errors.As(err, &ie) && ie.Line > 0 && i > 0 {
			lines, cerr := countLines(f, cuts[i])
			if cerr == nil {
				ie.Line += lines
			}
		}
		return err
	}
	for _, p := range parts {
		if err := sc.Merge(p, path); err != nil {
			return err
		}
	}
	return nil
}

// countLines counts the lines before offset end.
func countLines(f *os.File, end int64) (int, error) {
	r := io.NewSectionReader(f, 0, end)
	buf := make([]byte, 1<<20)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// segmentsFor is how many cores scoring a run may use.
func segmentsFor() int { return runtime.GOMAXPROCS(0) }
