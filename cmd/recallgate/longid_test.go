package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongSetIDRefusedAtLoad: a set query id of 70,000 bytes is refused
// by validate and by gate alike when the set loads (exit 2, file:line),
// before any retrieval (never a retrieval error, exit 3), and neither
// prints more than 200 characters of it.
func TestLongSetIDRefusedAtLoad(t *testing.T) {
	dir := t.TempDir()
	copyDemo(t, dir)
	set := filepath.Join(dir, "demo/queries.jsonl")
	data, err := os.ReadFile(set)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 70000)
	write(t, dir, "demo/queries.jsonl", strings.Replace(string(data), `"id": "q01"`, `"id": "`+long+`"`, 1))
	write(t, dir, "demo/recallgate.toml", "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[base.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\n[head.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\nchunk_words = 12\n")
	cfg := filepath.Join(dir, "demo/recallgate.toml")
	for _, args := range [][]string{{"validate", "--config", cfg}, {"gate", "--config", cfg}} {
		code, out, errs := rg(t, args...)
		if code != 2 || !strings.Contains(errs, set+":1: id: 70000 bytes, over the 4096-byte limit of a query id") {
			t.Errorf("%s: exit %d, want 2 naming %s:1\n%.400s", args[0], code, set, errs)
		}
		if n := strings.Count(out+errs, "x"); n > 200 {
			t.Errorf("%s prints %d characters of the id, more than 200", args[0], n)
		}
	}
}
