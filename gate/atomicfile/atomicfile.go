// Package atomicfile is the one writer of every file recallgate writes
// (reports, run files, histories, sets). A regular file, or a path not
// there yet, is written so that a reader sees the old content or the whole
// new content, never a part: the bytes go to a temporary file in the same
// folder, are synced to disk, and the temporary file is renamed over the
// target. A writer killed half way leaves only its temporary file, which
// the next write of the same target removes. A path that is there and is
// no regular file is never renamed over (see Streams.Write): a character
// device or a FIFO is written straight, anything else is refused, and "-",
// /dev/stdout and /dev/stderr are the caller's streams.
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StaleAfter is how old a temporary file of a writer that cannot be
// checked for liveness must be before it is removed.
const StaleAfter = 24 * time.Hour

// tempPrefix is the start of the temporary files for path's base name:
// ".<base>.tmp-<pid>-<random>".
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// Write writes path with perm from what write produces, by the rules of
// Streams.Write with no streams: "-", /dev/stdout and /dev/stderr are
// refused (*StreamError).
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	return Streams{}.Write(path, perm, write)
}

// replace writes path atomically: a temporary file renamed over it.
func replace(path string, perm os.FileMode, write func(io.Writer) error) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	CleanStale(path)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := filepath.Join(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(rnd[:]))
	tmp, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		// Name the file asked for, not the temporary one beside it.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(name)
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable where the system allows it.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// CleanStale removes the temporary files that writers of path left behind
// when they were killed: those of a process that no longer runs, or, where
// that cannot be told, older than StaleAfter.
func CleanStale(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() {
			continue
		}
		switch alive(pid) {
		case liveNo:
		case liveUnknown:
			if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < StaleAfter {
				continue
			}
		default:
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

type liveness int

const (
	liveYes liveness = iota
	liveNo
	liveUnknown
)

// alive tells whether process pid still runs.
func alive(pid int) liveness {
	p, err := os.FindProcess(pid)
	if err != nil {
		return liveNo
	}
	if runtime.GOOS == "windows" {
		return liveUnknown
	}
	err = p.Signal(syscall.Signal(0))
	switch {
	case err == nil, errors.Is(err, syscall.EPERM):
		return liveYes
	case errors.Is(err, os.ErrProcessDone), errors.Is(err, syscall.ESRCH):
		return liveNo
	}
	return liveUnknown
}

// LockedError means another live process holds a file's lock.
type LockedError struct {
	Path string
	PID  int
}

// Error implements error.
func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is in use by another recallgate (pid %d): stop it first, or label another file", e.Path, e.PID)
}

// Lock takes path's writer lock, the file path+".lock" holding this
// process's pid, made with O_EXCL. A lock whose process no longer runs is
// taken over; one held by a live process is a *LockedError naming it. The
// returned release removes the lock.
func Lock(path string) (release func(), err error) {
	lock := path + ".lock"
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(lock) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		data, rerr := os.ReadFile(lock)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
		if rerr == nil && perr == nil && (pid == os.Getpid() || alive(pid) != liveNo) {
			return nil, &LockedError{Path: path, PID: pid}
		}
		os.Remove(lock) // a dead holder's, or unreadable: take it over
	}
	return nil, fmt.Errorf("lock %s: another process keeps taking %s.lock", path, path)
}
