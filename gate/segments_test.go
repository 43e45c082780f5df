package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	s, err := ParseSet(strings.NewReader(set.String()), "qrels.txt")
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
	seg, err := ScoreRunFile(s, path, Depth{Candidates: 10, Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	stream := NewScorer(s, Depth{Candidates: 10, Context: 3})
	if err := ReadRun(strings.NewReader(run.String()), path, stream.Add); err != nil {
		t.Fatal(err)
	}
	want, _ := stream.Card()
	if !reflect.DeepEqual(seg.Queries, want.Queries) || !reflect.DeepEqual(seg.Summary, want.Summary) {
		t.Error("segmented scores differ from streamed ones")
	}
	// A bad line near the end: the error names its line in the whole file.
	lines := strings.Split(strings.TrimSuffix(run.String(), "\n"), "\n")
	bad := append([]string{}, lines...)
	bad[1100] = "q36 Q0 dX one 2.0 tag"
	os.WriteFile(path, []byte(strings.Join(bad, "\n")+"\n"), 0o644)
	if _, err := ScoreRunFile(s, path, Depth{Candidates: 10, Context: 3}); err == nil || !strings.Contains(err.Error(), "run.trec:1101: rank") {
		t.Errorf("bad line: %v", err)
	}
	// q00's lines again at the end: a second block, across segments.
	split := append(append([]string{}, lines...), "q00 Q0 d1 1 9.0 tag")
	os.WriteFile(path, []byte(strings.Join(split, "\n")+"\n"), 0o644)
	if _, err := ScoreRunFile(s, path, Depth{Candidates: 10, Context: 3}); err == nil || !strings.Contains(err.Error(), `query "q00" starts a second block`) {
		t.Errorf("second block: %v", err)
	}
}
