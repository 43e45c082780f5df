package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBaseRefExitCodesAsDocumented: `--base-ref origin/main` in a full
// clone with no such remote is the user's input, exit 2 naming the ref
// (as README.md and docs/errors-and-warnings.md say); a commit a
// shallow clone has not fetched could not be had, exit 3.
func TestBaseRefExitCodesAsDocumented(t *testing.T) {
	f := newFixture(t, builtinConfig)
	cfg := filepath.Join(f.dir, "rag/recallgate.toml")
	t.Setenv("RUNNER_TEMP", t.TempDir())
	code, _, errs := rg(t, "gate", "--config", cfg, "--base-ref", "origin/main")
	if code != 2 || !strings.Contains(errs, `no commit or ref "origin/main" in `) {
		t.Errorf("--base-ref origin/main with no such remote: exit %d, want 2 naming it\n%s", code, errs)
	}
	readme := string(must(os.ReadFile("../../README.md")))
	if !strings.Contains(strings.Join(strings.Fields(readme), " "), "a `--base-ref` that names no commit of a full clone (`origin/main` with no such remote) is **2**") {
		t.Error("README.md's exit codes no longer say that a --base-ref naming no commit is 2")
	}

	// A shallow clone of the fixture, asked for the base commit's parent,
	// which it has not fetched.
	f.put("rag/corpus/extra.md", "# Extra\n\nMore.\n")
	f.commit("one more")
	shallow := filepath.Join(t.TempDir(), "shallow")
	if out, err := exec.Command("git", "clone", "-q", "--depth", "1", "file://"+f.dir, shallow).CombinedOutput(); err != nil {
		t.Fatalf("git clone --depth 1: %v\n%s", err, out)
	}
	code, _, errs = rg(t, "gate", "--config", filepath.Join(shallow, "rag/recallgate.toml"), "--base-ref", f.base)
	if code != 3 || !strings.Contains(errs, "is not reachable") {
		t.Errorf("a base commit the shallow clone lacks: exit %d, want 3\n%s", code, errs)
	}
}
