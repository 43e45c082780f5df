package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// refusalFixture is four answerable queries (gold d1) and one
// unanswerable (u1); every query's top hit scores as topLine gives: q2
// 0.55 and q3 0.50 sit between 0.4 and 0.6, u1 0.3 under both.
const refusalSetJSONL = `{"id":"q1","query":"first","gold":{"d1":1}}
{"id":"q2","query":"second","gold":{"d1":1}}
{"id":"q3","query":"third","gold":{"d1":1}}
{"id":"q4","query":"fourth","gold":{"d1":1}}
{"id":"u1","query":"nothing","gold":{},"unanswerable":true}
`

const refusalRun = `{"id":"q1","hits":[{"doc":"d1","score":0.9}]}
{"id":"q2","hits":[{"doc":"d1","score":0.55}]}
{"id":"q3","hits":[{"doc":"d1","score":0.5}]}
{"id":"q4","hits":[{"doc":"d1","score":0.8}]}
{"id":"u1","hits":[{"doc":"x","score":0.3}]}
`

// TestGateRefusalThresholdRaised: the head's [head.refusal] min_score goes
// from 0.4 to 0.6 with the same hits: it would refuse q2 and q3, both
// answerable (by hand: false refusals 0/4 → 2/4), so the gate fails on
// max_false_refusals_increase and lists them, in text and in JSON.
func TestGateRefusalThresholdRaised(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", refusalSetJSONL)
	write(t, dir, "base.jsonl", refusalRun)
	write(t, dir, "head.jsonl", refusalRun)
	cfg := write(t, dir, "rg.toml", `set = "set.jsonl"
[base.retriever]
type = "file"
path = "base.jsonl"
[base.refusal]
min_score = 0.4
[head.retriever]
type = "file"
path = "head.jsonl"
[head.refusal]
min_score = 0.6
`)
	code, out, errs := rg(t, "gate", "--config", cfg)
	if code != 1 || !strings.Contains(out, "fail: 0 → 2 answerable queries the pipeline would refuse (+2, limit +0, max_false_refusals_increase); new: q2, q3") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "False refusals (answerable queries it would refuse): base 0/4; head 2/4: q2 (new), q3 (new)") ||
		!strings.Contains(out, "signal base min_score 0.4, head min_score 0.6") {
		t.Errorf("refusal block missing:\n%s", out)
	}
	code, out, _ = rg(t, "gate", "--config", cfg, "--format", "json")
	var r struct {
		Verdict string
		Refusal struct {
			Head struct {
				FalseRefusals struct {
					Count, Of int
					Queries   []string
				} `json:"false_refusals"`
			}
			NewFalseRefusals []string `json:"new_false_refusals"`
			Metrics          []struct{ Key, Unit, Denominator, Stage string }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	fr := r.Refusal.Head.FalseRefusals
	if fr.Count != 2 || fr.Of != 4 || strings.Join(fr.Queries, ",") != "q2,q3" || strings.Join(r.Refusal.NewFalseRefusals, ",") != "q2,q3" ||
		len(r.Refusal.Metrics) != 2 || r.Refusal.Metrics[1].Key != "false_refusals" || r.Refusal.Metrics[1].Unit != "queries" || r.Refusal.Metrics[1].Stage != "refusal" {
		t.Errorf("json refusal %+v", r.Refusal)
	}
}

// TestCompareNoRefusalSignal: runs without abstain and a config without
// [refusal]: the report says there is no signal and no refusal rule
// passes.
func TestCompareNoRefusalSignal(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", refusalSetJSONL)
	run := write(t, dir, "run.jsonl", refusalRun)
	code, out, errs := rg(t, "compare", "--set", set, "--base", run, "--head", run)
	if code != 0 || !strings.Contains(out, "Refusal check: no refusal signal on either side") ||
		!strings.Contains(out, "max_false_answers_increase ≤ +0 skipped, max_false_refusals_increase ≤ +0 skipped") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out, "max_false_refusals_increase ≤ +0 pass") {
		t.Errorf("a refusal rule passed without a signal:\n%s", out)
	}
}

// TestRefusalBadInput: abstain that is not a boolean in a run file is
// exit 2 naming file:line; in a command retriever's answer exit 3 naming
// the query; min_score over hits without scores exit 3 naming the query.
func TestRefusalBadInput(t *testing.T) {
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", refusalSetJSONL)
	run := write(t, dir, "run.jsonl", refusalRun)
	bad := write(t, dir, "bad.jsonl", strings.Replace(refusalRun, `"score":0.55}]}`, `"score":0.55}],"abstain":"yes"}`, 1))
	code, _, errs := rg(t, "compare", "--set", set, "--base", run, "--head", bad)
	if code != 2 || !strings.Contains(errs, "bad.jsonl:2") || !strings.Contains(errs, "abstain") {
		t.Errorf("abstain \"yes\" in a run: exit %d, %s", code, errs)
	}

	unscored := write(t, dir, "unscored.jsonl", strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(refusalRun, `,"score":0.9`, ""), `,"score":0.55`, ""), `,"score":0.5`, ""))
	cfg := write(t, dir, "rg.toml", "set = \"set.jsonl\"\n[refusal]\nmin_score = 0.4\n")
	code, _, errs = rg(t, "compare", "--config", cfg, "--base", run, "--head", unscored)
	if code != 3 || !strings.Contains(errs, "query q1") || !strings.Contains(errs, "min_score 0.4 needs the retriever's scores") {
		t.Errorf("min_score without scores: exit %d, %s", code, errs)
	}

	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cfg = write(t, dir, "cmd.toml", `set = "set.jsonl"
[base.retriever]
type = "file"
path = "run.jsonl"
[head.retriever]
type = "command"
concurrency = 1
command = ["sh", "-c", 'while read l; do echo "{\"id\":\"q1\",\"hits\":[],\"abstain\":\"yes\"}"; done']
`)
	code, _, errs = rg(t, "gate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "q1") || !strings.Contains(errs, "abstain") {
		t.Errorf("abstain \"yes\" from a command: exit %d, %s", code, errs)
	}
}
