package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/corpus"
	"github.com/recallgate/recallgate/gate/fingerprint"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/runfile"
)

const (
	driftSet = `{"id":"q1","query":"apple orchard","gold":{"fruit/apple":1}}
{"id":"q2","query":"banana boat","gold":{"fruit/banana":1}}
`
	driftConfig = `set = "set.jsonl"
[depth]
candidates = 2
context = 1
[base.retriever]
type = "builtin"
corpus = "corpus"
title_boost = 2.0
[head.retriever]
type = "builtin"
corpus = "corpus"
`
)

// driftFixture is a gate over a three-document corpus whose head run was
// written as the drift baseline.
type driftFixture struct {
	dir, baseline string
}

func newDriftFixture(t *testing.T) *driftFixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "corpus", "fruit"), 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, dir, "corpus/fruit/apple.md", "# Apple\n\napple orchard harvest\n")
	put(t, dir, "corpus/fruit/banana.md", "# Banana\n\nbanana boat song\n")
	put(t, dir, "corpus/fruit/cherry.md", "# Cherry\n\ncherry pie recipe\n")
	put(t, dir, "set.jsonl", driftSet)
	put(t, dir, "recallgate.toml", driftConfig)
	f := &driftFixture{dir: dir, baseline: filepath.Join(dir, "baseline.jsonl")}
	cfg, set := load(t, filepath.Join(dir, "recallgate.toml"))
	var stderr bytes.Buffer
	if _, err := Gate(context.Background(), testEnv(&stderr), GateOptions{Config: cfg, Set: set, Thresholds: cfg.Thresholds, Baseline: f.baseline}); err != nil {
		t.Fatalf("write the baseline: %v\n%s", err, stderr.String())
	}
	return f
}

func (f *driftFixture) drift(t *testing.T, accept bool) (*gate.Comparison, error) {
	t.Helper()
	cfg, set := load(t, filepath.Join(f.dir, "recallgate.toml"))
	var stderr bytes.Buffer
	return Drift(context.Background(), testEnv(&stderr), GivenRuling(cfg, set), DriftOptions{Baseline: f.baseline, AcceptChangedInputs: accept})
}

func (f *driftFixture) edit(t *testing.T, name, old, new string) {
	t.Helper()
	p := filepath.Join(f.dir, name)
	data, err := os.ReadFile(p)
	if err != nil || !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s lacks %q (%v)", name, old, err)
	}
	put(t, f.dir, name, strings.Replace(string(data), old, new, 1))
}

// TestBaselineRecordsItsInputs: the baseline gate --write-baseline writes
// records the set, the head's retriever table and the corpus recallgate
// read; a drift against it with nothing changed runs and says nothing.
func TestBaselineRecordsItsInputs(t *testing.T) {
	f := newDriftFixture(t)
	cfg, set := load(t, filepath.Join(f.dir, "recallgate.toml"))
	meta, err := runfile.ReadRunFile(f.baseline, func(gate.Result) error { return nil })
	corpusFP, _ := corpus.Fingerprint(filepath.Join(f.dir, "corpus"))
	if err != nil || meta.Set != set.Fingerprint || meta.Config != cfg.Head.Fingerprint() || meta.Corpus != corpusFP || !fingerprint.Valid(corpusFP) {
		t.Fatalf("baseline meta %+v (%v), want set %s, retriever %s, corpus %s", meta, err, set.Fingerprint, cfg.Head.Fingerprint(), corpusFP)
	}
	// Beside the fingerprints: the policy, the time it was made (no git
	// here: no commit), each query's text hash, each document's hash.
	set1 := set.Query("q1")
	if meta.Policy != gate.PolicyFingerprint(cfg.Thresholds, cfg.Depth) || meta.Commit != "" || len(meta.Queries) != 2 || meta.Queries["q1"] != gate.TextHash(set1) ||
		len(meta.Docs) != 3 || !fingerprint.IsShortSum(meta.Docs["fruit/apple"]) || meta.Docs["fruit/apple"] == meta.Docs["fruit/banana"] {
		t.Errorf("baseline meta %+v", meta)
	}
	if _, err := time.Parse(time.RFC3339, meta.Made); err != nil {
		t.Errorf("made %q: %v", meta.Made, err)
	}
	cmp, err := f.drift(t, false)
	if err == nil && (cmp.Baseline.Commit != "" || strings.Join(cmp.Baseline.Lacks, "|") != "the baseline records no commit (it was made outside a git checkout): the commits since are not listed") {
		t.Errorf("lacks %q", cmp.Baseline.Lacks)
	}
	if err != nil || cmp.Verdict != gate.Pass || cmp.Baseline == nil || len(cmp.Baseline.Changed)+len(cmp.Baseline.Unrecorded) != 0 {
		t.Fatalf("unchanged drift: %v %+v", err, cmp)
	}
	if got := Fingerprint(cmp.Fingerprints, "corpus"); got != corpusFP {
		t.Errorf("report's corpus fingerprint %s, want %s", got, corpusFP)
	}
}

