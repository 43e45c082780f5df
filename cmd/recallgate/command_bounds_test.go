package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCommandRetrieverCannotHangTheGate: the gate with a command retriever
// that prints debug output on stdout, or that dies while a helper it
// started holds its stdout, ends in seconds with exit 3 naming the query
// and what went wrong (each of these hung recallgate before).
func TestCommandRetrieverCannotHangTheGate(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, tt := range []struct{ name, script, want string }{
		{"debug print", `while read l; do echo "debug: got a query"; done`,
			`q1: the retriever wrote a line that is not an answer to q1: "debug: got a query"; print debug output to stderr`},
		{"helper holds stdout", `sleep 60 & read l; exit 7`,
			`head: 3 queries not retrieved (not scored as misses): retriever process sh exited before its first answer (exit status 7)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "set.jsonl", setJSONL)
			write(t, dir, "run.jsonl", runJSONL)
			cfg := write(t, dir, "rg.toml", `set = "set.jsonl"
[base.retriever]
type = "file"
path = "run.jsonl"
[head.retriever]
type = "command"
concurrency = 1
command = ["sh", "-c", '`+tt.script+`']
`)
			start := time.Now()
			code, _, errs := rg(t, "gate", "--config", cfg)
			took := time.Since(start)
			if code != 3 || !strings.Contains(errs, tt.want) || took > 10*time.Second {
				t.Errorf("exit %d after %v, want 3 and %q\n%s", code, took, tt.want, errs)
			}
			t.Logf("exit %d after %v", code, took)
		})
	}
}
