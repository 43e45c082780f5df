package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMERunFileScriptSkipsTheMetadata (#50 item 12): the README's
// "Gate your own retriever" section says a run file's first line is
// metadata and shows a script that skips it; that script, run by python3
// on what `gate --save-runs` wrote for the demo, prints one line per query
// (30) and never fails on the metadata line (KeyError: 'hits').
func TestREADMERunFileScriptSkipsTheMetadata(t *testing.T) {
	needTool(t, "python3")
	var script string
	for _, b := range docSection(t, "## Gate your own retriever") {
		if b.Lang == "python" && strings.Contains(b.Text, `"recallgate" in row`) {
			script = b.Text
		}
	}
	if script == "" {
		t.Fatal("README's 'Gate your own retriever' has no script skipping the metadata line")
	}
	dir := t.TempDir()
	cfg, err := filepath.Abs("../../frozen-set/recallgate.toml")
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errs := rg(t, "gate", "--config", cfg, "--no-cache", "--save-runs", filepath.Join(dir, "runs")); code > 1 {
		t.Fatalf("gate --save-runs: exit %d\n%s\n%s", code, out, errs)
	}
	cmd := exec.Command("python3", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's script: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 30 || !strings.HasPrefix(lines[0], "q") || !strings.Contains(lines[0], "['") {
		t.Errorf("the script printed %d lines, want one per query (30):\n%s", len(lines), out)
	}
}
