package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSampleCommand(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "question number %d about queues\n", i%120)
	}
	b.WriteString("\n" + strings.Repeat("x", 500) + "\n")
	log := write(t, dir, "queries.log", b.String())
	bad := write(t, dir, "complaints.txt", "dlq redrive broken\nwebhook never fires\n")
	out := filepath.Join(dir, "draft.jsonl")
	code, _, errs := rg(t, "sample", "--log", log, "--known-bad", bad, "--size", "10", "--out", out)
	if code != 0 || !strings.Contains(errs, "wrote 10 queries (2 known-failure, 8 ordinary)") || !strings.Contains(errs, "1 over the length limit") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	first, _ := os.ReadFile(out)
	if n := strings.Count(string(first), `"gold":{}`); n != 10 || !strings.Contains(string(first), `"segments":["known-failure"],"source":"known-bad"`) {
		t.Errorf("draft:\n%s", first)
	}
	// The gate refuses a draft; validate names the line and the way out.
	if code, _, errs := rg(t, "validate", "--set", out); code != 2 || !strings.Contains(errs, "draft.jsonl:1: gold") || !strings.Contains(errs, "recallgate label") {
		t.Errorf("validate on a draft: exit %d %s", code, errs)
	}
	// Never replaced without --force; the same seed draws the same file.
	if code, _, errs := rg(t, "sample", "--log", log, "--known-bad", bad, "--size", "10", "--out", out); code != 2 || !strings.Contains(errs, "--append") {
		t.Errorf("overwrite without --force: exit %d %s", code, errs)
	}
	if code, _, _ := rg(t, "sample", "--log", log, "--known-bad", bad, "--size", "10", "--out", out, "--force"); code != 0 {
		t.Fatal("--force")
	}
	if again, _ := os.ReadFile(out); string(again) != string(first) {
		t.Error("the same seed wrote another draft")
	}
	// --append keeps the lines (and labels) there and adds only new queries.
	labelled := strings.Replace(string(first), `"gold":{}`, `"gold":{"queues/dlq":2}`, 1)
	os.WriteFile(out, []byte(labelled), 0o644)
	code, _, errs = rg(t, "sample", "--log", log, "--size", "20", "--seed", "9", "--out", out, "--append")
	after, _ := os.ReadFile(out)
	if code != 0 || !strings.HasPrefix(string(after), labelled) || strings.Count(string(after), "\n") <= 10 {
		t.Errorf("append: exit %d %s\n%s", code, errs, after)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(after)), "\n") {
		id := line[strings.Index(line, `"id":"`)+6:]
		id = id[:strings.Index(id, `"`)]
		if ids[id] {
			t.Errorf("query %s appended twice", id)
		}
		ids[id] = true
	}
	// Nothing usable, and a malformed line named with its number.
	empty := write(t, dir, "empty.log", "\n   \n")
	if code, _, errs := rg(t, "sample", "--log", empty, "--out", filepath.Join(dir, "e.jsonl")); code != 2 || !strings.Contains(errs, "no usable query") {
		t.Errorf("empty log: exit %d %s", code, errs)
	}
	jl := write(t, dir, "log.jsonl", `{"query":"ok one"}`+"\n"+`{"query": broken`+"\n"+`{"query":"ok two"}`+"\n")
	if code, _, errs := rg(t, "sample", "--log", jl, "--out", filepath.Join(dir, "j.jsonl")); code != 0 || !strings.Contains(errs, "log.jsonl:2: skipped: not a JSON object") {
		t.Errorf("malformed line: exit %d %s", code, errs)
	}
}

func TestValidateReportsAgreement(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"rotate key","gold":{"a":3},"judgments":{"ana":{"a":3,"b":0},"ben":{"a":3,"b":1}}}
{"id":"q2","query":"dlq redrive","gold":{"c":1},"judgments":{"ana":{"c":1,"d":0},"ben":{"c":1,"d":0}}}
`)
	code, out, errs := rg(t, "validate", "--set", set)
	if code != 0 || !strings.Contains(out, "agreement: 4 documents judged by both ana and ben: 75% the same grade, Cohen's kappa 0.64 (substantial), quadratic-weighted ") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}
