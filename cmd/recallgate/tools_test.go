package main

import (
	"os/exec"
	"testing"
)

// needTool skips the rest of the test, naming the program, when a
// program it runs (python3, git) is not on PATH: a fresh clone on a bare
// machine runs every other test.
func needTool(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("skipping: %s is not installed (not on PATH)", n)
		}
	}
}
