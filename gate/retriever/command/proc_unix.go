//go:build unix

package command

import (
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// ownGroup starts the program as the leader of a new process group, so
// signalGroup reaches the helpers it starts too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the program's process group. The group's id is
// the leader's pid, which Linux does not reuse while the group has a
// member, so signalling after the leader has ended reaches only helpers
// left behind (or no one).
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
