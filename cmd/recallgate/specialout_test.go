//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// frozenAbs is the frozen set's folder, found before a test changes folder.
var frozenAbs, _ = filepath.Abs("../../frozen-set")

// compareOut runs `recallgate compare` on the frozen set's two run files
// (a failing verdict: exit 1) with the output flags given.
func compareOut(t *testing.T, flags ...string) (int, string, string) {
	t.Helper()
	frozen := frozenAbs
	args := append([]string{"compare", "--config", filepath.Join(frozen, "recallgate.toml"),
		"--base", filepath.Join(frozen, "runs", "base.jsonl"), "--head", filepath.Join(frozen, "runs", "head.jsonl")}, flags...)
	var out, errb bytes.Buffer
	code := run(context.Background(), args, func(string) string { return "" }, &out, &errb)
	return code, out.String(), errb.String()
}

// TestOutStreams: --out - and --out /dev/stdout are the command's stdout
// (and --json-out /dev/stderr its stderr): the report arrives there, no
// file named "-" is made, nothing is renamed over /dev/stdout.
func TestOutStreams(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, out := range []string{"-", "/dev/stdout"} {
		code, stdout, errs := compareOut(t, "--out", out, "--json-out", "/dev/stderr")
		if code != 1 || !strings.HasPrefix(stdout, "FAIL  mean recall@5") || !strings.Contains(errs, `"verdict": "fail"`) {
			t.Errorf("--out %s: exit %d, stdout %.200q, stderr %.300q", out, code, stdout, errs)
		}
	}
	if _, err := os.Lstat("-"); err == nil {
		t.Error(`a file named "-" was written`)
	}
	if fi, err := os.Lstat("/dev/stdout"); err == nil && fi.Mode().IsRegular() {
		t.Error("/dev/stdout is a regular file now")
	}
}

// TestOutCharDevice: --out naming a character device (made here as
// /dev/null is, 1,3) writes to it and leaves it the device.
func TestOutCharDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a character device (mknod) needs root; run as root to test --out to one")
	}
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod %s: %v (the file system refuses devices)", dev, err)
	}
	code, stdout, errs := compareOut(t, "--out", dev, "--json-out", dev)
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, want 1 with nothing on stdout\n%s\n%s", code, stdout, errs)
	}
	if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 || fi.Sys().(*syscall.Stat_t).Rdev != 1<<8|3 {
		t.Errorf("after the run %s is %v (%v), want the character device 1,3 still", dev, fi.Mode(), err)
	}
}

// TestOutFIFO: --out naming a FIFO writes the report to its reader; a
// FIFO no process reads is refused at once (exit 2), not waited on; both
// stay FIFOs.
func TestOutFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "report")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan [3]string, 1)
	go func() {
		code, stdout, errs := compareOut(t, "--out", fifo)
		done <- [3]string{string(rune('0' + code)), stdout, errs}
	}()
	select {
	case r := <-done:
		if r[0] != "2" || !strings.Contains(r[2], fifo+": a FIFO: no process reads it") {
			t.Errorf("no reader: exit %s, want 2 naming the FIFO\n%s\n%s", r[0], r[1], r[2])
		}
	case <-time.After(20 * time.Second):
		t.Fatal("--out to a FIFO with no reader still waits after 20s")
	}
	// The reader is there (opened without waiting for a writer) before the
	// run; a goroutine drains it as the run writes.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 1)
	wrote := make(chan struct{})
	go func() {
		var b bytes.Buffer
		<-wrote // reading an empty FIFO before its writer opens is its end
		io.Copy(&b, r)
		got <- b.String()
	}()
	code, stdout, errs := compareOut(t, "--out", fifo)
	close(wrote)
	if code != 1 {
		t.Errorf("with a reader: exit %d, want 1\n%s\n%s", code, stdout, errs)
	}
	select {
	case g := <-got:
		if !strings.HasPrefix(g, "FAIL  mean recall@5") {
			t.Errorf("the reader got %.200q, want the report", g)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the reader got nothing in 20s")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("after the runs %s is %v (%v), want the FIFO still", fifo, fi.Mode(), err)
	}
}
