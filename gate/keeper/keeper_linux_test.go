//go:build linux

package keeper

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// orphanScript leaves a process in a session of its own (setsid's child
// forks a sleep and exits), writing the sleep's pid to the file $1, then
// does $2.
const orphanScript = `setsid sh -c 'sleep 300 & echo $! > "$0"; exit 0' "$1" &
while [ ! -s "$1" ]; do sleep 0.05; done
eval "$2"`

// start runs orphanScript under a keeper and returns it and the pid file.
func start(t *testing.T, then string) (*exec.Cmd, string) {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not installed")
	}
	pidfile := filepath.Join(t.TempDir(), "orphan")
	cmd, err := Command([]string{"sh", "-c", orphanScript, "sh", pidfile, then}, t.TempDir(), []string{"PATH=" + os.Getenv("PATH")}, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, pidfile
}

// orphan reads the orphan's pid, waiting for it.
func orphan(t *testing.T, pidfile string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidfile)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid
		}
	}
	t.Fatal("the orphan never wrote its pid")
	return 0
}

// gone reports whether pid is gone (or a zombie) within 3 s.
func gone(pid int) bool {
	for range 30 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "Z" {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	return false
}

// TestProgramExitEndsOrphans: the program exits with 3 on its own; the
// keeper exits with 3 too, and the orphan it left in a session of its
// own is gone.
func TestProgramExitEndsOrphans(t *testing.T) {
	cmd, pidfile := start(t, "exit 3")
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("keeper's exit: %v, want exit status 3", err)
	}
	if pid := orphan(t, pidfile); !gone(pid) {
		t.Errorf("orphan %d outlived its program", pid)
	}
}

// TestTermEndsOrphans: SIGTERM to the keeper alone (recallgate's death)
// ends the program (the keeper ends as it did) and the orphan.
func TestTermEndsOrphans(t *testing.T) {
	cmd, pidfile := start(t, "sleep 300")
	pid := orphan(t, pidfile)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if err == nil || err.Error() != "signal: terminated" {
		t.Errorf("keeper's exit: %v, want signal: terminated (the program's)", err)
	}
	if !gone(pid) {
		t.Errorf("orphan %d outlived SIGTERM to its keeper", pid)
	}
}

// TestKilledKeeperSwept: the program kills its keeper outright (it runs
// as the same user); the program dies with it (its parent-death signal)
// and its orphan, adopted by this process (a child subreaper), is ended
// by Sweep.
func TestKilledKeeperSwept(t *testing.T) {
	cmd, pidfile := start(t, "kill -9 $PPID; sleep 300")
	pid := orphan(t, pidfile)
	_ = cmd.Wait()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") S "+strconv.Itoa(os.Getpid())+" ") {
			break // adopted
		}
	}
	Sweep()
	if !gone(pid) {
		t.Errorf("orphan %d of a killed keeper outlived Sweep", pid)
	}
}

// TestMissingProgram: a program that is not there is Command's error, as
// exec's Start's would be.
func TestMissingProgram(t *testing.T) {
	for _, argv := range [][]string{{"recallgate-no-such-program"}, {"./no-such-script.sh"}} {
		if _, err := Command(argv, t.TempDir(), nil, time.Second); err == nil {
			t.Errorf("%v: no error", argv)
		}
	}
}
