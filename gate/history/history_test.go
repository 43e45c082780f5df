package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
)

// day is 2026-12-d at 02:00 UTC.
func day(d int) time.Time { return time.Date(2026, 12, d, 2, 0, 0, 0, time.UTC) }

// run is a compare report of a gate on set fp: the head's means, one
// query q1 whose head retrieved docs.
func run(gateName, commit, fp, verdict string, recall, ndcg float64, docs ...string) *report.CompareReport {
	r := &report.CompareReport{Tool: "recallgate", Command: "compare", Verdict: verdict, HeadSHA: commit,
		Depth: report.DepthInfo{Candidates: 50, Context: 5}, Fingerprints: map[string]string{"set": fp},
		Queries: []report.CompareQuery{{ID: "q1", Change: "unchanged", Head: report.Scores{Docs: docs}}}}
	r.Summary.Head = report.SideSummary{Queries: 4, RecallAtN: recall, PrecisionAtK: 0.25, NDCGAtK: ndcg, ZeroRecall: []string{"q3"}}
	r.SetGate("", gateName)
	return r
}

// failed is an error report of a gate.
func failed(gateName, commit, msg string) *report.CompareReport {
	r := report.FromError("ci", 3, gate.AtStage(gate.StageRetrieve, "head", &gate.InfraError{Err: errors.New(msg)}))
	r.HeadSHA = commit
	r.SetGate("", gateName)
	return r
}

const (
	setA = "sha256:aaaa"
	setB = "sha256:bbbb"
	c1   = "1111111111111111111111111111111111111111"
	c2   = "2222222222222222222222222222222222222222"
)

