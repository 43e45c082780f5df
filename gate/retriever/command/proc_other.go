//go:build !unix

package command

import (
	"os/exec"
)

type signal int

const (
	sigTerm signal = iota
	sigKill
)

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// signalGroup kills the program (this system has no process groups and
// no SIGTERM, so every signal is a kill).
func signalGroup(cmd *exec.Cmd, _ signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
