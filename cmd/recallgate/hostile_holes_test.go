package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConfigNumbersMustBeFinite: TOML reads nan and inf as floats; a
// config that writes them for fusion weights, a BM25 parameter or a
// threshold is refused (exit 2) naming the file, the line and the key,
// before anything is retrieved: a row scored from NaN, or a rule nothing
// passes, is never reported.
func TestConfigNumbersMustBeFinite(t *testing.T) {
	v := "[variant.a.retriever]\ntype = \"builtin\"\ncorpus = " + quote(demoPath(t, "corpus")) + "\nchunk_words = 8\n"
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"fusion weights", v + "[fusion.mix]\nof = [\"baseline\", \"a\"]\nmethod = \"wsum\"\nweights = [nan, inf]\n", ":16: fusion.mix.weights[0]: must be a number, got NaN"},
		{"a variant's k1", strings.Replace(v, "chunk_words = 8\n", "chunk_words = 8\nk1 = +inf\n", 1), ":13: variant.a.retriever.k1: must be a number, got"},
		{"a fusion's k", v + "[fusion.mix]\nof = [\"baseline\", \"a\"]\nmethod = \"rrf\"\nk = inf\n", ":16: fusion.mix.k: must be a number, got"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := experimentConfig(t, tc.extra)
			code, out, errs := rg(t, "experiment", "--config", cfg)
			if code != 2 || out != "" || !strings.Contains(errs, cfg+tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, errs, cfg+tc.want)
			}
		})
	}
	// A threshold: the gate's own config, read by validate.
	cfg := write(t, t.TempDir(), "recallgate.toml", "set = \"set.jsonl\"\n[gate]\nmax_latency_ratio = inf\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	code, out, errs := rg(t, "validate", "--config", cfg)
	if want := cfg + ":3: gate.max_latency_ratio: must be a number, got"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("max_latency_ratio = inf: exit %d\n%s\n%s\nwant exit 2 and %q", code, out, errs, want)
	}
}

// TestSavedIndexFIFORefused: a FIFO put where cache_dir keeps a saved
// builtin index (a process of an earlier job, or a restored cache, left
// it) would block the gate forever in open. The gate refuses it at once,
// without waiting for a writer: it warns that the saved index is not a
// regular file, builds the index afresh, and scores as before.
func TestSavedIndexFIFORefused(t *testing.T) {
	dir := t.TempDir()
	cfg := write(t, dir, "rg.toml", fmt.Sprintf("set = %q\ncache_dir = \"cache\"\n[depth]\ncandidates = 5\ncontext = 3\n[base.retriever]\ntype = \"builtin\"\ncorpus = %q\ntitle_boost = 2.0\n[head.retriever]\ntype = \"builtin\"\ncorpus = %q\nchunk_words = 12\n",
		demoPath(t, "queries.jsonl"), demoPath(t, "corpus"), demoPath(t, "corpus")))
	code1, out1, errs1 := rg(t, "gate", "--config", cfg)
	if code1 != 1 {
		t.Fatalf("first run: exit %d\n%s", code1, errs1)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "cache", "run-*.jsonl"))
	indexes, _ := filepath.Glob(filepath.Join(dir, "cache", "bm25-*.gob"))
	if len(runs) != 2 || len(indexes) != 2 {
		t.Fatalf("cache holds %d runs and %d indexes, want 2 and 2", len(runs), len(indexes))
	}
	for _, p := range runs {
		must0(t, os.Remove(p)) // the indexes are read, not the runs
	}
	for _, p := range indexes {
		must0(t, os.Remove(p))
		must0(t, syscall.Mkfifo(p, 0o644))
	}
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := rg(t, "gate", "--config", cfg)
		done <- result{code, out, errs}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		// Unblock the open with a writer that closes at once, so the
		// test ends.
		for _, p := range indexes {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		t.Fatalf("the gate is still blocked 60 s after it started, on a FIFO in cache_dir")
	}
	if r.code != 1 || withoutLatency(r.out) != withoutLatency(out1) {
		t.Errorf("with FIFOs for saved indexes: exit %d, want 1 and the first run's report\n%s", r.code, r.errs)
	}
	for _, p := range indexes {
		if want := "saved index " + p + " is unusable and is rebuilt: " + p + ": not a regular file"; !strings.Contains(r.errs, want) {
			t.Errorf("no warning %q:\n%s", want, r.errs)
		}
	}
}

