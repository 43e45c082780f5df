package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDemoSections runs the demo's sides on the set labelled by section
// (frozen-set/sections.toml): the head's 12-word chunks still find
// ops/backups but not its export section, which whole documents hold.
func TestDemoSections(t *testing.T) {
	code, out, errs := rg(t, "gate", "--config", "../../frozen-set/sections.toml")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the head loses a section)\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"FAIL  mean recall@5 1.000 → 0.833 (-0.167), 1 regressed, 0 improved",
		"unit: documents and sections\n",
		"  s1  recall@5 1.000 → 0.500  lost: ops/backups#export\n",
		"      retrieval miss: ops/backups#export rank 2 → —, replaced by start/glossary\n",
		"regressed (1)\n  s1 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// The final context counts the sections its passages lie in: the
	// base's context holds both of s1's gold sections and s2's export
	// section; the head's lost s1's export section with its candidates.
	js := filepath.Join(t.TempDir(), "sections.json")
	if code, _, errs := rg(t, "gate", "--config", "../../frozen-set/sections.toml", "--json-out", js); code != 1 {
		t.Fatalf("--json-out: exit %d\n%s", code, errs)
	}
	var rep struct {
		Queries []struct {
			ID         string
			Base, Head struct {
				Context struct {
					Gold []string `json:"gold_in_context"`
				}
			}
		}
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, q := range rep.Queries {
		got[q.ID] = strings.Join(q.Base.Context.Gold, ",") + " → " + strings.Join(q.Head.Context.Gold, ",")
	}
	want := map[string]string{
		"s1": "ops/backups#message-contents,ops/backups#export → ops/backups#message-contents",
		"s2": "ops/backups#export → ops/backups#export",
		"s3": "sdk/python → sdk/python",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gold in the final context (base → head): %q, want %q", got, want)
	}
}

// TestDemoGate runs the quick-start command on the project's own frozen set:
// it must fail on the re-chunking change with flips in both directions, and
// its runs must equal the committed ones (the builtin retriever is deterministic).
func TestDemoGate(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := rg(t, "gate", "--config", "../../frozen-set/recallgate.toml", "--save-runs", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the demo head regresses)\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"FAIL  mean recall@5", "regressed (3)", "improved (3)", "lost: security/audit-log", " · policy: the given config (no base commit)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, side := range []string{"base", "head"} {
		got, _ := os.ReadFile(filepath.Join(dir, side+".jsonl"))
		want, err := os.ReadFile(filepath.Join("../../frozen-set/runs", side+".jsonl"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s run differs from frozen-set/runs/%s.jsonl (regenerate with --save-runs frozen-set/runs)", side, side)
		}
	}
	// Both sides were timed: the index builds and thirty calls each.
	if !regexp.MustCompile(`(?m)^Latency per query: base p50 [0-9.]+ ms, p95 [0-9.]+ ms, max [0-9.]+ ms over 30 calls \([0-9.]+ ms in all, start-up [0-9.]+ ms\); head p50 .* over 30 calls`).MatchString(out) {
		t.Errorf("no latency line for both sides:\n%s", out)
	}
	// The committed runs give the same verdict through compare (stored
	// runs carry no timing, and compare does not know whether they came
	// from a base commit, so it names no policy).
	code2, out2, _ := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml",
		"--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl")
	// Their fingerprints differ as their inputs do: the gate's retriever
	// tables, compare's run files.
	fps := regexp.MustCompile(`(?m)^fingerprints: .*\n`)
	for _, want := range []struct{ out, in string }{{out, "base retriever ce71ff3f656f, config ebb06a251fbc, corpus "}, {out2, "base run "}} {
		if !strings.Contains(fps.FindString(want.out), want.in) {
			t.Errorf("fingerprints line lacks %q:\n%s", want.in, fps.FindString(want.out))
		}
	}
	if code2 != 1 || fps.ReplaceAllString(out2, "") != fps.ReplaceAllString(strings.Replace(withoutLatency(out), " · policy: the given config (no base commit)", "", 1), "") {
		t.Errorf("compare on the saved runs: exit %d, report differs from gate's:\n%s", code2, out2)
	}
}

