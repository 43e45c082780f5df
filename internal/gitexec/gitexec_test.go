package gitexec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsSHA(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"", false},
		{"abc123", false},               // 6: too short to name a commit
		{"abc1234", true},               // 7: git's shortest abbreviation
		{strings.Repeat("a", 40), true}, // SHA-1
		{strings.Repeat("0", 64), true}, // SHA-256
		{strings.Repeat("a", 65), false},
		{"ABC1234", false}, // git writes lowercase
		{"abc123g", false},
		{"origin/main", false},
		{"abc1234\n", false},
	} {
		if got := IsSHA(tt.s); got != tt.want {
			t.Errorf("IsSHA(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestShort(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"", ""},
		{"abc1234", "abc1234"},
		{"0123456789ab", "0123456789ab"},
		{"0123456789abc", "0123456789ab"},
		{strings.Repeat("f", 40), "ffffffffffff"},
		{strings.Repeat("e", 64), "eeeeeeeeeeee"},
		{"headsha0000000000", "headsha00000"}, // what a CI said the commit was
	} {
		if got := Short(tt.s); got != tt.want {
			t.Errorf("Short(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
	for _, tt := range []struct{ s, want string }{
		{strings.Repeat("f", 40), "ffffffffffff"},
		{strings.Repeat("e", 64), "eeeeeeeeeeee"},
		{"abc1234", "abc1234"},
		{"origin/feature-branch-name", "origin/feature-branch-name"}, // a ref is kept whole
		{"main~5", "main~5"},
		{"refs/pull/12/merge", "refs/pull/12/merge"},
	} {
		if got := ShortRef(tt.s); got != tt.want {
			t.Errorf("ShortRef(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// repo makes a git repository with one commit of a.txt, through Run.
func repo(t *testing.T) string {
	t.Helper()
	if !Installed() {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "a.txt"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "one"},
	} {
		if _, err := Run(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckout(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	top, err := TopLevel(ctx, sub)
	if err != nil || top != dir {
		t.Fatalf("TopLevel = %q, %v; want %q", top, err, dir)
	}
	head, err := Head(ctx, sub)
	if err != nil || len(head) < 40 || !IsSHA(head) {
		t.Fatalf("Head = %q, %v", head, err)
	}
	for _, tt := range []struct {
		name      string
		change    func()
		untracked bool
		want      bool
	}{
		{"clean", func() {}, true, false},
		{"untracked file, untracked asked", func() { os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644) }, true, true},
		{"untracked file, untracked not asked", func() {}, false, false},
		{"tracked change", func() { os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644) }, false, true},
	} {
		tt.change()
		if got, err := Status(ctx, dir, tt.untracked); err != nil || got != tt.want {
			t.Errorf("%s: Status = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := TopLevel(ctx, t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "git rev-parse: ") {
		t.Errorf("TopLevel outside a checkout: %v, want git rev-parse's first line of stderr", err)
	}
}

// TestHardened: a hook, a pager and GIT_DIR pointing elsewhere have no
// effect on a call.
func TestHardened(t *testing.T) {
	dir := repo(t)
	other := repo(t)
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(dir, ".git", "hooks", "post-checkout")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, dir, "config", "core.pager", "touch "+marker+"; cat"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_PAGER", "touch "+marker+"; cat")
	if _, err := Run(ctx, dir, "checkout", "-q", "-b", "topic"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, dir, "log", "-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook or pager of the repository ran")
	}
	if b, err := Run(ctx, dir, "rev-parse", "--abbrev-ref", "HEAD"); err != nil || b != "topic" {
		t.Fatalf("branch = %q, %v: GIT_DIR pointed git at another repository", b, err)
	}
}

func TestOutputBound(t *testing.T) {
	dir := repo(t)
	ctx := context.Background()
	out, err := Output(ctx, dir, 6, "cat-file", "blob", "HEAD:a.txt")
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("6 bytes within a bound of 6: %q, %v", out, err)
	}
	_, err = Output(ctx, dir, 5, "cat-file", "blob", "HEAD:a.txt")
	var oe *OutputError
	if !errors.As(err, &oe) || oe.Command != "cat-file" || oe.Max != 5 {
		t.Fatalf("6 bytes over a bound of 5: %v, want an OutputError", err)
	}
}

func TestTimeBound(t *testing.T) {
	dir := repo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, dir, "log"); err == nil {
		t.Fatal("a cancelled context ran git")
	}
}

// TestRemember: under Remember, a folder's top and HEAD are read once
// (a commit made after the first read is not seen: the run's view holds),
// each folder its own; without it, every call reads.
func TestRemember(t *testing.T) {
	dir := repo(t)
	ctx := Remember(context.Background())
	first, err := Head(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", "two"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if h, err := Head(ctx, dir); err != nil || h != first {
			t.Fatalf("Head under Remember = %q, %v; want the first answer %q", h, err, first)
		}
		if _, err := TopLevel(ctx, dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := TopLevel(Remember(ctx), t.TempDir()); err == nil {
		t.Fatal("a folder outside a checkout has a top")
	}
	if got := Counted(ctx); got != (Reads{TopLevel: 2, Head: 1}) {
		t.Errorf("Counted = %+v, want one HEAD read and two tops (two folders)", got)
	}
	if h, err := Head(context.Background(), dir); err != nil || h == first {
		t.Errorf("Head without Remember = %q, %v: want the new commit", h, err)
	}
	if got := Counted(context.Background()); got != (Reads{}) {
		t.Errorf("Counted without a memo = %+v", got)
	}
}