// must0 fails the test on an error.
func must0(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// escapedPids reads the pids the services' double-forked helpers wrote
// (--escape), waiting up to 20 s for want of them.
func escapedPids(t *testing.T, dir string, want int) []int {
	t.Helper()
	var pids []int
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		pids = pids[:0]
		files, _ := filepath.Glob(filepath.Join(dir, "escaped-*"))
		for _, f := range files {
			if pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), "escaped-")); err == nil {
				pids = append(pids, pid)
			}
		}
		if len(pids) >= want || time.Now().After(deadline) {
			return pids
		}
	}
}

// stillRunning lists the pids that are running (not zombies) after up to
// 5 s of waiting for them to go.
func stillRunning(pids []int) []int {
	var alive []int
	for try := 0; try < 50; try++ {
		alive = alive[:0]
		for _, pid := range pids {
			if f := procStat(strconv.Itoa(pid)); len(f) > 0 && f[0] != "Z" {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return alive
}

// TestServiceDoubleForkStopped: each side's service starts a helper that
// leaves its process group and session (fork, setsid, fork: a daemon's
// way). The gate passes, and when it ends neither helper is running: the
// service ran under a keeper, a child subreaper its orphans return to.
func TestServiceDoubleForkStopped(t *testing.T) {
	f, dump := serviceRepo(t, strings.Replace(startTable, "\"DUMP\"", "\"DUMP\", \"--escape\", \"DUMP\"", 1))
	f.put("README.md", "# our search, changed\n")
	f.commit("docs")
	code, _, errs := f.gateService(context.Background())
	escaped := escapedPids(t, dump, 2)
	if code != 0 || len(escaped) != 2 {
		t.Fatalf("exit %d with %d helpers escaped, want 0 and 2\n%s", code, len(escaped), errs)
	}
	if left := stillRunning(escaped); len(left) > 0 {
		t.Errorf("the services' double-forked helpers outlived the gate: %v still running", left)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	var ds []serviceDump
	for _, d := range dumps(t, dump) {
		if d.Pid != 0 {
			ds = append(ds, d)
		}
	}
	checkNoneLeft(t, ds)
}

// TestServiceGoneWhenGateKilled: recallgate (the built binary) is killed
// with SIGKILL while both sides' services answer, each with a
// double-forked helper of its own: it cannot clean up, yet within seconds
// no process of either service is left (the keepers' parent-death signal).
func TestServiceGoneWhenGateKilled(t *testing.T) {
	f, dump := serviceRepo(t, strings.Replace(startTable, "\"DUMP\"", "\"DUMP\", \"--escape\", \"DUMP\", \"--slow\", \"1\"", 1))
	f.put("README.md", "# our search, changed\n")
	f.commit("docs")
	bin := filepath.Join(t.TempDir(), "recallgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "gate", "--config", filepath.Join(f.dir, "recallgate.toml"), "--base-ref", f.base, "--no-cache")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "RUNNER_TEMP=" + t.TempDir(), "HOME=" + t.TempDir()}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	escaped := escapedPids(t, dump, 2)
	var ds []serviceDump
	for deadline := time.Now().Add(20 * time.Second); len(ds) < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ds = ds[:0]
		for _, d := range dumps(t, dump) {
			if d.Pid != 0 {
				ds = append(ds, d)
			}
		}
	}
	time.Sleep(500 * time.Millisecond) // both answering their first query
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if len(ds) != 2 || len(escaped) != 2 {
		t.Fatalf("%d services and %d helpers started before the kill, want 2 and 2\n%s", len(ds), len(escaped), errb.String())
	}
	var pids []int
	for _, d := range ds {
		pids = append(pids, d.Pid, d.Helper)
	}
	pids = append(pids, escaped...)
	if left := stillRunning(pids); len(left) > 0 {
		t.Errorf("recallgate was killed and processes of its services are still running: %v (services %d, %d; helpers %v)", left, ds[0].Pid, ds[1].Pid, escaped)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// subsetFixture is the demo project whose eval set lives in a git
// submodule (rag/evals, a repository of its own holding queries.jsonl),
// committed as the base; sub is the submodule's source repository.
func subsetFixture(t *testing.T) (f *fixture, sub *fixture) {
	t.Helper()
	sub = emptyRepo(t)
	f = newFixture(t, strings.Replace(builtinConfig, `set = "queries.jsonl"`, `set = "evals/queries.jsonl"`, 1))
	data, err := os.ReadFile(filepath.Join(f.dir, "rag/queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sub.put("queries.jsonl", string(data))
	sub.commit("the eval set")
	f.git("rm", "-q", "rag/queries.jsonl")
	f.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.dir, "rag/evals")
	f.base = f.commit("the eval set in a submodule")
	return f, sub
}

// TestBaseSetInSubmoduleStops: the base config's set is in a submodule,
// which the base commit's tree does not hold (another repository's
// commit). A pull request that breaks q26 and bumps the submodule to a
// set without q26 must not be scored on its own set as if the set were
// new: the gate stops (exit 3) naming the set's path and the submodule,
// and passes nothing.
func TestBaseSetInSubmoduleStops(t *testing.T) {
	f, _ := subsetFixture(t)
	regressCorpus(f)
	evals := &fixture{t: t, dir: filepath.Join(f.dir, "rag/evals")}
	data, err := os.ReadFile(filepath.Join(evals.dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, `"id": "q26"`) {
			kept = append(kept, l)
		}
	}
	evals.put("queries.jsonl", strings.Join(kept, ""))
	evals.commit("drop q26")
	f.commit("break q26, and drop it from the set")
	code, rep, errs := f.gate(t.TempDir())
	want := "rag/evals/queries.jsonl (base commit " + f.base[:12] + ") is inside the submodule rag/evals"
	if code != 3 || !strings.Contains(errs, want) || strings.Contains(errs, "recallgate-base-") {
		t.Errorf("exit %d, verdict %q, notes %q, want exit 3 and %q\n%s", code, rep.Verdict, rep.Notes, want, errs)
	}
}

// TestBaseSetLFSPointerStops: the base commit's set is a Git LFS pointer
// (its checkout fetched no LFS objects): the gate stops (exit 3) with the
// LFS fix, and never scores on the change's set.
func TestBaseSetLFSPointerStops(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := newFixture(t, builtinConfig)
	f.put("rag/queries.jsonl", lfsPointer)
	f.base = f.commit("the set in LFS")
	data, err := os.ReadFile(filepath.Join("../../frozen-set/queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.put("rag/queries.jsonl", string(data))
	regressCorpus(f)
	f.commit("the set, and q26 broken")
	code, rep, errs := f.gate(t.TempDir())
	want := "rag/queries.jsonl (base commit " + f.base[:12] + ") is a Git LFS pointer, not the file"
	if code != 3 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, verdict %q, want exit 3 and %q\n%s", code, rep.Verdict, want, errs)
	}
}

// TestCommandDoubleForkStopped: a command retriever whose program leaves
// a helper in a session of its own (setsid) is stopped with that helper
// when the gate ends: it runs under a keeper as a started service does.
func TestCommandDoubleForkStopped(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not installed")
	}
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	write(t, dir, "retriever.sh", `setsid sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & touch "$0/escaped-$!"' "$1" &
while read l; do id=$(echo "$l" | sed 's/.*"id": *"\([^"]*\)".*/\1/'); echo "{\"id\":\"$id\",\"hits\":[{\"doc\":\"a\"}]}"; done
`)
	escapes := t.TempDir()
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n[head.retriever]\ntype = \"command\"\ncommand = [\"sh\", \"retriever.sh\", "+quote(escapes)+"]\n")
	code, _, errs := rg(t, "gate", "--config", cfg)
	pids := escapedPids(t, escapes, 1)
	if code > 1 || len(pids) != 1 {
		t.Fatalf("exit %d with %d helpers, want a verdict and 1\n%s", code, len(pids), errs)
	}
	if left := stillRunning(pids); len(left) > 0 {
		t.Errorf("the command retriever's helper in a session of its own outlived the gate: %v", left)
		_ = syscall.Kill(left[0], syscall.SIGKILL)
	}
}
