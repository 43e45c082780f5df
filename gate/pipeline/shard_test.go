package pipeline

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/setfile"
)

// TestParseShard: `retrieve --shard i/n` takes 1 ≤ i ≤ n; "" is the whole
// set.
func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		ok   bool
	}{
		{"", 0, 0, true}, {"1/2", 1, 2, true}, {"2/2", 2, 2, true}, {"1/1", 1, 1, true},
		{"3/2", 0, 0, false}, {"0/2", 0, 0, false}, {"1/0", 0, 0, false}, {"1", 0, 0, false}, {"a/2", 0, 0, false}, {"-1/2", 0, 0, false},
	} {
		i, n, err := parseShard(tc.in)
		if i != tc.i || n != tc.n || (err == nil) != tc.ok {
			t.Errorf("parseShard(%q) = %d, %d, %v; want %d, %d, ok %v", tc.in, i, n, err, tc.i, tc.n, tc.ok)
		}
	}
}

// TestMergeShards: two shard runs of a three-query set join into one run
// in set order, said on stderr; a missing shard is a gap naming the query.
func TestMergeShards(t *testing.T) {
	dir := t.TempDir()
	setPath := put(t, dir, "set.jsonl", `{"id":"q1","query":"one","gold":{"a":1}}
{"id":"q2","query":"two","gold":{"b":1}}
{"id":"q3","query":"three","gold":{"c":1}}
`)
	set, err := setfile.Load(setPath)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	e := testEnv(&stderr)
	shard := func(name string, ids ...string) string {
		var rs []gate.Result
		for _, id := range ids {
			rs = append(rs, gate.Result{ID: id, Hits: []gate.Hit{{Doc: "d-" + id}}})
		}
		p := filepath.Join(dir, name)
		if err := WriteRunTo(e.Streams(), p, rs, gate.RunMeta{Set: set.Fingerprint}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := shard("a.jsonl", "q3", "q1"), shard("b.jsonl", "q2")
	out := filepath.Join(dir, "merged.jsonl")
	if err := MergeShards(e, MergeOptions{Set: setPath, Out: out, Shards: []string{a, b}}); err != nil {
		t.Fatal(err)
	}
	if want := "recallgate: merged 2 shards, 3 queries, into " + out + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	var got []string
	if _, err := runfile.ReadRunFile(out, func(r gate.Result) error {
		got = append(got, r.ID+":"+r.Hits[0].Doc)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "q1:d-q1,q2:d-q2,q3:d-q3" {
		t.Errorf("merged run %v, want q1, q2, q3 in set order with their hits", got)
	}
	err = MergeShards(e, MergeOptions{Set: setPath, Out: filepath.Join(dir, "gap.jsonl"), Shards: []string{a}})
	var ie *gate.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "1 queries are in no shard (a gap: a shard job is missing or failed): q2") {
		t.Errorf("a missing shard: %v, want the gap naming q2", err)
	}
}
