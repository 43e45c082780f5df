package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianPython is the interpreter Debian's python3-whoosh installs into.
const debianPython = "/usr/bin/python3"

// TestCommandRetrieverWhoosh runs the demo's Python retriever (Whoosh BM25F)
// as a long-lived command retriever against the builtin BM25 on the same
// corpus and checks that both retrieve every query with comparable recall.
func TestCommandRetrieverWhoosh(t *testing.T) {
	if err := exec.Command(debianPython, "-c", "import whoosh").Run(); err != nil {
		t.Skipf("skipping: %s cannot import whoosh (apt-get install python3-whoosh; .ci/run does): %v", debianPython, err)
	}
	dir := t.TempDir()
	abs := func(p string) string {
		a, err := filepath.Abs(filepath.Join("../../frozen-set", p))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	cfg := write(t, dir, "rg.toml", `set = "`+abs("queries.jsonl")+`"
[depth]
candidates = 5
context = 3
[base.retriever]
type = "builtin"
corpus = "`+abs("corpus")+`"
[head.retriever]
type = "command"
command = ["`+debianPython+`", "`+abs("retrievers/whoosh_retriever.py")+`", "`+abs("corpus")+`"]
`)
	code, out, errs := rg(t, "gate", "--config", cfg, "--format", "json", "--max-recall-drop", "1", "--max-new-misses", "99")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, "whoosh retriever: indexed 62 chunks") {
		t.Errorf("the retriever's stderr was not passed through: %q", errs)
	}
	var r struct {
		Summary struct {
			Base, Head struct {
				Queries   int     `json:"queries"`
				RecallAtN float64 `json:"recall_at_n"`
			}
		}
		Queries []struct {
			Base, Head struct {
				FirstHitRank *int `json:"first_hit_rank"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	b, h := r.Summary.Base, r.Summary.Head
	t.Logf("recall@5 builtin %.3f, whoosh %.3f", b.RecallAtN, h.RecallAtN)
	if h.Queries != 29 || math.Abs(b.RecallAtN-h.RecallAtN) > 0.15 || h.RecallAtN < 0.6 {
		t.Errorf("whoosh %d queries, recall %.3f vs builtin %.3f", h.Queries, h.RecallAtN, b.RecallAtN)
	}
	agree := 0
	for _, q := range r.Queries {
		if q.Base.FirstHitRank != nil && q.Head.FirstHitRank != nil && *q.Base.FirstHitRank == 1 && *q.Head.FirstHitRank == 1 {
			agree++
		}
	}
	if agree < 15 {
		t.Errorf("only %d queries have a relevant doc first on both sides", agree)
	}
}

func TestCommandRetrieverCrashIsInfra(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary itself exits at once when started with a bogus flag.
	cfg := write(t, dir, "rg.toml", `set = "set.jsonl"
[base.retriever]
type = "file"
path = "run.jsonl"
[head.retriever]
type = "command"
command = ["`+exe+`", "-test.run=NoSuchTest", "-bogus-flag"]
`)
	code, _, errs := rg(t, "gate", "--config", cfg)
	if code != 3 || !strings.Contains(errs, "head: 3 queries not retrieved (not scored as misses): retriever process ") || !strings.Contains(errs, "exited before its first answer (exit status") {
		t.Errorf("exit %d, want 3\n%s", code, errs)
	}
}