// TestDriftComparesChangedInputs: a baseline made with another set,
// retriever, corpus or policy is compared, not refused: the comparison
// (so the headline) names the input, old → new short hash, as the likely
// cause; an edited query is left out, named; the corpus says how it
// changed.
func TestDriftComparesChangedInputs(t *testing.T) {
	for _, tc := range []struct {
		input  string
		change func(t *testing.T, f *driftFixture)
		also   string
	}{
		{gate.InputSet, func(t *testing.T, f *driftFixture) { f.edit(t, "set.jsonl", `"banana boat"`, `"banana boats"`) }, "not compared: 1 query whose text changed since the baseline: q2"},
		{gate.InputRetriever, func(t *testing.T, f *driftFixture) {
			f.edit(t, "recallgate.toml", "[head.retriever]\n", "[head.retriever]\ntitle_boost = 3.0\n")
		}, ""},
		{gate.InputCorpus, func(t *testing.T, f *driftFixture) {
			f.edit(t, "corpus/fruit/cherry.md", "cherry pie recipe", "cherry pie recipe, now with cream")
		}, ""},
		{gate.InputPolicy, func(t *testing.T, f *driftFixture) {
			f.edit(t, "recallgate.toml", "[depth]", "[gate]\nmax_recall_drop = 0.5\n[depth]")
		}, ""},
	} {
		t.Run(tc.input, func(t *testing.T) {
			f := newDriftFixture(t)
			now := func() map[string]string {
				cfg, set := load(t, filepath.Join(f.dir, "recallgate.toml"))
				corpusFP, _ := corpus.Fingerprint(filepath.Join(f.dir, "corpus"))
				return map[string]string{gate.InputSet: set.Fingerprint, gate.InputRetriever: cfg.Head.Fingerprint(), gate.InputCorpus: corpusFP,
					gate.InputPolicy: gate.PolicyFingerprint(cfg.Thresholds, cfg.Depth)}
			}
			old := now()[tc.input]
			tc.change(t, f)
			want := tc.input + " " + fingerprint.Short(old) + " → " + fingerprint.Short(now()[tc.input])
			if tc.input == gate.InputCorpus {
				want = "corpus (0 documents added, 0 removed, 1 edited)"
			}
			cmp, err := f.drift(t, false)
			if err != nil || cmp.Baseline == nil || len(cmp.Baseline.Changed) != 1 || cmp.Baseline.Changed[0].Input != tc.input {
				t.Fatalf("drift: %v %+v", err, cmp)
			}
			var text bytes.Buffer
			if err := report.WriteCompareReport(&text, report.FromComparison(cmp), report.Text); err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(text.String(), "\n"); !strings.Contains(first, "changed since the baseline (the likely cause): "+want) {
				t.Errorf("headline %q does not say %q", first, want)
			}
			if tc.also != "" && !strings.Contains(text.String(), "drift: "+tc.also+"\n") {
				t.Errorf("report lacks %q:\n%s", tc.also, text.String())
			}
		})
	}
}

