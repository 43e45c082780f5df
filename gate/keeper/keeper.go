// Package keeper starts a program recallgate must be able to stop with
// every process it ever started, even those that left its process group
// and its session (a daemon's double fork and setsid()), and even when
// recallgate itself is killed without a chance to clean up (SIGKILL).
//
// On Linux the program is started under a keeper: recallgate's own
// binary, run again with a marker argument this package's init
// recognises, which makes itself a child subreaper (PR_SET_CHILD_SUBREAPER)
// and starts the program as its child, in the keeper's own process group.
// An orphan anywhere below the program is then re-parented to the keeper
// instead of to init, so the keeper's descendants are every process the
// program started, whatever sessions and groups they made. The keeper
// ends them all (SIGTERM to its group, a grace, then SIGKILL to every
// descendant, until none is left) when recallgate asks (SIGTERM to the
// group), when recallgate dies (the keeper's parent-death signal,
// Pdeathsig, is SIGTERM) and when the program exits on its own (its
// helpers go with it); it then ends as the program did. SIGKILL to the
// group still ends the program and its helpers at once, as it would
// without a keeper. The program's parent-death signal
// is SIGKILL, so a keeper killed outright takes the program with it; the
// orphans of a killed keeper go up to recallgate, itself made a child
// subreaper, and Sweep ends those that are in a session of their own.
//
// The package imports nothing of recallgate's (a leaf). Elsewhere the
// program is started directly, leading a process group of its own, with
// no keeper.
package keeper

import (
	"os/exec"
	"time"
)

// Arg is argv[1] of a keeper: no one types it by chance.
const Arg = "__recallgate-keeper__"

// Command returns the command that starts argv in dir with env (exactly)
// under a keeper, with argv[0] looked up as exec.Command looks it up (a
// bare name on recallgate's PATH, a path relative to dir). Its process is
// the keeper on Linux (leading a process group of its own, which the
// program joins), the program itself elsewhere: the caller makes it lead
// a group there too (procgroup.Own) and signals it with procgroup.Send. grace is how long the
// keeper waits after its SIGTERM to the program before it kills what is
// left. A program that is not there or cannot be run is an error here,
// as exec's Start would give.
func Command(argv []string, dir string, env []string, grace time.Duration) (*exec.Cmd, error) {
	return command(argv, dir, env, grace)
}

// Sweep ends the processes recallgate adopted as a child subreaper that
// are in a session other than its own: what a program started under a
// keeper left behind when its keeper was killed. Call it once the keeper
// has ended. It does nothing where there are no keepers.
func Sweep() { sweep() }
