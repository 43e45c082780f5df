package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportFingerprints: the gate's JSON report fingerprints the set,
// both sides' retriever tables, the corpus, the config and the policy;
// changing one query of the set changes the set's fingerprint and nothing
// else's. The text report shows them short.
func TestReportFingerprints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "frozen-set")
	src, _ := filepath.Abs("../../frozen-set")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "recallgate.toml")
	fingerprints := func() map[string]string {
		t.Helper()
		code, out, errs := rg(t, "gate", "--config", cfg, "--format", "json")
		var r struct {
			Fingerprints map[string]string `json:"fingerprints"`
		}
		if code != 1 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("gate: exit %d\n%s", code, errs)
		}
		return r.Fingerprints
	}
	before := fingerprints()
	for _, k := range []string{"set", "base_retriever", "head_retriever", "corpus", "config", "policy"} {
		if v := before[k]; len(v) != len("sha256:")+64 || !strings.HasPrefix(v, "sha256:") {
			t.Errorf("fingerprints.%s = %q, want a sha256 hash (all: %v)", k, v, before)
		}
	}
	if before["base_retriever"] == before["head_retriever"] {
		t.Errorf("the two sides' tables differ, their fingerprints do not: %v", before)
	}
	set := filepath.Join(dir, "queries.jsonl")
	data, err := os.ReadFile(set)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(set, []byte(strings.Replace(string(data), `"rotate api key"`, `"rotate an api key"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	after := fingerprints()
	for k, v := range before {
		if changed := after[k] != v; changed != (k == "set") {
			t.Errorf("fingerprints.%s %s → %s: only the set's may change", k, v, after[k])
		}
	}
	_, out, _ := rg(t, "gate", "--config", cfg)
	if short := strings.TrimPrefix(after["set"], "sha256:")[:12]; !strings.Contains(out, "\nfingerprints: ") || !strings.Contains(out, " set "+short) {
		t.Errorf("the text report does not show the set's short fingerprint %s:\n%s", short, out)
	}
}
