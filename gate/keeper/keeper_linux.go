//go:build linux

package keeper

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// prctl options, from <linux/prctl.h>.
const (
	prSetDumpable       = 4
	prSetChildSubreaper = 36
)

// killRounds bounds the rounds of SIGKILL to the descendants (a program
// forking as fast as it is killed), killPause is the pause between two.
const (
	killRounds = 200
	killPause  = 10 * time.Millisecond
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(keep(os.Args[2:]))
	}
}

// adopt makes recallgate a child subreaper, once.
var adopt = sync.OnceValue(func() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
})

func command(argv []string, dir string, env []string, grace time.Duration) (*exec.Cmd, error) {
	look := exec.Command(argv[0], argv[1:]...)
	if look.Err != nil {
		return nil, look.Err
	}
	if err := runnable(look.Path, dir); err != nil {
		return nil, err
	}
	// /proc/self/exe runs recallgate's binary even when its file has
	// been replaced or removed since it started.
	self := "/proc/self/exe"
	_, err := os.Stat(self)
	if err != nil {
		self, err = os.Executable()
	}
	if err != nil || adopt() != nil {
		// No keeper can be started: the program alone, as before.
		look.Dir, look.Env = dir, env
		look.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return look, nil
	}
	args := append([]string{Arg, strconv.Itoa(os.Getpid()), grace.String(), look.Path}, argv[1:]...)
	cmd := exec.Command(self, args...)
	cmd.Args[0] = argv[0] // what ps shows
	cmd.Dir, cmd.Env = dir, env
	// The keeper leads a process group of its own (the program joins
	// it), and cleans up when recallgate dies, however it dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd, nil
}

// runnable refuses, as execve would, a program that is not there or
// cannot be run, so the error reaches the caller from Command rather than
// from inside the keeper.
func runnable(path, dir string) error {
	p := path
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return &fs.PathError{Op: "fork/exec", Path: path, Err: syscall.ENOENT}
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return &fs.PathError{Op: "fork/exec", Path: path, Err: syscall.EACCES}
	}
	return nil
}

// keep is the keeper: args are recallgate's pid, the grace and the
// program's argv. It returns the program's exit code.
func keep(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "recallgate: keeper: no program")
		return 127
	}
	parent, _ := strconv.Atoi(args[0])
	grace, err := time.ParseDuration(args[1])
	if err != nil {
		grace = 2 * time.Second
	}
	argv := args[2:]
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintf(os.Stderr, "recallgate: keeper: prctl(PR_SET_CHILD_SUBREAPER): %v\n", errno)
		return 127
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if os.Getppid() != parent {
		return 143 // recallgate died before the keeper could start anything
	}
	// The keeper leads a process group (Command asks for one at the
	// fork); the program and the helpers that stay in its group are in
	// it, so what recallgate sends the group reaches them all, as it
	// would the program alone.
	_ = syscall.Setpgid(0, 0)
	group := syscall.Getpgrp() == os.Getpid()
	p, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// Killed if the keeper is.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "recallgate: start %s: %v\n", argv[0], err)
		return 127
	}
	// The program holds the streams now: their end is its end (and its
	// helpers'), not the keeper's.
	os.Stdin.Close()
	os.Stdout.Close()
	os.Stderr.Close()
	pid := p.Pid
	ended := make(chan syscall.WaitStatus, 1)
	go reap(pid, ended)
	var ws syscall.WaitStatus
	select {
	case ws = <-ended: // it ended on its own: its helpers go with it
	case <-stop:
		// recallgate's SIGTERM to the group reached the program too;
		// recallgate's death (the keeper's Pdeathsig) only the keeper:
		// pass it on.
		if group {
			_ = syscall.Kill(0, syscall.SIGTERM)
		} else {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		t := time.NewTimer(grace)
		select {
		case ws = <-ended:
		case <-t.C:
			ws = syscall.WaitStatus(syscall.SIGKILL) // killed below
		}
		t.Stop()
	}
	killDescendants(os.Getpid())
	return exitAs(ws)
}

// reap waits for every child of the keeper (the program, and the orphans
// it adopts) so none stays a zombie, and sends the program's status to
// ended.
func reap(pid int, ended chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return // no child left
		}
		if got == pid {
			ended <- ws
		}
	}
}

// exitAs ends the keeper as the program ended: with its exit code, or
// by the signal that ended it (SIGTERM, SIGKILL, SIGINT, SIGHUP: what a
// stop sends), so recallgate reads "signal: terminated" as it would of
// the program; other signals as 128 and the signal's number.
func exitAs(ws syscall.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		sig := ws.Signal()
		switch sig {
		case syscall.SIGTERM, syscall.SIGKILL, syscall.SIGINT, syscall.SIGHUP:
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig)
			time.Sleep(time.Second) // the signal ends the keeper here
		}
		return 128 + int(sig)
	}
	return 128 + int(syscall.SIGKILL)
}

// killDescendants sends SIGKILL to every process below pid that is not a
// zombie, round after round, until none is left (killRounds at most).
func killDescendants(pid int) {
	for range killRounds {
		live := descendants(pid, false)
		if len(live) == 0 {
			return
		}
		for _, p := range live {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(killPause)
	}
}

// proc is what /proc/<pid>/stat says of a process.
type proc struct {
	pid, ppid, sid int
	zombie         bool
}

// procs reads every process's /proc/<pid>/stat.
func procs() []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session …: comm may hold spaces
		// and parentheses, so read after its last ')'.
		s := string(b)
		i := len(s) - 1
		for i >= 0 && s[i] != ')' {
			i--
		}
		var state string
		var ppid, pgrp, sid int
		if _, err := fmt.Sscan(s[i+1:], &state, &ppid, &pgrp, &sid); err != nil {
			continue
		}
		out = append(out, proc{pid: pid, ppid: ppid, sid: sid, zombie: state == "Z" || state == "X"})
	}
	return out
}

// descendants lists the processes below pid; zombies only when asked.
func descendants(pid int, zombies bool) []int {
	all := procs()
	children := map[int][]proc{}
	for _, p := range all {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, c := range children[n] {
			queue = append(queue, c.pid)
			if zombies || !c.zombie {
				out = append(out, c.pid)
			}
		}
	}
	return out
}

func sweep() {
	self := os.Getpid()
	r, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	if errno != 0 {
		return
	}
	sid := int(r)
	for range killRounds {
		var adopted []proc
		for _, p := range procs() {
			// recallgate's own children (git, a keeper, a command
			// retriever) share its session: never touched.
			if p.ppid == self && p.sid != sid {
				adopted = append(adopted, p)
			}
		}
		if len(adopted) == 0 {
			return
		}
		for _, p := range adopted {
			if !p.zombie {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
				for _, d := range descendants(p.pid, false) {
					_ = syscall.Kill(d, syscall.SIGKILL)
				}
			}
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
		time.Sleep(killPause)
	}
}
