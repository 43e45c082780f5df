package pipeline

import (
	"bytes"
	"context"
	"testing"
)

// TestCIRunFilesHonourQueries: the CI job comparing two run files loads a
// qrels set with the config's `queries` texts, as the gate does (it
// loaded the qrels bare: every query "" in the report), and refuses the
// qrels set without them.
func TestCIRunFilesHonourQueries(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.qrels", "q1 0 a 1\nq2 0 b 1\n")
	put(t, dir, "queries.jsonl", `{"id":"q1","text":"first text"}`+"\n"+`{"id":"q2","text":"second text"}`+"\n")
	base, head := put(t, dir, "base.jsonl", goodRun), put(t, dir, "head.jsonl", lossRun)
	cfg := put(t, dir, "rg.toml", "set = \"set.qrels\"\nqueries = \"queries.jsonl\"\n")
	var stderr bytes.Buffer
	cmp, set, err := CI(context.Background(), testEnv(&stderr), CIOptions{Config: cfg, Workspace: dir, BaseResults: base, HeadResults: head})
	if err != nil {
		t.Fatal(err)
	}
	if q := set.Query("q2"); q == nil || q.Text != "second text" || cmp.Set.Query("q1").Text != "first text" {
		t.Errorf("query texts not loaded: %q", set.Query("q2").Text)
	}
	bare := put(t, dir, "bare.toml", "set = \"set.qrels\"\n")
	if _, _, err := CI(context.Background(), testEnv(&stderr), CIOptions{Config: bare, Workspace: dir, BaseResults: base, HeadResults: head}); err == nil {
		t.Error("a qrels set without queries was compared")
	}
}
