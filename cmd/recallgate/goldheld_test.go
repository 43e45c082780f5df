package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGateRefusesGoldNeitherCorpusHolds: a pull request whose own set
// names a gold document that neither the base commit's corpus nor its
// own holds is refused as validate refuses it (exit 2, the set's
// file:line and the id), never passed; a gold document the pull request
// deleted from its corpus stays a regression, its data-quality note
// first in the report.
func TestGateRefusesGoldNeitherCorpusHolds(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.git("checkout", "-q", "-b", "pr")
	set := filepath.Join(f.dir, "rag/queries.jsonl")
	data, err := os.ReadFile(set)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(data), "\n") + 1
	f.put("rag/queries.jsonl", string(data)+`{"id":"q31","query":"how do I rotate a webhook secret","gold":{"security/webhook-secrets":2}}`+"\n")
	f.commit("a query for a page not written yet")
	t.Setenv("RUNNER_TEMP", t.TempDir())
	cfg := filepath.Join(f.dir, "rag/recallgate.toml")
	code, _, errs := rg(t, "gate", "--config", cfg, "--base-ref", f.base)
	want := set + ":" + strconv.Itoa(line) + ": query q31: gold not in corpus: security/webhook-secrets"
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("gate on a set naming gold no corpus holds: exit %d, want 2 naming %q\n%s", code, want, errs)
	}
	if code, _, errs := rg(t, "validate", "--config", cfg); code != 2 || !strings.Contains(errs, want) {
		t.Errorf("validate: exit %d, want 2 naming %q\n%s", code, want, errs)
	}

	// The pull request deletes a gold document instead: a regression, the
	// data-quality note leads the report and says what happened.
	f.put("rag/queries.jsonl", string(data))
	if err := os.Remove(filepath.Join(f.dir, "rag/corpus/security/audit-log.md")); err != nil {
		t.Fatal(err)
	}
	f.commit("drop the audit log page")
	code, out, errs := rg(t, "gate", "--config", cfg, "--base-ref", f.base)
	if code != 1 {
		t.Fatalf("gate on a pull request deleting a gold document: exit %d, want 1\n%s%s", code, out, errs)
	}
	dq, table := strings.Index(out, "data quality: "), strings.Index(out, "recall@5  0.833")
	if dq < 0 || table < 0 || dq > table {
		t.Errorf("the data-quality note does not lead the report (at %d, the metric table at %d):\n%s", dq, table, out)
	}
	if strings.Contains(out, "since it was labelled") || !strings.Contains(out, "gold not in the head's corpus: security/audit-log") {
		t.Errorf("the data-quality note of a pull request must say the head's corpus lacks it, not that it went since labelling:\n%s", out)
	}
	fx := f
	for _, f := range []struct{ format, note, table string }{{"markdown", "**Data quality: ", "| metric | base |"}, {"html", `id="data-quality"`, `id="summary"`}} {
		_, out, _ := rg(t, "gate", "--config", cfg, "--base-ref", fx.base, "--format", f.format)
		if dq, table := strings.Index(out, f.note), strings.Index(out, f.table); dq < 0 || table < 0 || dq > table {
			t.Errorf("%s: the data-quality note does not lead the report (at %d, the metric table at %d)", f.format, dq, table)
		}
	}
}
