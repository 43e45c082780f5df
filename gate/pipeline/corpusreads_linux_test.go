package pipeline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/recallgate/recallgate/gate/corpus"
)

// openCounter counts the opens of one file by anything in this process
// (inotify's IN_OPEN, as strace's openat would show them).
type openCounter struct{ fd int }

func countOpens(t *testing.T, path string) *openCounter {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	// Closes too: inotify merges an event with an identical one still
	// unread, so open, open would count once; open, close, open does not.
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_OPEN|syscall.IN_CLOSE); err != nil {
		t.Fatal(err)
	}
	return &openCounter{fd: fd}
}

// take is how many opens happened since the last take.
func (c *openCounter) take(t *testing.T) int {
	t.Helper()
	n := 0
	buf := make([]byte, 64<<10)
	for {
		m, err := syscall.Read(c.fd, buf)
		if err == syscall.EAGAIN || m <= 0 {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= m; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&syscall.IN_OPEN != 0 {
				n++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// countingEnv is a test env whose corpus reads are counted by path.
func countingEnv(stderr *bytes.Buffer) (*Env, map[string]int) {
	var mu sync.Mutex
	reads := map[string]int{}
	e := testEnv(stderr)
	e.Corpora = &corpus.Reads{Read: func(path string) (*corpus.Snapshot, error) {
		mu.Lock()
		abs, _ := filepath.Abs(path)
		reads[abs]++
		mu.Unlock()
		return corpus.Read(path)
	}}
	return e, reads
}

// TestCorpusReadOncePerRun: a gate whose two sides build two indexes of
// one corpus folder, with the gold check, attribution and the baseline
// record beside them, opens each document once; a drift run (the check
// of what changed, the head's index, attribution) once; a gate with a
// base commit once per tree, the base tree's corpus and the checkout's.
// Counted with inotify on one document, as strace counts openat.
func TestCorpusReadOncePerRun(t *testing.T) {
	f := newDriftFixture(t)
	doc := filepath.Join(f.dir, "corpus", "fruit", "apple.md")
	opens := countOpens(t, doc)
	cfg, set := load(t, filepath.Join(f.dir, "recallgate.toml"))
	var stderr bytes.Buffer
	e, reads := countingEnv(&stderr)
	if _, err := Gate(context.Background(), e, GateOptions{Config: cfg, Set: set, Thresholds: cfg.Thresholds, Baseline: filepath.Join(f.dir, "again.jsonl")}); err != nil {
		t.Fatalf("gate: %v\n%s", err, stderr.String())
	}
	if n := opens.take(t); n != 1 || len(reads) != 1 {
		t.Errorf("gate --write-baseline: %d opens of %s, reads %v; want 1 of one corpus", n, doc, reads)
	}
	cfg, set = load(t, filepath.Join(f.dir, "recallgate.toml"))
	e, reads = countingEnv(&stderr)
	if _, err := Drift(context.Background(), e, GivenRuling(cfg, set), DriftOptions{Baseline: f.baseline}); err != nil {
		t.Fatalf("drift: %v\n%s", err, stderr.String())
	}
	if n := opens.take(t); n != 1 || len(reads) != 1 {
		t.Errorf("drift: %d opens of %s, reads %v; want 1 of one corpus", n, doc, reads)
	}

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git for the base commit")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", f.dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+f.dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	opens.take(t)
	cfg, set = load(t, filepath.Join(f.dir, "recallgate.toml"))
	e, reads = countingEnv(&stderr)
	if _, err := Gate(context.Background(), e, GateOptions{Config: cfg, Set: set, Thresholds: cfg.Thresholds, BaseRef: "HEAD", TempDir: t.TempDir(), AllowIdentical: true}); err != nil {
		t.Fatalf("gate --base-ref: %v\n%s", err, stderr.String())
	}
	n := opens.take(t)
	twice := 0
	for _, r := range reads {
		if r != 1 {
			twice++
		}
	}
	if n != 1 || len(reads) != 2 || twice != 0 {
		t.Errorf("gate --base-ref: %d opens of %s, reads %v; want 1, and each tree's corpus read once", n, doc, reads)
	}
}
