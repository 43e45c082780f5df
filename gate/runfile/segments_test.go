package runfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestSegmentedScoringMatchesStreaming: a TREC run cut into segments at
// query boundaries scores exactly as the one-stream path; an error in a
// later segment names the file's own line; a query split across segments
// is the second-block error.
func TestSegmentedScoringMatchesStreaming(t *testing.T) {
	old := minSegmentBytes
	minSegmentBytes = 256
	t.Cleanup(func() { minSegmentBytes = old })
	var set, run strings.Builder
	for q := 0; q < 40; q++ {
		fmt.Fprintf(&set, "q%02d 0 d%d 2\nq%02d 0 d%d 1\n", q, q%7, q, (q+3)%11)
		for h := 0; h < 30; h++ {
			fmt.Fprintf(&run, "q%02d Q0 d%d %d %d.25 tag\n", q, (h*q)%17, h+1, 100-h)
		}
	}
	s, err := setfile.Parse(strings.NewReader(set.String()), "qrels.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "run.trec")
	os.WriteFile(path, []byte(run.String()), 0o644)
	f, _ := os.Open(path)
	info, _ := f.Stat()
	cuts := trecSegments(f, info.Size(), 4)
	f.Close()
	if len(cuts) < 3 {
		t.Fatalf("cuts %v: the file was not split", cuts)
	}
	seg, err := ScoreRunFile(s, path, gate.Depth{Candidates: 10, Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	stream := gate.NewScorer(s, gate.Depth{Candidates: 10, Context: 3})
	if err := ReadRun(strings.NewReader(run.String()), path, stream.Add); err != nil {
		t.Fatal(err)
	}
	want, _ := stream.Card()
	if !reflect.DeepEqual(seg.Queries, want.Queries) || !reflect.DeepEqual(seg.Summary, want.Summary) {
		t.Error("segmented scores differ from streamed ones")
	}
	// Spilled: the spill gets every full score once (from both segments'
	// goroutines), the card keeps only the numbers.
	sp := &collect{got: map[string]gate.QueryScore{}}
	slim, err := ScoreRunFileSpilled(s, path, gate.Depth{Candidates: 10, Context: 3}, sp)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range want.Queries {
		if !reflect.DeepEqual(sp.got[q.ID], q) {
			t.Fatalf("spilled score of %s differs", q.ID)
		}
		if n := q.Numbers(); !reflect.DeepEqual(slim.Queries[i], n) || slim.Queries[i].Docs != nil {
			t.Fatalf("card of %s holds %+v, want only the numbers", q.ID, slim.Queries[i])
		}
	}
	if len(sp.got) != len(want.Queries) || !reflect.DeepEqual(slim.Summary, want.Summary) {
		t.Errorf("spill got %d of %d queries; summaries equal: %v", len(sp.got), len(want.Queries), reflect.DeepEqual(slim.Summary, want.Summary))
	}
	// A spill that fails stops the scoring with its error, not as the
	// run file's fault.
	_, err = ScoreRunFileSpilled(s, path, gate.Depth{Candidates: 10, Context: 3}, &collect{fail: true})
	var ie *gate.InputError
	if err == nil || !strings.Contains(err.Error(), "disk full") || errors.As(err, &ie) {
		t.Errorf("failing spill: %v", err)
	}
	// A bad line near the end: the error names its line in the whole file.
	lines := strings.Split(strings.TrimSuffix(run.String(), "\n"), "\n")
	bad := append([]string{}, lines...)
	bad[1100] = "q36 Q0 dX one 2.0 tag"
	os.WriteFile(path, []byte(strings.Join(bad, "\n")+"\n"), 0o644)
	if _, err := ScoreRunFile(s, path, gate.Depth{Candidates: 10, Context: 3}); err == nil || !strings.Contains(err.Error(), "run.trec:1101: rank") {
		t.Errorf("bad line: %v", err)
	}
	// q00's lines again at the end: a second block, across segments.
	split := append(append([]string{}, lines...), "q00 Q0 d1 1 9.0 tag")
	os.WriteFile(path, []byte(strings.Join(split, "\n")+"\n"), 0o644)
	if _, err := ScoreRunFile(s, path, gate.Depth{Candidates: 10, Context: 3}); err == nil || !strings.Contains(err.Error(), `query "q00" starts a second block`) {
		t.Errorf("second block: %v", err)
	}
	// The same through a spill: still the run's fault, said as such.
	if _, err := ScoreRunFileSpilled(s, path, gate.Depth{Candidates: 10, Context: 3}, &collect{got: map[string]gate.QueryScore{}}); err == nil || !strings.Contains(err.Error(), `query "q00" starts a second block`) {
		t.Errorf("second block, spilled: %v", err)
	}
}

// collect is a Spill that keeps what it is given, or fails.
type collect struct {
	mu   sync.Mutex
	got  map[string]gate.QueryScore
	fail bool
}

func (c *collect) Put(q gate.QueryScore) error {
	if c.fail {
		return errors.New("disk full")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got[q.ID] = q
	return nil
}
