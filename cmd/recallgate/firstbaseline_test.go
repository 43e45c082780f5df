package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstBaselineWritesWithoutLooping (#50 item 13): a config that names
// baseline = "baselines/head.jsonl" before the file exists refuses a gate
// (exit 2) and suggests `recallgate gate --write-baseline …`; that very
// command, with or without --base-ref, writes the file: max_baseline_drop
// is skipped with a note saying why, never the same refusal again. Writing
// elsewhere is still refused, and once the baseline is committed the rule
// holds the next gate.
func TestFirstBaselineWritesWithoutLooping(t *testing.T) {
	f := erosionRepo(t, erosionConfig, false)
	cfg := filepath.Join(f.dir, "rag/recallgate.toml")
	named := filepath.Join(f.dir, "rag/baselines/head.jsonl")
	const skipped = "note: this run writes the baseline run the config names (--write-baseline), which does not exist yet: review it and commit it; the rule holds the next run against it, so max_baseline_drop was not applied"

	if code, _, errs := rg(t, "gate", "--config", cfg, "--allow-identical", "--no-cache", "--write-baseline", filepath.Join(f.dir, "rag/other.jsonl")); code != 2 || !strings.Contains(errs, "baseline") {
		t.Errorf("writing another file: exit %d, want 2 on the missing baseline\n%s", code, errs)
	}
	code, out, errs := rg(t, "gate", "--config", cfg, "--allow-identical", "--no-cache", "--write-baseline", named)
	if code != 0 || !strings.Contains(out, skipped) || !strings.Contains(out, "max_baseline_drop ≤ 0.150 skipped") {
		t.Fatalf("writing the named baseline: exit %d, want 0 and the note\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(named); err != nil {
		t.Fatalf("the baseline was not written: %v", err)
	}

	// On the base branch with --base-ref: the base commit lacks it too.
	if err := os.Remove(named); err != nil {
		t.Fatal(err)
	}
	f.put("rag/NOTES.md", "a change\n")
	f.commit("a change")
	code, out, errs = rg(t, "gate", "--config", cfg, "--base-ref", "HEAD~1", "--no-cache", "--write-baseline", named)
	if code != 0 || !strings.Contains(out, skipped) {
		t.Fatalf("--base-ref, writing the named baseline: exit %d, want 0 and the note\n%s\n%s", code, out, errs)
	}
	f.commit("the reviewed baseline")
	f.put("rag/NOTES.md", "another change\n")
	f.commit("another change")
	code, out, errs = rg(t, "gate", "--config", cfg, "--base-ref", "HEAD~1", "--no-cache")
	if code != 0 || strings.Contains(out, skipped) || !strings.Contains(out, "max_baseline_drop ≤ 0.150 pass") {
		t.Errorf("after the commit the rule holds: exit %d\n%s\n%s", code, out, errs)
	}
}
