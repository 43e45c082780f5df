package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecide: beside a repository with no ../shared a test skips naming
// the missing path, unless RECALLGATE_REQUIRE_SHARED=1 (as .ci/run sets), where it
// fails; CI=true alone (GitHub's runner, no ../shared) still skips; with the file there it
// gets its path, from the root or any package directory below it.
func TestDecide(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "recallgate")
	pkg := filepath.Join(repo, "gate", "retriever")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(ci string) func(string) string {
		return func(k string) string {
			switch k {
			case "RECALLGATE_REQUIRE_SHARED":
				return ci
			case "CI":
				return "true"
			}
			return ""
		}
	}
	const rel = "data/scifact/queries.jsonl"
	missing := filepath.Join(top, "shared", "data", "scifact", "queries.jsonl")
	for _, ci := range []string{"", "false", "0"} {
		path, skip, fail := decide(pkg, rel, env(ci))
		if path != "" || fail != "" || !strings.Contains(skip, "../shared/data/scifact/queries.jsonl is missing ("+missing+")") {
			t.Errorf("RECALLGATE_REQUIRE_SHARED=%q, no ../shared: path %q, skip %q, fail %q; want a skip naming the path", ci, path, skip, fail)
		}
	}
	for _, ci := range []string{"true", "1"} {
		path, skip, fail := decide(pkg, rel, env(ci))
		if path != "" || skip != "" || !strings.Contains(fail, "../shared/data/scifact/queries.jsonl is missing") || !strings.Contains(fail, "RECALLGATE_REQUIRE_SHARED="+ci) {
			t.Errorf("RECALLGATE_REQUIRE_SHARED=%q, no ../shared: path %q, skip %q, fail %q; want a failure naming the path", ci, path, skip, fail)
		}
	}
	if err := os.MkdirAll(filepath.Dir(missing), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(missing, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{repo, pkg} {
		if path, skip, fail := decide(dir, rel, env("true")); path != missing || skip != "" || fail != "" {
			t.Errorf("from %s with the file there: path %q, skip %q, fail %q; want %s", dir, path, skip, fail, missing)
		}
	}
	if _, skip, _ := decide(top, rel, env("")); !strings.Contains(skip, "no go.mod above "+top) {
		t.Errorf("outside any repository: skip %q, want it to say no go.mod was found", skip)
	}
}