func TestRetrieveAndFileRetriever(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "base.jsonl", runJSONL)
	write(t, dir, "partial.jsonl", `{"id":"q1","hits":[{"doc":"a"}]}`+"\n")
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 3\ncontext = 2\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"partial.jsonl\"\n")
	out := filepath.Join(dir, "out.jsonl")
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--side", "base", "--out", out); code != 0 {
		t.Fatalf("retrieve base: exit %d %s", code, errs)
	}
	if code, stdout, errs := rg(t, "score", "--set", set, "--results", out, "--candidates", "3", "--context", "2"); code != 0 || !strings.Contains(stdout, "recall@3  0.667") {
		t.Errorf("score of the written run: exit %d\n%s%s", code, stdout, errs)
	}
	code, _, errs := rg(t, "gate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "head: 2 queries could not be retrieved (not scored as misses)") || !strings.Contains(errs, "q2, q3: run file") {
		t.Errorf("gate with a partial head run: exit %d, want 3\n%s", code, errs)
	}
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--side", "middle", "--out", out); code != 2 || !strings.Contains(errs, "--side must be base or head") {
		t.Errorf("bad side: %d %s", code, errs)
	}
}

func TestGateConfigErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "qrels.txt", setQrels)
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	tests := []struct{ name, toml, want string }{
		{"qrels without texts", "set = \"qrels.txt\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", "queries: set qrels.txt is TREC qrels"},
		{"no retriever", "set = \"set.jsonl\"\n", "base.retriever: no retriever configured"},
		{"unknown type", "set = \"set.jsonl\"\n[retriever]\ntype = \"vector\"\n", "unknown retriever type \"vector\""},
		{"builtin without corpus", "set = \"set.jsonl\"\n[retriever]\ntype = \"builtin\"\n", "retriever.corpus: required"},
		{"bad chunking", "set = \"set.jsonl\"\n[retriever]\ntype = \"builtin\"\ncorpus = \"c\"\nchunk_words = 5\nchunk_overlap = 5\n", "chunk_overlap must be within"},
		{"bad timeout", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\ntimeout = \"soon\"\n", "not a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := write(t, dir, "c.toml", tt.toml)
			code, _, errs := rg(t, "gate", "--config", cfg, "--allow-identical")
			if code != 2 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, errs, tt.want)
			}
		})
	}

}