// TestFromReport: a run's entry carries the head's means at both depths,
// the counts and the set; an error's entry carries why and no value at
// all: each metric is null in the line, never 0.
func TestFromReport(t *testing.T) {
	r := run("search", c1, setA, "fail", 0.75, 0.5, "d1", "d2")
	r.Summary.Head.Context = &report.ContextSummaryInfo{FactsFound: 3, FactsTotal: 4}
	r.Latency = &report.LatencyPair{Head: &report.LatencyInfo{P95: 12.5}}
	e := FromReport(r, day(1))
	got, _ := json.Marshal(e)
	want := `{"time":"2026-12-01T02:00:00Z","gate":"search","commit":"` + c1 + `","verdict":"fail","set":"sha256:aaaa","candidates":50,"context":5,"queries":4,` +
		`"recall_at_n":0.75,"precision_at_k":0.25,"ndcg_at_k":0.5,"zero_recall":1,"facts_found":3,"facts_total":4,"latency_p95_ms":12.5,"error":null,"digest":"` + e.Digest + `"}`
	if string(got) != want {
		t.Errorf("run entry\n got %s\nwant %s", got, want)
	}
	if err := e.check(); err != nil {
		t.Errorf("check: %v", err)
	}

	f := FromReport(failed("search", c1, "connection refused"), day(2))
	got, _ = json.Marshal(f)
	want = `{"time":"2026-12-02T02:00:00Z","gate":"search","commit":"` + c1 + `","verdict":"error","set":null,"candidates":null,"context":null,"queries":null,` +
		`"recall_at_n":null,"precision_at_k":null,"ndcg_at_k":null,"zero_recall":null,"facts_found":null,"facts_total":null,"latency_p95_ms":null,` +
		`"error":{"exit_code":3,"stage":"retrieve","message":"retrieval failed: connection refused"},"digest":"` + f.Digest + `"}`
	if string(got) != want {
		t.Errorf("error entry\n got %s\nwant %s", got, want)
	}
	if err := f.check(); err != nil {
		t.Errorf("check: %v", err)
	}
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestAddSkipsTheSameRun: a report added again (same gate, commit, set,
// results, day) is not added twice; the same commit measuring something
// else (drift), the next night's run of an unchanged commit, another gate
// or another commit is a new entry.
func TestAddSkipsTheSameRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	steps := []struct {
		name string
		e    Entry
		dup  bool
	}{
		{"first", FromReport(run("search", c1, setA, "pass", 0.9, 0.8, "d1"), day(1)), false},
		{"the same report again", FromReport(run("search", c1, setA, "pass", 0.9, 0.8, "d1"), day(1)), true},
		{"the same report later that day", FromReport(run("search", c1, setA, "pass", 0.9, 0.8, "d1"), day(1).Add(20*time.Hour)), true},
		{"same commit, the index drifted", FromReport(run("search", c1, setA, "fail", 0.7, 0.6, "d9"), day(1).Add(time.Hour)), false},
		{"the next night, unchanged", FromReport(run("search", c1, setA, "pass", 0.9, 0.8, "d1"), day(2)), false},
		{"another gate", FromReport(run("docs", c1, setA, "pass", 0.9, 0.8, "d1"), day(2)), false},
		{"another commit", FromReport(run("search", c2, setA, "pass", 0.9, 0.8, "d1"), day(2)), false},
		{"an error", FromReport(failed("search", c2, "timeout"), day(3)), false},
		{"the same error again", FromReport(failed("search", c2, "timeout"), day(3)), true},
	}
	n := 0
	for _, s := range steps {
		a, err := Add(path, s.e)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if !s.dup {
			n++
		}
		if a.Duplicate != s.dup || a.Entries != n {
			t.Errorf("%s: duplicate %v, %d entries; want %v, %d", s.name, a.Duplicate, a.Entries, s.dup, n)
		}
	}
	if got := lines(t, path); len(got) != n {
		t.Errorf("%d lines, want %d", len(got), n)
	}
}

// TestAddMakesItsFolder: the first night of a history kept with
// actions/cache (or GitLab's cache) has no folder: the cache restored
// nothing. The run is added all the same, so the cache has a folder to
// save and the history starts.
func TestAddMakesItsFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".recallgate-history", "history.jsonl")
	a, err := Add(path, FromReport(run("g", c1, setA, "pass", 0.5, 0.5, "1"), day(1)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Entries != 1 || len(lines(t, path)) != 1 {
		t.Errorf("%d entries, %d lines; want 1, 1", a.Entries, len(lines(t, path)))
	}
}

// TestAddKeepsTimeOrderAndBound: a backfilled run goes in its place in
// time; a full history drops its oldest entries and keeps MaxEntries, and
// is left as it is by a run older than every entry (the command says "not
// added", never "added" and "dropped").
func TestAddKeepsTimeOrderAndBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	for _, d := range []int{3, 1, 2} {
		if _, err := Add(path, FromReport(run("g", c1, setA, "pass", float64(d)/10, 0.5, fmt.Sprint(d)), day(d))); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range got {
		if want := day(i + 1).Format(TimeLayout); e.Time != want {
			t.Errorf("entry %d at %s, want %s", i, e.Time, want)
		}
	}

	// A full history: MaxEntries lines, one a minute from 2020-01-01.
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := 0; i < MaxEntries; i++ {
		e := FromReport(run("g", c1, setA, "pass", 0.5, 0.5, fmt.Sprint(i)), start.Add(time.Duration(i)*time.Minute))
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Add(path, FromReport(run("g", c1, setA, "pass", 0.5, 0.5, "new"), day(1)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Dropped != 1 || a.Entries != MaxEntries {
		t.Errorf("dropped %d, %d entries; want 1, %d", a.Dropped, a.Entries, MaxEntries)
	}
	l := lines(t, path)
	if len(l) != MaxEntries || !strings.Contains(l[0], `"time":"2020-01-01T00:01:00Z"`) || !strings.Contains(l[len(l)-1], `"time":"2026-12-01T02:00:00Z"`) {
		t.Errorf("%d lines, first %.60s, last %.60s", len(l), l[0], l[len(l)-1])
	}
	// A backfilled run older than every entry of a full history would be
	// the one dropped: it is not added, and the file is left as it was.
	full, _ := os.ReadFile(path)
	a, err = Add(path, FromReport(run("g", c1, setA, "pass", 0.5, 0.5, "old"), start.Add(-time.Hour)))
	if err != nil || !a.TooOld || a.Dropped != 0 || a.Entries != MaxEntries {
		t.Errorf("old run into a full history: %+v %v", a, err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(full) {
		t.Error("a run too old for a full history changed the file")
	}
	// The command says so, and does not say "added".
	rep := filepath.Join(t.TempDir(), "report.json")
	var data strings.Builder
	if err := report.WriteCompareReport(&data, failed("g", c1, "down"), report.JSON); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rep, []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs strings.Builder
	err = Options{History: path, Report: rep, Time: "2019-12-31T23:00:00Z"}.add(nil, &out, &errs)
	want := "history: 2019-12-31 23:00 UTC error (exit 3, retrieve), commit " + c1[:12] + " not added to " + path + ": older than every entry of a full history (a history keeps 10000 entries)\n"
	if err != nil || out.String() != want {
		t.Errorf("history add of a run too old: %v\n got %q\nwant %q", err, out.String(), want)
	}
}

// TestReadRefusesCorruptLines: a line that is not an entry recallgate
// wrote is an error naming the file and the line.
func TestReadRefusesCorruptLines(t *testing.T) {
	good, _ := json.Marshal(FromReport(run("g", c1, setA, "pass", 0.9, 0.8, "d1"), day(1)))
	bad, _ := json.Marshal(FromReport(failed("g", c1, "down"), day(2)))
	swap := func(old, new string) string { return strings.Replace(string(good), old, new, 1) }
	for _, c := range []struct{ name, line, want string }{
		{"not JSON", `{"time":`, "not a history entry: unexpected EOF"},
		{"unknown key", strings.Replace(string(good), `{`, `{"extra":1,`, 1), `unknown field "extra"`},
		{"duplicate key", strings.Replace(string(good), `{`, `{"verdict":"pass",`, 1), `key "verdict" appears twice`},
		{"zero for an error", strings.Replace(string(bad), `"recall_at_n":null`, `"recall_at_n":0`, 1), "an error entry has no set, metric or count: each is null"},
		{"a run without a value", swap(`"ndcg_at_k":0.8`, `"ndcg_at_k":null`), "ndcg_at_k: want a mean score (0 … 1), got null"},
		{"a score over 1", swap(`"recall_at_n":0.9`, `"recall_at_n":1.5`), "recall_at_n: want a mean score (0 … 1), got 1.5"},
		{"a verdict", swap(`"verdict":"pass"`, `"verdict":"<b>ok</b>"`), `verdict "<b>ok</b>": want one of [pass fail inconclusive error]`},
		{"a commit", swap(c1, "HEAD"), `commit "HEAD": not a commit SHA`},
		{"a local time", swap(`2026-12-01T02:00:00Z`, `2026-12-01T03:00:00+01:00`), "time \"2026-12-01T03:00:00+01:00\": want RFC 3339 in UTC"},
		{"a control character", swap(`"gate":"g"`, `"gate":"g\u001b[31m"`), `gate "g\x1b[31m": not a gate label`},
		{"too long", `{"gate":"` + strings.Repeat("x", MaxLineBytes) + `"}`, fmt.Sprintf("line longer than %d bytes", MaxLineBytes)},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "h.jsonl")
			os.WriteFile(path, []byte(string(good)+"\n\n"+c.line+"\n"+string(good)+"\n"), 0o644)
			_, err := Read(path)
			var ie *gate.InputError
			if !errors.As(err, &ie) || ie.Line != 3 || !strings.Contains(err.Error(), path+":3: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %s:3: …%s", err, path, c.want)
			}
			// Add refuses to write over a history it cannot read.
			if _, err := Add(path, FromReport(run("g", c2, setA, "pass", 0.9, 0.8, "d1"), day(3))); !errors.As(err, &ie) {
				t.Errorf("add to a corrupt history: %v", err)
			}
		})
	}
	// More than MaxEntries lines is not a history recallgate wrote.
	path := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(path, []byte(strings.Repeat(string(good)+"\n", MaxEntries+1)), 0o644)
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), fmt.Sprintf(":%d: more than %d entries", MaxEntries+1, MaxEntries)) {
		t.Errorf("a too long history: %v", err)
	}
}
