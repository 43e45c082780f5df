//go:build linux

package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Linux's special files: a character device, FIFOs, a socket, the streams.

// writeString is a write func that writes s.
func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestWriteCharDevice: a character device (made here as /dev/null is: 1,3)
// is written straight and stays the device; the atomic rename would have
// put a regular file in its place.
func TestWriteCharDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a character device (mknod) needs root; run as root to test writing one")
	}
	p := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(mkdev(1, 3))); err != nil {
		t.Skipf("mknod %s: %v (the file system refuses devices)", p, err)
	}
	if err := Write(p, 0o644, writeString("a report\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("after the write %s is %v (%v), want the character device still", p, fi.Mode(), err)
	}
	if st := fi.Sys().(*syscall.Stat_t); major(st.Rdev) != 1 || minor(st.Rdev) != 3 {
		t.Errorf("device %d,%d, want 1,3", major(st.Rdev), minor(st.Rdev))
	}
	if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
		t.Errorf("%d files beside the device, want none", len(entries)-1)
	}
}

// TestWriteFIFOWithReader: a FIFO whose reader is there gets the whole
// output, more than a pipe holds, and stays a FIFO.
func TestWriteFIFOWithReader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Opened read-write, the reader is there before the writer opens and
	// never sees an end of file before the last byte.
	r, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: the writer waits on its reader
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, len(want))
		n, _ := io.ReadFull(r, buf)
		got <- string(buf[:n])
	}()
	if err := Write(p, 0o644, writeString(want)); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-got:
		if g != want {
			t.Errorf("the reader got %d bytes, want %d", len(g), len(want))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the reader got nothing in 30s")
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("after the write %s is %v (%v), want the FIFO still", p, fi.Mode(), err)
	}
}

// TestWriteFIFOStalledReader: a reader that is there but takes no data
// fails the write after the stall timeout, not never.
func TestWriteFIFOStalledReader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(p, os.O_RDWR, 0) // a reader that never reads
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer func(d time.Duration) { stallTimeout = d }(stallTimeout)
	stallTimeout = 200 * time.Millisecond
	done := make(chan error, 1)
	go func() { done <- Write(p, 0o644, writeString(strings.Repeat("x", 1<<20))) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "its reader took no data for 200ms") {
			t.Errorf("error %v, want the stalled reader named", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the write to a FIFO whose reader takes nothing still waits after 20s")
	}
}

// TestWriteFIFONoReader: a FIFO nobody reads is refused at once (an open
// that waited for a reader would hang the job), and stays a FIFO.
func TestWriteFIFONoReader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- Write(p, 0o644, writeString("a report\n")) }()
	select {
	case err := <-done:
		var se *SpecialFileError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "no process reads it") {
			t.Errorf("error %v, want a *SpecialFileError saying no process reads it", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write to a FIFO with no reader still waits after 10s")
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("after the write %s is %v (%v), want the FIFO still", p, fi.Mode(), err)
	}
}

// TestWriteRefusesDirectoryAndSocket: a path that is a directory or a
// socket is refused, named, and left as it was.
func TestWriteRefusesDirectoryAndSocket(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer l.Close()
	sub := filepath.Join(dir, "reports")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, kind string
		mode       os.FileMode
	}{{sock, "a socket", os.ModeSocket}, {sub, "a directory", os.ModeDir}} {
		err := Write(tc.path, 0o644, writeString("x"))
		var se *SpecialFileError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.path+": "+tc.kind) {
			t.Errorf("%s: error %v, want a *SpecialFileError naming it %s", tc.path, err, tc.kind)
		}
		if fi, err := os.Lstat(tc.path); err != nil || fi.Mode().Type() != tc.mode {
			t.Errorf("%s is now %v (%v)", tc.path, fi.Mode(), err)
		}
	}
}

// TestWriteStreams: "-" and /dev/stdout are the caller's stdout,
// /dev/stderr its stderr; with no streams they are refused, and nothing
// is renamed over /dev/stdout.
func TestWriteStreams(t *testing.T) {
	for _, tc := range []struct{ path, stdout, stderr string }{
		{"-", "r\n", ""}, {"/dev/stdout", "r\n", ""}, {"/dev/stderr", "", "r\n"},
	} {
		var out, errb strings.Builder
		if err := (Streams{Stdout: &out, Stderr: &errb}).Write(tc.path, 0o644, writeString("r\n")); err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
		if out.String() != tc.stdout || errb.String() != tc.stderr {
			t.Errorf("%s: stdout %q stderr %q, want %q and %q", tc.path, out.String(), errb.String(), tc.stdout, tc.stderr)
		}
		var se *StreamError
		if err := Write(tc.path, 0o644, writeString("r\n")); !errors.As(err, &se) {
			t.Errorf("%s with no streams: error %v, want a *StreamError", tc.path, err)
		}
	}
	if fi, err := os.Lstat("/dev/stdout"); err == nil && fi.Mode().IsRegular() {
		t.Error("/dev/stdout is a regular file now")
	}
}

// mkdev, major and minor are Linux's device numbers (glibc's makedev).
func mkdev(maj, min uint64) uint64 {
	return min&0xff | (maj&0xfff)<<8 | (min&^0xff)<<12 | (maj&^0xfff)<<32
}

func major(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^0xfff }

func minor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^0xff }

// TestWriteRefusesLinkToDevice: a link to a device or a FIFO (what a
// change could commit where an output goes) is refused and left as it is;
// the device it names is never written. /dev/fd/N, the shell's >(…), is
// written.
func TestWriteRefusesLinkToDevice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDWR, 0) // a reader, so only the link can refuse it
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	link := filepath.Join(dir, "report.json")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	err = Write(link, 0o644, writeString("x"))
	var se *SpecialFileError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "a link to a FIFO") {
		t.Errorf("error %v, want a *SpecialFileError naming the link to a FIFO", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v)", fi.Mode(), err)
	}
	// The process's own descriptor: written.
	if err := Write(fmt.Sprintf("/dev/fd/%d", r.Fd()), 0o644, writeString("fd\n")); err != nil {
		t.Fatalf("/dev/fd/N: %v", err)
	}
	buf := make([]byte, 3)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "fd\n" {
		t.Errorf("read %q (%v) from the FIFO written through /dev/fd", buf, err)
	}
}

// TestWriteFIFOSwappedBeforeOpen: a FIFO with its reader that is replaced,
// between the check and the open, by a link to a regular file elsewhere
// (a process of the change still running) is refused, and the file is
// left as it was: the open must reach the FIFO that was checked.
func TestWriteFIFOSwappedBeforeOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me as I am\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	beforeOpen = func(string) {
		if err := os.Remove(p); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(victim, p); err != nil {
			t.Error(err)
		}
	}
	defer func() { beforeOpen = func(string) {} }()
	err = Write(p, 0o644, writeString("a report\n"))
	var se *SpecialFileError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "replaced between its check and its open") {
		t.Errorf("Write = %v, want a SpecialFileError saying it was replaced", err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me as I am\n" {
		t.Errorf("the link's target now reads %q: written through the swapped path", got)
	}
}