// TestDriftOlderBaseline: a baseline with no fingerprints runs and says
// so in its headline; a set changed with a query added runs, accepted, on
// the baseline's queries, naming the one left out.
func TestDriftOlderBaseline(t *testing.T) {
	f := newDriftFixture(t)
	data, err := os.ReadFile(f.baseline)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := bytes.Cut(data, []byte("\n"))
	put(t, f.dir, "baseline.jsonl", string(rest))
	cmp, err := f.drift(t, false)
	if err != nil || cmp.Verdict != gate.Pass || cmp.Baseline == nil || strings.Join(cmp.Baseline.Unrecorded, ",") != "set,retriever,corpus,policy" {
		t.Fatalf("older baseline: %v %+v", err, cmp)
	}
	var text bytes.Buffer
	if err := report.WriteCompareReport(&text, report.FromComparison(cmp), report.Text); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(text.String(), "\n"); !strings.Contains(first, "the baseline records no fingerprints (it was not written by gate --write-baseline)") {
		t.Errorf("headline %q does not say the baseline records no fingerprints", first)
	}

	// A recorded value that is no fingerprint is refused, naming it.
	put(t, f.dir, "baseline.jsonl", `{"recallgate":{"set":"sha256:nope","config":"`+strings.Repeat("x", 200)+`"}}`+"\n"+string(rest))
	if _, err := f.drift(t, true); ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "baseline.jsonl:1: recallgate.set: \"sha256:nope\" is not a fingerprint") {
		t.Errorf("a forged fingerprint: %v", err)
	}

	f = newDriftFixture(t)
	f.edit(t, "set.jsonl", "\n", "\n"+`{"id":"q3","query":"cherry pie","gold":{"fruit/cherry":1}}`+"\n")
	cmp, err = f.drift(t, true)
	if err != nil || len(cmp.Set.Queries) != 2 || strings.Join(cmp.Baseline.NewQueries, ",") != "q3" {
		t.Fatalf("a query added: %v %+v", err, cmp)
	}
}

