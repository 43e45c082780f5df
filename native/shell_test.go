package native

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestGateStepLeavesNoShell: the Gate step's environment holds the token,
// and a shell that waits for recallgate would keep it readable in its
// /proc/<pid>/environ by the PR's programs (same user, and a shell is
// dumpable). The step's script, run as the runner runs a bash step, must
// leave recallgate's parent without the token: the shell execs it.
func TestGateStepLeavesNoShell(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	body, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)id: gate\n.*?\n\s+run: '([^'\n]*)'\n`).FindSubmatch(body)
	if m == nil {
		t.Fatal("no single-quoted run: in the Gate step of action.yml")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(script, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	// A stand-in for the binary: it reports whether its parent's
	// environment holds the token.
	fake := filepath.Join(dir, "recallgate-bin", "recallgate")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nif tr '\\0' '\\n' < /proc/$PPID/environ | grep -q ghs_step_token; then echo parent-holds-token; else echo parent-clean; fi\necho \"args: $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// As the runner runs a bash step: bash --noprofile --norc -eo pipefail {0}.
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "RUNNER_TEMP=" + dir, "INPUT_GITHUB_TOKEN=ghs_step_token"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the step: %v\n%s", err, out)
	}
	if got := string(out); !strings.Contains(got, "parent-clean") || !strings.Contains(got, "args: action") {
		t.Errorf("the Gate step leaves a shell holding the token behind recallgate (%s):\n%s", m[1], got)
	}
}
