package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate/config"
)

// TestIdentifyHashesOnlyTheRepositorysFiles: a changed judge script is
// another judge; a file outside the repository the command names (a
// runner's file a PR's config points at) is not read, so its change
// changes nothing.
func TestIdentifyHashesOnlyTheRepositorysFiles(t *testing.T) {
	repo, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	script, secret := filepath.Join(repo, "judge.py"), filepath.Join(outside, "secret")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(script, "print(1)\n")
	write(secret, "one\n")
	cfg := &config.Config{Judge: &config.Judge{Name: "llm", Dir: repo, Command: []string{"python3", "judge.py", secret}, Sum: "t"}}
	fp := func() string {
		id, err := Identify(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return id.Fingerprint
	}
	first := fp()
	write(secret, "two\n")
	if got := fp(); got != first {
		t.Errorf("a file outside the repository was read into the fingerprint: %s -> %s", first, got)
	}
	write(script, "print(2)\n")
	if got := fp(); got == first {
		t.Errorf("a changed judge script kept the fingerprint %s", got)
	}
}

// TestSummarizeWithoutPairs: a run that sent no pair says so (the
// percentiles of no call are none, not a panic on an empty list).
func TestSummarizeWithoutPairs(t *testing.T) {
	var b strings.Builder
	summarize(&b, Identity{Name: "llm"}, nil, 3, "set.jsonl")
	if !strings.Contains(b.String(), "judge llm: 0 tokens; no pair sent") || !strings.Contains(b.String(), "3 already graded") {
		t.Errorf("summary %q", b.String())
	}
}
