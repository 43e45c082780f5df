package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportRefusesAnotherSetsRun: a run whose metadata line names
// another eval set's fingerprint is refused (exit 2, naming the run), as
// compare refuses it: its contexts would be paired with the wrong
// questions wherever the two sets share query ids.
func TestExportRefusesAnotherSetsRun(t *testing.T) {
	dir := t.TempDir()
	set := put(t, dir, "set.jsonl", exportSet)
	meta := `{"recallgate":{"set":"sha256:00000000000000000000000000000000000000000000000000000000000000ff"}}` + "\n"
	run := put(t, dir, "run.jsonl", meta+exportRun)
	err := Export(testEnv(&bytes.Buffer{}), ExportOptions{Run: run, Format: ExportRagas, Set: set}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "different eval set") || !strings.Contains(err.Error(), "run.jsonl") || ExitCode(err) != 2 {
		t.Fatalf("err = %v (exit %d), want the run refused as made on another set", err, ExitCode(err))
	}
}

// TestExportCorpusSymlinkOutside: a corpus folder whose gold document is a
// symlink to /proc/self/environ never puts the environment into the
// exported reference passages.
func TestExportCorpusSymlinkOutside(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc/self/environ")
	}
	t.Setenv("RECALLGATE_EXPORT_SECRET", "s3cr3t-value")
	dir := t.TempDir()
	put(t, dir, "set.jsonl", exportSet)
	corpus := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(filepath.Join(corpus, "security"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/environ", filepath.Join(corpus, "security", "keys.md")); err != nil {
		t.Fatal(err)
	}
	run := put(t, dir, "run.jsonl", exportRun)
	cfg := put(t, dir, "rg.toml", "set = \"set.jsonl\"\ncorpus = \"corpus\"\n")
	var b bytes.Buffer
	err := Export(testEnv(&bytes.Buffer{}), ExportOptions{Run: run, Format: ExportRagas, Config: cfg}, &b)
	if strings.Contains(b.String(), "s3cr3t-value") || (err != nil && strings.Contains(err.Error(), "s3cr3t-value")) {
		t.Fatalf("the environment reached the export: %v\n%s", err, b.String())
	}
}
