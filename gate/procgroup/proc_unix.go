//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Signal is a signal Send delivers to a group.
type Signal = syscall.Signal

// Term asks a group to end; Kill ends it.
const (
	Term = syscall.SIGTERM
	Kill = syscall.SIGKILL
)

// Own starts the program as the leader of a new process group, so Send
// reaches the helpers it starts too. Call it before cmd.Start.
func Own(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Send sends sig to the program's process group. The group's id is the
// leader's pid, which Linux does not reuse while the group has a member,
// so signalling after the leader has ended reaches only helpers left
// behind (or no one).
func Send(cmd *exec.Cmd, sig Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// Alive reports whether any process of the group led by pid is left.
func Alive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil
}
