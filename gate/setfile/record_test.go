package setfile

import (
	"strings"
	"testing"
)

// TestRecordRoundTrip: marks, decisions and documents found by search
// survive a write and a read; a bad value names its field.
func TestRecordRoundTrip(t *testing.T) {
	line := `{"id":"q","query":"x","gold":{"a":2},"judgments":{"ana":{"a":3},"ben":{"a":1}},"labellers":{"ana":{"verified":"2026-12-01","unsure":true,"seconds":{"a":3.5}},"ben":{"verified":"2026-12-02","unanswerable":true}},"adjudicated":{"a":{"grade":2,"by":"cara","on":"2026-12-03","grades":{"ana":3,"ben":1}}},"found_by_search":["a"]}`
	q, err := parseQueryLine([]byte(line), "set.jsonl", 4)
	if err != nil {
		t.Fatal(err)
	}
	out, err := q.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != line {
		t.Errorf("round trip:\n%s\nwant\n%s", out, line)
	}
	for bad, want := range map[string]string{
		`{"id":"q","query":"x","gold":{},"labellers":{"ana":{"verified":"yesterday"}}}`: "set.jsonl:4: labellers.ana.verified",
		`{"id":"q","query":"x","gold":{},"adjudicated":{"a":{"grade":5,"by":"c"}}}`:     "set.jsonl:4: adjudicated.a.grade",
		`{"id":"q","query":"x","gold":{},"adjudicated":{"a":{"grade":1}}}`:              "adjudicated.a.by",
		`{"id":"q","query":"x","gold":{},"labellers":{"ana":{"seconds":{"a":-1}}}}`:     "labellers.ana.seconds.a",
	} {
		if _, err := parseQueryLine([]byte(bad), "set.jsonl", 4); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", bad, err, want)
		}
	}
}
