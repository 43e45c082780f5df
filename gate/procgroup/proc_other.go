//go:build !unix

package procgroup

import (
	"os/exec"
)

// Signal is a signal Send delivers (every one a kill on this system).
type Signal int

// Term asks a group to end; Kill ends it. This system has no process
// groups and no SIGTERM, so both kill the program.
const (
	Term Signal = iota
	Kill
)

// Own does nothing where there are no process groups.
func Own(*exec.Cmd) {}

// Send kills the program.
func Send(cmd *exec.Cmd, _ Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// Alive cannot tell on this system: false.
func Alive(int) bool { return false }
