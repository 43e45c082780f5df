package pipeline

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestResolveRulingOffAPullRequest: without a base commit the ruling is
// the given config's (its set, the thresholds given, its policy), a gate's
// checks refuse one table on both sides, and run files compared report no
// policy, as they always have.
func TestResolveRulingOffAPullRequest(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "set.jsonl", testSet)
	put(t, dir, "base.jsonl", goodRun)
	put(t, dir, "head.jsonl", lossRun)
	ab, set := load(t, put(t, dir, "ab.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n"))
	var stderr bytes.Buffer
	th := ab.Thresholds
	th.MaxNewMisses = 7
	r, err := ResolveRuling(context.Background(), testEnv(&stderr), ab, set, RulingOptions{Thresholds: th})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Config != ab || r.Given != ab || r.Set != set || r.HeadSet != set || r.Thresholds.MaxNewMisses != 7 || r.Base != nil || r.Reviewed != nil || len(r.Notes) != 0 {
		t.Errorf("ruling %+v", r)
	}
	if r.Policy == nil || r.Policy.Source != gate.PolicyGivenConfig {
		t.Errorf("policy %+v, want the given config's", r.Policy)
	}
	one, set1 := load(t, put(t, dir, "one.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n"))
	if _, err := ResolveRuling(context.Background(), testEnv(&stderr), one, set1, RulingOptions{Thresholds: one.Thresholds, IdenticalFix: "give it a base ref"}); !gate.IsInput(err) || !strings.Contains(err.Error(), "give it a base ref") {
		t.Errorf("one table: %v", err)
	}
	files, err := ResolveRuling(context.Background(), testEnv(&stderr), one, set1, RulingOptions{Thresholds: one.Thresholds, Files: true})
	if err != nil || files.Policy != nil {
		t.Errorf("run files: %v, policy %+v, want none", err, files.Policy)
	}
}