// TestDeletedGoldIsDataQuality: a gold document deleted from the corpus
// since the baseline is a data-quality problem, not a retrieval miss: its
// query is not regressed, not a new miss, and every format lists it under
// data quality; the verdict fails by max_missing_gold, naming the
// document and its query (with max_missing_gold = 1 it passes).
func TestDeletedGoldIsDataQuality(t *testing.T) {
	f := newDriftFixture(t)
	if err := os.Remove(filepath.Join(f.dir, "corpus", "fruit", "apple.md")); err != nil {
		t.Fatal(err)
	}
	cmp, err := f.drift(t, true)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Verdict != gate.Fail || len(cmp.Regressed)+len(cmp.NewMisses) != 0 || strings.Join(cmp.DataQuality, ",") != "q1" || !cmp.Query("q1").DataQuality {
		t.Fatalf("verdict %s, regressed %v, new misses %v, data quality %v", cmp.Verdict, cmp.Regressed, cmp.NewMisses, cmp.DataQuality)
	}
	const why = "1 gold document left the corpus (limit 0, max_missing_gold): fruit/apple (query q1); kept out of the recall rules: query q1: restore the document or relabel the queries"
	if strings.Join(cmp.Reasons, "\n") != why {
		t.Errorf("reasons %q, want %q", cmp.Reasons, why)
	}
	if cmp.Baseline.Corpus == nil || strings.Join(cmp.Baseline.Corpus.GoldRemoved, ",") != "fruit/apple" || cmp.Baseline.Corpus.Removed != 1 {
		t.Errorf("corpus change %+v, want fruit/apple removed (gold)", cmp.Baseline.Corpus)
	}
	render := func(f report.Format) string {
		var b bytes.Buffer
		if err := report.WriteCompareReport(&b, report.FromComparison(cmp), f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	const line = "q1 (line 1): gold not in the corpus: fruit/apple — deleted or renamed since it was labelled; not a retrieval miss: kept out of the flips and the rules until it is relabelled"
	if txt := render(report.Text); !strings.Contains(txt, "\ndata quality: 1 query with gold the corpus does not hold\n  "+line+"\n") {
		t.Errorf("text:\n%s", txt)
	}
	mdLine := "`q1` (line 1): gold not in the corpus: `fruit/apple`" + strings.TrimPrefix(line, "q1 (line 1): gold not in the corpus: fruit/apple")
	if md := render(report.Markdown); !strings.Contains(md, "**Data quality: 1 query with gold the corpus does not hold**\n\n- "+mdLine) {
		t.Errorf("markdown:\n%s", md)
	}
	var js struct {
		Regressed   []string                 `json:"regressed"`
		NewMisses   []string                 `json:"new_misses"`
		DataQuality []report.DataQualityInfo `json:"data_quality"`
	}
	if err := json.Unmarshal([]byte(render(report.JSON)), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Regressed)+len(js.NewMisses) != 0 || len(js.DataQuality) != 1 || js.DataQuality[0].ID != "q1" || !js.DataQuality[0].KeptOut || strings.Join(js.DataQuality[0].Missing, ",") != "fruit/apple" {
		t.Errorf("json: %+v", js)
	}
	if x := render(report.JUnit); !strings.Contains(x, `<testcase name="q1" classname="recallgate.query">`) || !strings.Contains(x, `<skipped message="data quality: `) || strings.Contains(x, `<failure message="recall`) {
		t.Errorf("junit: q1 must be skipped as data quality, no query failed:\n%s", x)
	}
	if _, err := report.ReadCompareReport(strings.NewReader(render(report.JSON)), "r.json"); err != nil {
		t.Errorf("the strict reader refuses the report: %v", err)
	}
	f.edit(t, "recallgate.toml", "[depth]", "[gate]\nmax_missing_gold = 1\n[depth]")
	if cmp, err := f.drift(t, false); err != nil || cmp.Verdict != gate.Pass {
		t.Errorf("with max_missing_gold = 1: %v %+v", err, cmp)
	}
}

// TestDeletedGoldInAPullRequestCounts: in a gate (a pull request), a gold
// document the change deleted is the change under review: the query
// regresses and the gate fails, and the report still lists it under data
// quality, saying the loss counts.
func TestDeletedGoldInAPullRequestCounts(t *testing.T) {
	f := newDriftFixture(t)
	if err := os.CopyFS(filepath.Join(f.dir, "base-corpus"), os.DirFS(filepath.Join(f.dir, "corpus"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(f.dir, "corpus", "fruit", "apple.md")); err != nil {
		t.Fatal(err)
	}
	f.edit(t, "recallgate.toml", "corpus = \"corpus\"\ntitle_boost = 2.0", "corpus = \"base-corpus\"\ntitle_boost = 2.0")
	cfg, set := load(t, filepath.Join(f.dir, "recallgate.toml"))
	var stderr bytes.Buffer
	cmp, err := Gate(context.Background(), testEnv(&stderr), GateOptions{Config: cfg, Set: set, Thresholds: cfg.Thresholds})
	if err != nil || cmp.Verdict != gate.Fail || strings.Join(cmp.Regressed, ",") != "q1" || strings.Join(cmp.DataQuality, ",") != "q1" || cmp.Query("q1").DataQuality {
		t.Fatalf("gate: %v %+v", err, cmp)
	}
	var text bytes.Buffer
	if err := report.WriteCompareReport(&text, report.FromComparison(cmp), report.Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "q1 (line 1): gold not in the head's corpus: fruit/apple — the compared change deleted or renamed it; its loss counts") {
		t.Errorf("text:\n%s", text.String())
	}
}

// TestDriftComparesWhatItCan: queries new since the baseline are named
// and left out, and the run goes on while at least half of today's
// answerable queries can be compared; under half it is refused (exit 2)
// saying why. A query relabelled since (same text) is compared with
// today's labels on both sides: no drift.
func TestDriftComparesWhatItCan(t *testing.T) {
	f := newDriftFixture(t)
	f.edit(t, "set.jsonl", `{"fruit/apple":1}`, `{"fruit/apple":1,"fruit/cherry":2}`)
	f.edit(t, "set.jsonl", "\n", "\n"+`{"id":"q3","query":"cherry pie","gold":{"fruit/cherry":1}}`+"\n"+`{"id":"q4","query":"cherry recipe","gold":{"fruit/cherry":1}}`+"\n")
	cmp, err := f.drift(t, false)
	if err != nil || len(cmp.Set.Queries) != 2 || strings.Join(cmp.Baseline.NewQueries, ",") != "q3,q4" || len(cmp.Baseline.EditedQueries) != 0 || cmp.Verdict != gate.Pass {
		t.Fatalf("two queries added: %v %+v", err, cmp)
	}
	if q := cmp.Query("q1"); q == nil || q.Base.Recall != q.Head.Recall || q.Query.Gold["fruit/cherry"] != 2 {
		t.Errorf("q1 relabelled: %+v, want both sides scored with today's labels alike", q)
	}
	f.edit(t, "set.jsonl", `"banana boat"`, `"banana boats"`)
	_, err = f.drift(t, false)
	const want = "only 1 of today's 4 answerable queries can be compared with this baseline (2 new since it was made, 1 whose text changed): fewer than half"
	if ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("under half: %v (exit %d), want exit 2 saying %q", err, ExitCode(err), want)
	}
}