func TestWaiversAndSignificanceFromConfig(t *testing.T) {
	dir := t.TempDir()
	thirty(t, dir, "q17")
	base := func(extra string) string {
		return write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n"+extra)
	}
	day := func(y, m, d int) func() time.Time {
		return func() time.Time { return time.Date(y, time.Month(m), d, 12, 0, 0, 0, time.UTC) }
	}
	gateAt := func(now func() time.Time, cfg string) (int, string, string) {
		var out, errb bytes.Buffer
		e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb, now: now}
		runner, rest, err := gateCommand.Parse([]string{"--config", cfg})
		if err == nil {
			err = runner(context.Background(), e, rest)
		}
		if err != nil {
			fmt.Fprintln(&errb, err)
		}
		return exitCode(err), out.String(), errb.String()
	}
	waiver := "[[waiver]]\nquery = \"q17\"\nreason = \"doc moved, relabel pending\"\nexpires = \"2026-12-31\"\n"
	if code, out, errs := gateAt(day(2026, 12, 2), base(waiver)); code != 0 || !strings.Contains(out, "waived: q17 until 2026-12-31") {
		t.Errorf("waived: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := gateAt(day(2027, 1, 1), base(waiver)); code != 2 || !strings.Contains(errs, "waiver: expired: q17 (expired 2026-12-31") {
		t.Errorf("expired waiver: exit %d %s", code, errs)
	}
	if code, _, errs := gateAt(day(2026, 12, 2), base(strings.Replace(waiver, "q17", "q99", 1))); code != 2 || !strings.Contains(errs, "no such query") {
		t.Errorf("unknown waiver query: exit %d %s", code, errs)
	}
	sig := "[gate]\nrequire_significance = true\nmax_new_misses = 1\n"
	code, out, errs := gateAt(day(2026, 12, 2), base(sig))
	if code != 0 || !strings.HasPrefix(out, "INCONCLUSIVE") || !strings.Contains(out, "p = 1.000") {
		t.Errorf("inconclusive: exit %d\n%s%s", code, out, errs)
	}
}

// TestRepeatsFindUnstableQueries: a retriever whose answer for one query
// changes from call to call is caught by repeats and kept out of the flips.
func TestRepeatsFindUnstableQueries(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	var baseCalls, headCalls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls := &baseCalls
		if r.URL.Path == "/head" {
			calls = &headCalls
		}
		var req struct{ Query string }
		json.NewDecoder(r.Body).Decode(&req)
		doc, ok := map[string]string{"first": "a", "second": "c", "third": "e"}[req.Query]
		if !ok {
			doc = "preflight"
		}
		if req.Query == "second" && calls.Add(1)%2 == 0 {
			doc = "nothing"
		}
		fmt.Fprintf(w, `{"results":[{"doc":%q}]}`, doc)
	}))
	defer srv.Close()
	side := func(name string) string {
		return fmt.Sprintf("[%s.retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\nconcurrency = 1\n", name, srv.URL+"/"+name)
	}
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[gate]\nrepeats = 3\n"+side("base")+side("head"))
	code, out, errs := rg(t, "gate", "--config", cfg, "--format", "json")
	var r struct {
		Verdict    string   `json:"verdict"`
		Unstable   []string `json:"unstable"`
		Regressed  []string `json:"regressed"`
		NoiseFloor float64  `json:"noise_floor"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("exit %d %v\n%s", code, err, errs)
	}
	if code != 0 || strings.Join(r.Unstable, ",") != "q2" || len(r.Regressed) != 0 || r.NoiseFloor == 0 {
		t.Errorf("exit %d %+v\n%s", code, r, errs)
	}
}

// coldRetriever is a command retriever with a cold cache: its first answer
// to each query is wrong ("x"), every later one right, when argv[1] is 1;
// with 0 it always answers right.
const coldRetriever = `import json, sys
gold = {"first": "a", "second": "c", "third": "e"}
cold = sys.argv[1] == "1"
seen = set()
for line in sys.stdin:
    req = json.loads(line)
    doc = gold.get(req["query"], "x")
    if cold and req["query"] not in seen:
        doc = "x"
    seen.add(req["query"])
    print(json.dumps({"id": req["id"], "hits": [{"doc": doc}]}), flush=True)
`

// TestColdHeadWithRepeatsFails: a head that answers wrong on its first
// call per query and right afterwards, with repeats = 2, used to be all
// "unstable" and pass at recall 1.000 → 0.000. It is judged at its worst
// repeat: every query newly at zero recall, exit 1, each named and listed
// as head unstable.
func TestColdHeadWithRepeatsFails(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "cold.py", coldRetriever)
	side := func(name, cold string) string {
		return fmt.Sprintf("[%s.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"cold.py\", %q]\nconcurrency = 1\n", name, cold)
	}
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[gate]\nrepeats = 2\n"+side("base", "0")+side("head", "1"))
	jsonOut := filepath.Join(dir, "report.json")
	code, text, errs := rg(t, "gate", "--config", cfg, "--json-out", jsonOut)
	var r struct {
		Verdict      string   `json:"verdict"`
		Unstable     []string `json:"unstable"`
		HeadUnstable []string `json:"head_unstable"`
		NewMisses    []string `json:"new_misses"`
	}
	if err := json.Unmarshal(must(os.ReadFile(jsonOut)), &r); err != nil {
		t.Fatalf("exit %d %v\n%s", code, err, errs)
	}
	if code != 1 || r.Verdict != "fail" || len(r.Unstable) != 0 || strings.Join(r.HeadUnstable, ",") != "q1,q2,q3" || strings.Join(r.NewMisses, ",") != "q1,q2,q3" {
		t.Errorf("exit %d %+v\n%s%s", code, r, text, errs)
	}
	for _, want := range []string{"3 queries newly at zero recall (limit 0, max_new_misses): q1, q2, q3 (head unstable, at its worst repeat: q1, q2, q3)",
		"head unstable between repeats (3, judged at the worst repeat; the gate cannot pass): q1, q2, q3"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "unstable between repeats of the base") {
		t.Errorf("the base was stable:\n%s", text)
	}
}

// TestRunFromAnotherSetRefused: a run that records the fingerprint of
// another eval set is refused by compare and by the file retriever.
func TestRunFromAnotherSetRefused(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	other := write(t, dir, "other.jsonl", strings.Replace(setJSONL, "first", "First!", 1))
	cfg := write(t, dir, "rg.toml", "set = \"other.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	write(t, dir, "run.jsonl", runJSONL)
	// Write a run made on other.jsonl.
	made := filepath.Join(dir, "made.jsonl")
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--out", made); code != 0 {
		t.Fatalf("retrieve: %d %s", code, errs)
	}
	code, _, errs := rg(t, "compare", "--set", set, "--base", made, "--head", made)
	if code != 2 || !strings.Contains(errs, "was made on a different eval set") {
		t.Errorf("compare: exit %d %s", code, errs)
	}
	if code, _, errs := rg(t, "compare", "--set", other, "--base", made, "--head", made); code != 0 {
		t.Errorf("same set: exit %d %s", code, errs)
	}
	cfg2 := write(t, dir, "rg2.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"made.jsonl\"\n")
	if code, _, errs := rg(t, "gate", "--config", cfg2, "--allow-identical"); code != 2 || !strings.Contains(errs, "different eval set") {
		t.Errorf("file retriever: exit %d %s", code, errs)
	}
}

func TestShardAndMerge(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 3\ncontext = 2\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	var shards []string
	for i := 1; i <= 2; i++ {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		if code, _, errs := rg(t, "retrieve", "--config", cfg, "--shard", fmt.Sprintf("%d/2", i), "--out", p); code != 0 {
			t.Fatalf("shard %d: %d %s", i, code, errs)
		}
		shards = append(shards, p)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	if code, _, errs := rg(t, append([]string{"merge", "--set", set, "--out", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: %d %s", code, errs)
	}
	_, whole, _ := rg(t, "score", "--set", set, "--results", filepath.Join(dir, "run.jsonl"), "--candidates", "3", "--context", "2", "--format", "json")
	_, fromShards, _ := rg(t, "score", "--set", set, "--results", merged, "--candidates", "3", "--context", "2", "--format", "json")
	if whole != fromShards {
		t.Error("the merged shards score differently from the whole run")
	}
	if code, _, errs := rg(t, "merge", "--set", set, "--out", merged, shards[0]); code != 2 || !strings.Contains(errs, "in no shard (a gap") {
		t.Errorf("gap: %d %s", code, errs)
	}
	if code, _, errs := rg(t, "merge", "--set", set, "--out", merged, shards[0], shards[0], shards[1]); code != 2 || !strings.Contains(errs, "the shards overlap") {
		t.Errorf("overlap: %d %s", code, errs)
	}
	if code, _, errs := rg(t, "retrieve", "--config", cfg, "--shard", "3/2", "--out", merged); code != 2 || !strings.Contains(errs, "--shard wants i/n") {
		t.Errorf("bad shard: %d %s", code, errs)
	}
}

func TestRunCache(t *testing.T) {
	dir := t.TempDir()
	corpus, _ := filepath.Abs("../../frozen-set/corpus")
	queries, _ := filepath.Abs("../../frozen-set/queries.jsonl")
	cfg := write(t, dir, "rg.toml", fmt.Sprintf("set = %q\ncache_dir = \"cache\"\n[depth]\ncandidates = 5\ncontext = 3\n[base.retriever]\ntype = \"builtin\"\ncorpus = %q\ntitle_boost = 2.0\n[head.retriever]\ntype = \"builtin\"\ncorpus = %q\nchunk_words = 12\n", queries, corpus, corpus))
	code1, out1, errs1 := rg(t, "gate", "--config", cfg)
	if code1 != 1 || strings.Contains(errs1, "reused") {
		t.Fatalf("first run: %d %s", code1, errs1)
	}
	code2, out2, errs2 := rg(t, "gate", "--config", cfg)
	if code2 != 1 || strings.Count(errs2, "reused the cached run") != 2 || withoutLatency(out1) != withoutLatency(out2) || strings.Contains(out2, "Latency per query") {
		t.Errorf("second run: exit %d, stderr %s, same report %v", code2, errs2, out1 == out2)
	}
	if _, _, errs := rg(t, "gate", "--config", cfg, "--no-cache"); strings.Contains(errs, "reused") {
		t.Error("--no-cache reused the cache")
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "cache", "run-*.jsonl"))
	if len(entries) != 2 {
		t.Fatalf("%d cache entries", len(entries))
	}
	os.WriteFile(entries[0], []byte("{not json\n"), 0o644)
	code3, out3, errs3 := rg(t, "gate", "--config", cfg)
	if code3 != 1 || !strings.Contains(errs3, "is corrupt and was ignored") || withoutLatency(out3) != withoutLatency(out1) {
		t.Errorf("corrupt entry: exit %d %s", code3, errs3)
	}
}

// TestIdenticalSidesRefused: a gate whose two sides are one configuration
// in one tree cannot fail, so it stops with exit 2 and the fix, unless
// --allow-identical asks for the self-check.
func TestIdenticalSidesRefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	twin := write(t, dir, "twin.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	one := write(t, dir, "one.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	for _, tt := range []struct{ cfg, want string }{
		{twin, "twin.toml: retriever: [base.retriever] and [head.retriever] are identical, so this gate cannot fail: change one of them"},
		{one, "one.toml: retriever: base and head are the same [retriever] in the same tree, so this gate cannot fail: pass --base-ref origin/main"},
	} {
		code, out, errs := rg(t, "gate", "--config", tt.cfg)
		if code != 2 || !strings.Contains(errs, tt.want) || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, out, errs, tt.want)
		}
		code, _, errs = rg(t, "gate", "--config", tt.cfg, "--allow-identical")
		if code != 0 || !strings.Contains(errs, "cannot fail (allowed)") {
			t.Errorf("--allow-identical: exit %d %s", code, errs)
		}
	}
}

// withoutLatency drops the latency line, the one part of a report that
// depends on the clock.
func withoutLatency(report string) string {
	return regexp.MustCompile(`(?m)^Latency per query: .*\n`).ReplaceAllString(report, "")
}

// TestInterruptWritesNothing: a cancelled run (SIGINT/SIGTERM cancel the
// context) stops retrieving, exits 3 and leaves an error report, never a
// partial comparison.
// hangingSearch answers the preflight at once and every query after five
// seconds (or never, when the client gives up), for interrupt tests.
func hangingSearch(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Query string }
		json.NewDecoder(r.Body).Decode(&req)
		if req.Query != "recallgate preflight" {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Second):
			}
		}
		fmt.Fprint(w, `{"results":[{"doc":"a"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestInterruptWritesNothing(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	srv := hangingSearch(t)
	side := func(name string) string {
		return fmt.Sprintf("[%s.retriever]\ntype = \"http\"\nurl = %q\nbody = '{\"query\": {{query}}}'\nhits = \"results\"\ndoc = \"doc\"\n", name, srv.URL)
	}
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n"+side("base")+side("head"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	out := filepath.Join(dir, "report.md")
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"gate", "--config", cfg, "--out", out, "--allow-identical"}, func(string) string { return "" }, &stdout, &stderr)
	if code != 3 || !strings.Contains(stderr.String(), "interrupted before every query was retrieved") || time.Since(start) > 3*time.Second {
		t.Errorf("exit %d after %v\n%s", code, time.Since(start), stderr.String())
	}
	// What it leaves is an error report: never a partial comparison.
	if data, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(data), "recallgate could not run: error") || !strings.Contains(string(data), "exit 3 · stage interrupted") || strings.Contains(string(data), "recall@") {
		t.Errorf("an interrupted run must leave an error report, not a comparison: %v\n%s", err, data)
	}
}

func TestJSONOutBesideTheReport(t *testing.T) {
	dir := t.TempDir()
	md, js := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.json")
	code, _, errs := rg(t, "gate", "--config", "../../frozen-set/recallgate.toml", "--format", "markdown", "--out", md, "--json-out", js)
	if code != 1 {
		t.Fatalf("exit %d %s", code, errs)
	}
	var again bytes.Buffer
	if code := run(context.Background(), []string{"report", "--in", js, "--format", "markdown"}, func(string) string { return "" }, &again, io.Discard); code != 0 {
		t.Fatalf("report: exit %d", code)
	}
	want, _ := os.ReadFile(md)
	if !bytes.Equal(again.Bytes(), want) {
		t.Error("the Markdown rendered from --json-out differs from the one gate wrote")
	}
}

// TestDemoRerankerRegression: a reranker that reverses the demo base's top
// five keeps every candidate (recall@5 does not move) and buries the
// evidence below the context: the default context-depth rules fail it. The
// base against itself passes, and the demo's own head (nDCG@3 −0.040) fails
// for its recall reasons alone.
func TestDemoRerankerRegression(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../frozen-set/runs/base.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i == 0 { // the metadata line
			out.WriteString(line + "\n")
			continue
		}
		var r struct {
			ID   string            `json:"id"`
			Hits []json.RawMessage `json:"hits"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		slices.Reverse(r.Hits)
		b, _ := json.Marshal(r)
		out.Write(append(b, '\n'))
	}
	reversed := write(t, dir, "reversed.jsonl", out.String())
	cfg := "../../frozen-set/recallgate.toml"
	code, stdout, errs := rg(t, "compare", "--config", cfg, "--base", "../../frozen-set/runs/base.jsonl", "--head", reversed, "--format", "json")
	if code != 1 {
		t.Fatalf("reversed top five: exit %d, want 1\n%s", code, errs)
	}
	var rep struct {
		Reasons []string
		Rules   []struct{ Name, Outcome string }
		Summary struct {
			Delta struct {
				RecallAtN float64 `json:"recall_at_n"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]string{}
	for _, r := range rep.Rules {
		outcomes[r.Name] = r.Outcome
	}
	if rep.Summary.Delta.RecallAtN != 0 || outcomes["max_recall_drop"] != "pass" || outcomes["max_ndcg_drop"] != "fail" || outcomes["max_precision_drop"] != "fail" {
		t.Errorf("recall Δ %v, rules %v, reasons %q", rep.Summary.Delta.RecallAtN, outcomes, rep.Reasons)
	}
	if code, stdout, _ := rg(t, "compare", "--config", cfg, "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/base.jsonl"); code != 0 {
		t.Errorf("base against itself: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = rg(t, "compare", "--config", cfg, "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl")
	want := "  fail: mean recall@5 dropped by 0.023 (limit 0.020, max_recall_drop)\n  fail: 1 query newly at zero recall (limit 0, max_new_misses): q26\n" +
		`  fail: 3 required facts found in the base's final context are not in the head's (limit 0, max_facts_lost): q01 "create the new key, deploy it, then revoke the old one" (base: security/api-keys; head: security/api-keys#2, security/api-keys#0, security/api-keys#3, …and 1 more), q04 "four days by default" (base: queues/retention; head: queues/retention#0, queues/retention#1), q08 "bring your own key" (base: security/encryption; head: security/encryption#2, security/encryption#3)` + "\nset "
	if code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("demo head: exit %d, want exactly the two recall reasons and the facts the re-chunked head's context lost:\n%s", code, stdout)
	}
}

// sleeper is a command retriever that answers every query after a pause.
const sleeper = `import json, sys, time
pause = float(sys.argv[1])
for line in sys.stdin:
    req = json.loads(line)
    time.sleep(pause)
    print(json.dumps({"id": req["id"], "hits": [{"doc": "a"}, {"doc": "b"}]}), flush=True)
`

// TestLatencyOfSleepingRetrievers: each side's calls are timed; a head
// that sleeps 200 ms a query against a base at 5 ms shows it in the
// report, and max_latency_ratio fails it. (At 40 ms a loaded 2-core
// machine stretched the base's p95 past half the head's.)
func TestLatencyOfSleepingRetrievers(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	var set strings.Builder
	for i := 1; i <= 20; i++ { // twenty calls: the p95 leaves out the first, which waits for Python to start
		fmt.Fprintf(&set, `{"id":"q%d","query":"question %d","gold":{"a":1}}`+"\n", i, i)
	}
	write(t, dir, "set.jsonl", set.String())
	write(t, dir, "sleeper.py", sleeper)
	cfg := write(t, dir, "rg.toml", `set = "set.jsonl"
[depth]
candidates = 3
context = 2
[gate]
max_latency_ratio = 2.0
[base.retriever]
type = "command"
command = ["python3", "sleeper.py", "0.005"]
concurrency = 1
[head.retriever]
type = "command"
command = ["python3", "sleeper.py", "0.200"]
concurrency = 1
`)
	jsonOut := filepath.Join(dir, "report.json")
	code, text, errs := rg(t, "gate", "--config", cfg, "--json-out", jsonOut)
	out := string(must(os.ReadFile(jsonOut)))
	var rep struct {
		Reasons []string
		Latency struct {
			Base, Head struct {
				Calls int
				P50   float64 `json:"p50_ms"`
				P95   float64 `json:"p95_ms"`
				Max   float64 `json:"max_ms"`
				Total float64 `json:"total_ms"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, errs)
	}
	b, h := rep.Latency.Base, rep.Latency.Head
	if b.Calls != 20 || h.Calls != 20 || h.P50 < 200 || h.P50 > 4000 || b.P50 < 5 || b.P50 >= h.P50 || h.Max < h.P95 || h.Total < 4000 {
		t.Errorf("latency base %+v head %+v", b, h)
	}
	if code != 1 || len(rep.Reasons) == 0 || !strings.Contains(strings.Join(rep.Reasons, "\n"), "max_latency_ratio") {
		t.Errorf("exit %d reasons %q, want the latency rule to fail", code, rep.Reasons)
	}
	if !regexp.MustCompile(`Latency per query: base p50 [0-9.]+ ms, .* head p50 [0-9.]+ ms, .*; head p95 is [0-9.]+× the base's`).MatchString(text) {
		t.Errorf("text report lacks the latency line:\n%s", text)
	}
}

// TestWriteBaselineFolders: --write-baseline makes the folders it needs
// before the gate runs; a path whose folder cannot be made stops the run
// before any retrieval (exit 2), naming the file asked for, not a
// temporary one.
func TestWriteBaselineFolders(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "baselines", "nightly", "head.jsonl")
	code, out, errs := rg(t, "gate", "--config", "../../frozen-set/recallgate.toml", "--no-cache", "--write-baseline", want)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the demo head regresses)\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(want); err != nil || len(b) == 0 {
		t.Errorf("no baseline at %s: %v", want, err)
	}
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	blocked := filepath.Join(dir, "file", "head.jsonl")
	code, out, errs = rg(t, "gate", "--config", "../../frozen-set/recallgate.toml", "--no-cache", "--write-baseline", blocked)
	if code != 2 || !strings.Contains(errs, blocked+": --write-baseline: make its folder") || strings.Contains(errs, ".tmp-") || strings.Contains(out, "FAIL") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}
