// Package gitexec is the one way recallgate runs git: hardened so nothing
// of the repository's own runs (no pager, no hooks, no fsmonitor, no
// signature check, git's own environment variables cleared, the C
// locale), the checkout trusted through safe.directory (a container
// action sees a checkout owned by another user), and bounded in time and
// output. It also holds the one rule for what a commit id looks like
// (IsSHA) and the one short form reports write (Short).
//
// It imports only the standard library; no other non-test file of the
// project starts git (TestDependencyStar holds this).
package gitexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Timeout bounds one git call when the caller's context has no earlier
// deadline. Making a worktree of a large commit is the longest call.
const Timeout = 10 * time.Minute

// MaxOutput bounds what one git call may write to its standard output
// (a tree listing, a blob, a log); more is an error, never a cut.
const MaxOutput int64 = 1 << 30

// hardening is what every call puts before its own arguments.
var hardening = []string{
	"-c", "safe.directory=*",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.fsmonitor=false",
	"-c", "log.showSignature=false",
	"-c", "core.pager=cat",
	"--no-pager",
}

// Installed reports whether a git binary is on PATH.
func Installed() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// ErrNotInstalled is the error of a call where no git is on PATH.
var ErrNotInstalled = errors.New("git is not installed")

// OutputError is a git call that wrote more than its bound.
type OutputError struct {
	// Command is git's subcommand; Max the bound in bytes.
	Command string
	Max     int64
}

// Error implements error.
func (e *OutputError) Error() string {
	return fmt.Sprintf("git %s: output over %d bytes", e.Command, e.Max)
}

// Output runs git in dir with args and returns its standard output as
// written, at most max bytes (0 = MaxOutput). Its error is
// "git <command>: <first line of stderr>", wrapping the process's error
// when stderr is empty.
func Output(ctx context.Context, dir string, max int64, args ...string) ([]byte, error) {
	if max <= 0 {
		max = MaxOutput
	}
	name := command(args)
	if !Installed() {
		return nil, fmt.Errorf("git %s: %w", name, ErrNotInstalled)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	full := append(append(append([]string{}, hardening...), "-C", dir), args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(Env(), "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	stdout := &bounded{max: max}
	stderr := &bounded{max: 64 << 10, cut: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if stdout.over {
		return nil, &OutputError{Command: name, Max: max}
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.buf.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return nil, fmt.Errorf("git %s: %s", name, msg)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", name, ctx.Err())
		}
		return nil, fmt.Errorf("git %s: %w", name, err)
	}
	return stdout.buf.Bytes(), nil
}

// Run runs git in dir with args (bounded by MaxOutput) and returns its
// standard output with surrounding white space trimmed.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := Output(ctx, dir, 0, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// command is git's subcommand in args: the first argument that is not a
// -c setting.
func command(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return "git"
}

// TopLevel is the top of the git checkout holding dir, its symbolic links
// resolved; read once per folder under a context that remembers
// (Remember).
func TopLevel(ctx context.Context, dir string) (string, error) {
	return remembered(ctx, func(m *memo) (map[string]answer, *int) { return m.tops, &m.reads.TopLevel }, dir, func() (string, error) { return topLevel(ctx, dir) })
}

func topLevel(ctx context.Context, dir string) (string, error) {
	top, err := Run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	return top, nil
}

// Head is the full id of the commit checked out in the checkout holding
// dir; read once per folder under a context that remembers (Remember).
func Head(ctx context.Context, dir string) (string, error) {
	return remembered(ctx, func(m *memo) (map[string]answer, *int) { return m.heads, &m.reads.Head }, dir, func() (string, error) { return head(ctx, dir) })
}

func head(ctx context.Context, dir string) (string, error) {
	c, err := Run(ctx, dir, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	if !IsSHA(c) {
		return "", fmt.Errorf("git rev-parse: %.80q is not a commit id", c)
	}
	return c, nil
}

// Status reports whether the checkout holding dir has changes not
// committed: tracked files changed, and, when untracked is true, files
// git does not track (and does not ignore).
func Status(ctx context.Context, dir string, untracked bool) (bool, error) {
	args := []string{"status", "--porcelain"}
	if !untracked {
		args = append(args, "--untracked-files=no")
	}
	out, err := Run(ctx, dir, args...)
	return out != "", err
}

// IsSHA reports whether s looks like a commit id, full or abbreviated:
// 7 to 64 lowercase hexadecimal digits (64 is a SHA-256 repository's
// full id, 40 a SHA-1 repository's).
func IsSHA(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ShortLen is how many digits of a commit id reports show.
const ShortLen = 12

// Short is a commit as reports show it: its first ShortLen characters
// (a commit id of either length, or what a CI said the commit was).
// ShortRef is the form for what may be a ref.
func Short(commit string) string {
	if len(commit) > ShortLen {
		return commit[:ShortLen]
	}
	return commit
}

// ShortRef is a ref as messages show it: a commit id shortened (Short),
// any other ref (origin/main, main~5) whole.
func ShortRef(ref string) string {
	if IsSHA(ref) {
		return Short(ref)
	}
	return ref
}

// Env is the process's environment without what would point git at
// another repository or index than the one holding the folder (GIT_DIR,
// GIT_WORK_TREE, GIT_INDEX_FILE and the like), in the C locale so its
// messages can be read.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "LC_ALL", "LANG", "LANGUAGE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// bounded keeps at most max bytes; past that it either drops the rest
// (cut) or marks itself over and fails the write, which stops git.
type bounded struct {
	buf  bytes.Buffer
	max  int64
	cut  bool
	over bool
}

func (b *bounded) Write(p []byte) (int, error) {
	room := b.max - int64(b.buf.Len())
	if int64(len(p)) <= room {
		return b.buf.Write(p)
	}
	if b.cut {
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	b.over = true
	return 0, errors.New("output over its bound")
}
