package atomicfile

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "set.jsonl")
	if err := Write(p, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "one\n"); return err }); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old content and no temporary file.
	err := Write(p, 0o644, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("disk on fire") })
	if err == nil {
		t.Fatal("the writer's error was lost")
	}
	if b, _ := os.ReadFile(p); string(b) != "one\n" {
		t.Errorf("content %q after a failed write", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left, want 1", len(entries))
	}
}

// TestStaleTempFilesCleaned: a writer killed half way leaves its temporary
// file; the next write removes it, but not one of a writer still running.
func TestStaleTempFilesCleaned(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "set.jsonl")
	// A process that has exited: its pid no longer runs.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to run")
	}
	dead := filepath.Join(dir, tempPrefix("set.jsonl")+strconv.Itoa(cmd.Process.Pid)+"-abcdef")
	os.WriteFile(dead, []byte("trunc"), 0o600)
	// A live process (this test's parent, which waits for it).
	live := filepath.Join(dir, tempPrefix("set.jsonl")+strconv.Itoa(os.Getppid())+"-abcdef")
	os.WriteFile(live, []byte("busy"), 0o600)
	other := filepath.Join(dir, tempPrefix("other.jsonl")+strconv.Itoa(cmd.Process.Pid)+"-abcdef")
	os.WriteFile(other, []byte("x"), 0o600)
	old := time.Now().Add(-2 * StaleAfter)
	os.Chtimes(live, old, old)
	if err := Write(p, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "ok"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Error("the dead writer's temporary file is still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("a running writer's temporary file was removed")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("another target's temporary file was removed")
	}
}

func TestLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "set.jsonl")
	release, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	// A live holder (this test's parent stands in for another label).
	os.WriteFile(p+".lock", []byte(strconv.Itoa(os.Getppid())+"\n"), 0o644)
	_, err = Lock(p)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getppid() || !strings.Contains(err.Error(), "in use by another recallgate (pid ") {
		t.Errorf("a live holder: %v", err)
	}
	// A dead holder's lock is taken over.
	cmd := exec.Command("true")
	if err := cmd.Run(); err == nil {
		os.WriteFile(p+".lock", []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
		r2, err := Lock(p)
		if err != nil {
			t.Errorf("a dead holder's lock: %v", err)
		} else {
			r2()
		}
	}
	release()
	if _, err := os.Stat(p + ".lock"); !os.IsNotExist(err) {
		t.Error("release left the lock")
	}
}
