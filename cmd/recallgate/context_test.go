package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoContext: the demo's context block. Three queries of the saved
// runs carry the pipeline's own context; the report says so for each side,
// fails on the facts the re-chunked head lost (naming its passages), keeps
// the context byte for byte in the runs it saves, and compare on those runs
// gives the same report.
func TestDemoContext(t *testing.T) {
	dir := t.TempDir()
	cfg := "../../frozen-set/context.toml"
	code, out, errs := rg(t, "gate", "--config", cfg, "--format", "json", "--save-runs", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errs)
	}
	var rep struct {
		Verdict string
		Reasons []string
		Summary struct {
			Base, Head struct {
				Context *struct {
					Source     string
					Own        int
					FactsFound int `json:"facts_found"`
				}
			}
		}
		Queries []struct {
			ID   string
			Head struct {
				Context *struct {
					Source           string
					EvidenceCoverage any `json:"evidence_coverage"`
				}
			}
			FactsLost []struct{ Fact, Passage, Instead string } `json:"facts_lost"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	mixed := "the pipeline's own for 3 queries; packed by recallgate from the hits for 26 (context_tokens = 2000)"
	if b, h := rep.Summary.Base.Context, rep.Summary.Head.Context; b == nil || h == nil || b.Source != mixed || h.Source != mixed || b.Own != 3 || b.FactsFound != 7 || h.FactsFound != 4 {
		t.Errorf("context summaries %+v %+v", b, h)
	}
	lost := map[string]string{}
	for _, q := range rep.Queries {
		for _, f := range q.FactsLost {
			lost[q.ID] = f.Instead
		}
		switch q.ID {
		case "q04":
			if q.Head.Context == nil || q.Head.Context.Source != "own" || q.Head.Context.EvidenceCoverage != 0.0 {
				t.Errorf("q04 head context %+v", q.Head.Context)
			}
		case "q05": // no evidence: n/a, never 1.0
			if q.Head.Context == nil || q.Head.Context.Source != "packed" || q.Head.Context.EvidenceCoverage != "n/a" {
				t.Errorf("q05 head context %+v", q.Head.Context)
			}
		}
	}
	if len(lost) != 3 || lost["q04"] != "queues/retention#0" || lost["q01"] != "security/api-keys#2" {
		t.Errorf("facts lost %v", lost)
	}
	for _, side := range []string{"base", "head"} {
		got, _ := os.ReadFile(filepath.Join(dir, side+".jsonl"))
		want, _ := os.ReadFile("../../frozen-set/runs/context-" + side + ".jsonl")
		if !bytes.Equal(dropMeta(got), dropMeta(want)) {
			t.Errorf("saved %s run differs from the one served (the context must be kept byte for byte)", side)
		}
	}
	code2, out2, _ := rg(t, "compare", "--config", cfg, "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, "head.jsonl"), "--format", "json")
	var rep2 struct {
		Verdict string
		Reasons []string
	}
	if err := json.Unmarshal([]byte(out2), &rep2); err != nil || code2 != code || rep2.Verdict != rep.Verdict || strings.Join(rep2.Reasons, "\n") != strings.Join(rep.Reasons, "\n") {
		t.Errorf("compare on the saved runs: exit %d %s %q, gate said %s %q", code2, rep2.Verdict, rep2.Reasons, rep.Verdict, rep.Reasons)
	}
	for _, format := range []string{"text", "markdown"} {
		_, page, _ := rg(t, "compare", "--config", cfg, "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, "head.jsonl"), "--format", format)
		for _, want := range []string{mixed, "n/a", "queues/retention#0"} {
			if !strings.Contains(strings.NewReplacer("&#95;", "_", "#\u200b", "#").Replace(page), want) {
				t.Errorf("%s report lacks %q", format, want)
			}
		}
	}
}

// dropMeta drops a run's metadata line (the saved one names its config).
func dropMeta(b []byte) []byte {
	if bytes.HasPrefix(b, []byte(`{"recallgate"`)) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[i+1:]
		}
	}
	return b
}

// contextRetriever answers with a context, or with a bad one for the
// query whose id names the fault.
const contextRetriever = `import json, sys
for line in sys.stdin:
    req = json.loads(line)
    ans = {"id": req["id"], "hits": [{"doc": "a", "text": "alpha"}]}
    fault = sys.argv[1]
    if req["id"] == "q2" and fault == "notarray":
        ans["context"] = {"doc": "a"}
    elif req["id"] == "q2" and fault == "nodoc":
        ans["context"] = [{"text": "x"}]
    elif req["id"] == "q2" and fault == "negative":
        ans["context"] = [{"doc": "a", "tokens": -1}]
    elif req["id"] == "q2" and fault == "abstain":
        ans["abstain"] = "yes"
    else:
        ans["context"] = [{"doc": "a", "chunk": "a#1", "text": "alpha beta", "tokens": 2}]
        ans["abstain"] = False
    print(json.dumps(ans), flush=True)
`

// TestContextBadAnswers: a command retriever's bad context or abstain is
// exit 3 naming the query and the field; a context path on a retriever
// that cannot take one is exit 2 naming the file, line and key.
func TestContextBadAnswers(t *testing.T) {
	needTool(t, "python3")
	dir := t.TempDir()
	write(t, dir, "set.jsonl", `{"id":"q1","query":"alpha","gold":{"a":1}}`+"\n"+`{"id":"q2","query":"beta","gold":{"a":1}}`+"\n")
	script := write(t, dir, "r.py", contextRetriever)
	for fault, want := range map[string]string{"notarray": "context: must be an array", "nodoc": "context[0].doc", "negative": "context[0].tokens", "abstain": "abstain: must be true or false"} {
		cfg := write(t, dir, fault+".toml", `set = "set.jsonl"
[retriever]
type = "command"
command = ["python3", "`+script+`", "`+fault+`"]
`)
		code, _, errs := rg(t, "gate", "--config", cfg, "--allow-identical")
		if code != 3 || !strings.Contains(errs, "q2") || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want 3 naming q2 and %q:\n%s", fault, code, want, errs)
		}
	}
	cfg := write(t, dir, "ok.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \""+script+"\", \"none\"]\n")
	if code, out, errs := rg(t, "gate", "--config", cfg, "--allow-identical", "--format", "json"); code != 0 || !strings.Contains(out, `"source": "the pipeline's own"`) {
		t.Errorf("good answers: exit %d\n%s\n%s", code, out, errs)
	}
	bad := write(t, dir, "bad.toml", "set = \"set.jsonl\"\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \""+script+"\", \"none\"]\ncontext_doc = \"doc\"\n")
	if code, _, errs := rg(t, "gate", "--config", bad, "--allow-identical"); code != 2 || !strings.Contains(errs, "bad.toml:5: base.retriever.context_doc") {
		t.Errorf("context_doc on a command retriever: exit %d\n%s", code, errs)
	}
}
