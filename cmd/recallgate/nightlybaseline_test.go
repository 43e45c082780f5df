package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nightlyRepo is a git repository with one [retriever] (builtin), eight
// documents and eight queries: the nightly's own checkout.
func nightlyRepo(t *testing.T) *fixture {
	t.Helper()
	f := emptyRepo(t)
	var set strings.Builder
	for i := 1; i <= 8; i++ {
		f.put(fmt.Sprintf("corpus/d%02d.md", i), fmt.Sprintf("# Topic %d\n\ncommon word%da\n", i, i))
		fmt.Fprintf(&set, `{"id":"q%02d","query":"common word%da","gold":{"d%02d":1}}`+"\n", i, i, i)
	}
	f.put("set.jsonl", set.String())
	f.put("recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 2\ncontext = 1\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\n")
	f.base = f.commit("the set, the corpus and the gate")
	return f
}

// TestWriteBaselineNeedsNoComparison: gate --write-baseline with one
// [retriever] and no --base-ref writes the baseline (exit 0), its report
// noting that no comparison was made; the drift run on it is quiet about
// what it lacks.
func TestWriteBaselineNeedsNoComparison(t *testing.T) {
	f := nightlyRepo(t)
	cfg, bl := filepath.Join(f.dir, "recallgate.toml"), filepath.Join(f.dir, "baselines", "head.jsonl")
	code, out, errs := rg(t, "gate", "--config", cfg, "--no-cache", "--write-baseline", bl)
	if code != 0 || !strings.Contains(out, "note: no comparison was made: base and head are one retriever configuration in this checkout (no --base-ref), so the set was retrieved once, to write the baseline "+bl) {
		t.Fatalf("gate --write-baseline with one [retriever]: exit %d, want 0 and the note\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(bl); err != nil || !strings.HasPrefix(string(b), `{"recallgate":{"set":"sha256:`) || strings.Count(string(b), "\n") != 9 {
		t.Fatalf("baseline: %v\n%s", err, b)
	}
	code, out, errs = rg(t, "drift", "--config", cfg, "--baseline", bl)
	if first, _, _ := strings.Cut(out, "\n"); code != 0 || !strings.HasPrefix(first, "PASS") || strings.Contains(out, "not known") || strings.Contains(out, "written by retrieve") {
		t.Errorf("drift on it: exit %d\n%s\n%s", code, out, errs)
	}
	// Without --write-baseline the refusal stands.
	if code, _, errs := rg(t, "gate", "--config", cfg, "--no-cache"); code != 2 || !strings.Contains(errs, "pass --base-ref origin/main") {
		t.Errorf("gate with one [retriever]: exit %d, want 2\n%s", code, errs)
	}
}

// TestDriftOnARetrieveBaseline: a baseline written by retrieve --out (no
// policy, commit or query hashes) runs; the headline says once that it
// was written by retrieve and what it lacks, and no line calls it older.
func TestDriftOnARetrieveBaseline(t *testing.T) {
	f := nightlyRepo(t)
	cfg, bl := filepath.Join(f.dir, "recallgate.toml"), filepath.Join(f.dir, "run.jsonl")
	if code, out, errs := rg(t, "retrieve", "--config", cfg, "--side", "head", "--out", bl); code != 0 {
		t.Fatalf("retrieve: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := rg(t, "drift", "--config", cfg, "--baseline", bl)
	first, _, _ := strings.Cut(out, "\n")
	if code != 0 || !strings.Contains(first, "the baseline was written by retrieve (or --save-runs): no policy or commit recorded, so a change of the policy and the commits since are not checked") {
		t.Errorf("drift on a retrieve baseline: exit %d, headline %q\n%s", code, first, errs)
	}
	if strings.Contains(out, "older") || strings.Count(out, "not known:") != 1 || !strings.Contains(out, "drift: not known: the baseline was written by retrieve (or gate --save-runs), not gate --write-baseline: no policy, commit or query text hashes recorded") {
		t.Errorf("drift on a retrieve baseline calls it older or says it more than once:\n%s", out)
	}
}
