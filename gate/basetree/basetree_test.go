package basetree

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/gitexec"
)

// entry is one member of a test archive.
type entry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func tarGz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	data, err := buildTarGz(entries)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func buildTarGz(entries []entry) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: mode, Linkname: e.link, Size: int64(len(e.body)), Format: tar.FormatPAX}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if typ == tar.TypeXGlobalHeader {
			h = &tar.Header{Typeflag: typ, Name: "pax_global_header", PAXRecords: map[string]string{"comment": "abc123"}, Format: tar.FormatPAX}
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes(), nil
}

func TestUnpackGoodArchive(t *testing.T) {
	data := tarGz(t,
		entry{typ: tar.TypeXGlobalHeader},
		entry{name: "acme-rag-abc123/", typ: tar.TypeDir},
		entry{name: "acme-rag-abc123/corpus/a.md", body: "alpha"},
		entry{name: "acme-rag-abc123/scripts/chunk.py", body: "#!/usr/bin/env python3\n", mode: 0o755},
		entry{name: "acme-rag-abc123/docs/latest", typ: tar.TypeSymlink, link: "../corpus"},
	)
	dest := filepath.Join(t.TempDir(), "tree")
	if err := Unpack(bytes.NewReader(data), dest, 1<<20); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "corpus/a.md")); err != nil || string(b) != "alpha" {
		t.Errorf("corpus/a.md = %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dest, "scripts/chunk.py")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("the script lost its exec bit: %v %v", fi, err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "docs/latest/a.md")); err != nil || string(b) != "alpha" {
		t.Errorf("symlink inside the tree: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "acme-rag-abc123")); !os.IsNotExist(err) {
		t.Error("the top folder must be dropped")
	}
}

func TestUnpackRefusesEscapes(t *testing.T) {
	top := "acme-rag-abc/"
	for _, tc := range []struct {
		name    string
		entries []entry
		want    string
	}{
		{"absolute", []entry{{name: "/etc/cron.d/x", body: "x"}}, "absolute"},
		{"dotdot", []entry{{name: top + "../../x", body: "x"}}, `".."`},
		{"dotdot inside", []entry{{name: top + "a/../../x", body: "x"}}, `".."`},
		{"second top folder", []entry{{name: top + "a", body: "x"}, {name: "other/b", body: "y"}}, "top folder"},
		{"absolute symlink", []entry{{name: top + "l", typ: tar.TypeSymlink, link: "/etc"}}, "only relative links"},
		{"symlink out", []entry{{name: top + "a/l", typ: tar.TypeSymlink, link: "../../.."}}, "leaves the tree"},
		{"link through link", []entry{{name: top + "x", typ: tar.TypeSymlink, link: "."}, {name: top + "x/y", typ: tar.TypeSymlink, link: "../z"}}, "itself a symbolic link"},
		{"link out through another link", []entry{{name: top + "a", typ: tar.TypeSymlink, link: "."}, {name: top + "d", typ: tar.TypeSymlink, link: "a/../z"}}, "through another link"},
		{"link loop", []entry{{name: top + "p", typ: tar.TypeSymlink, link: "q"}, {name: top + "q", typ: tar.TypeSymlink, link: "p"}}, "through another link"},
		{"file then link on it", []entry{{name: top + "d/f", body: "x"}, {name: top + "d", typ: tar.TypeSymlink, link: "."}}, "clashes"},
		{"duplicate entry", []entry{{name: top + "corpus/a.md", body: "checked"}, {name: top + "corpus/a.md", body: "swapped"}}, "holds this entry twice"},
		{"file and link of one name", []entry{{name: top + "a", body: "x"}, {name: top + "a", typ: tar.TypeSymlink, link: "b"}}, "holds this entry twice"},
		{"hard link", []entry{{name: top + "h", typ: tar.TypeLink, link: "/etc/passwd"}}, "not a file, folder or symbolic link"},
		{"device", []entry{{name: top + "dev", typ: tar.TypeChar}}, "not a file, folder or symbolic link"},
		{"too big", []entry{{name: top + "a", body: strings.Repeat("x", 600)}, {name: top + "b", body: strings.Repeat("x", 600)}}, "more than 1000 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "tree")
			err := Unpack(bytes.NewReader(tarGz(t, tc.entries...)), dest, 1000)
			var ue *UnsafeArchiveError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an UnsafeArchiveError with %q", err, tc.want)
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Error("a refused archive must leave nothing behind")
			}
		})
	}
	if err := Unpack(strings.NewReader("not gzip"), filepath.Join(t.TempDir(), "t"), 10); err == nil || !strings.Contains(err.Error(), "not gzip") {
		t.Errorf("garbage: %v", err)
	}
}

// repo builds a git repository with two commits and returns it and the
// first commit.
func repo(t *testing.T) (dir, first string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir = t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	put := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	put("rag/corpus/a.md", "base text")
	git("add", ".")
	git("commit", "-qm", "base")
	first = git("rev-parse", "HEAD")
	put("rag/corpus/a.md", "head text")
	git("commit", "-qam", "head")
	return dir, first
}

func TestWorktreeOfTheBaseCommit(t *testing.T) {
	dir, first := repo(t)
	tmp := t.TempDir()
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(dir, "rag"), Ref: "HEAD~1", TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Via != ViaWorktree || tr.Commit != first {
		t.Errorf("via %q commit %q, want worktree of %s", tr.Via, tr.Commit, first)
	}
	p, err := tr.Map(filepath.Join(dir, "rag/corpus/a.md"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "base text" {
		t.Errorf("base tree has %q", b)
	}
	if _, err := tr.Map("/etc/passwd"); err == nil {
		t.Error("a path outside the checkout must not map")
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind %v", left)
	}
	out, _ := exec.Command("git", "-C", dir, "worktree", "list").Output()
	if n := strings.Count(strings.TrimSpace(string(out)), "\n"); n != 0 {
		t.Errorf("git still lists the worktree:\n%s", out)
	}
}

// fakeArchive serves a fixed archive, or an error, and the commit's
// listing: the archive's own entries unless listing is set; blobs are
// the archive's files and links by their ids, and extra's.
type fakeArchive struct {
	data  []byte
	err   error
	asked string
	// listing, when set, is the commit's listing (else the archive's);
	// listErr fails it; extra are blobs the archive lacks, by id.
	listing []Entry
	listErr error
	extra   map[string]string
	fetched []string
}

func (f *fakeArchive) Listing(_ context.Context, _ string, add func(path, mode, sha string, size int64)) error {
	if f.listErr != nil {
		return f.listErr
	}
	entries := f.listing
	if entries == nil {
		entries, _ = archiveListing(f.data)
	}
	for _, e := range entries {
		add(e.Path, e.Mode, e.SHA, e.Size)
	}
	return nil
}

func (f *fakeArchive) Blob(_ context.Context, sha string, max int64) ([]byte, error) {
	f.fetched = append(f.fetched, sha)
	_, blobs := archiveListing(f.data)
	b, ok := blobs[sha]
	if !ok {
		b, ok = f.extra[sha]
	}
	if !ok {
		return nil, errors.New("404 Not Found")
	}
	if int64(len(b)) > max {
		return nil, errors.New("too large")
	}
	return []byte(b), nil
}

func (f *fakeArchive) Archive(_ context.Context, ref string) (io.ReadCloser, error) {
	f.asked = ref
	if f.err != nil {
		return nil, f.err
	}
	return io.NopCloser(bytes.NewReader(f.data)), nil
}

func TestArchiveWhenGitLacksTheCommit(t *testing.T) {
	dir, _ := repo(t)
	missing := strings.Repeat("ab", 20)
	src := &fakeArchive{data: tarGz(t, entry{name: "acme-rag-abab/rag/corpus/a.md", body: "archived text"})}
	var warned []string
	tmp := t.TempDir()
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(dir, "rag"), Ref: missing, TempDir: tmp, Archive: src, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if tr.Via != ViaArchive || src.asked != missing || len(warned) != 1 {
		t.Errorf("via %q asked %q warned %q", tr.Via, src.asked, warned)
	}
	p, err := tr.Map(filepath.Join(dir, "rag/corpus/a.md"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "archived text" {
		t.Errorf("got %q", b)
	}
	tr.Close()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind %v", left)
	}
}

func TestArchiveWithoutGitUsesTheRoot(t *testing.T) {
	ws := t.TempDir() // no git checkout here
	os.MkdirAll(filepath.Join(ws, "rag"), 0o755)
	src := &fakeArchive{data: tarGz(t, entry{name: "top/rag/recallgate.toml", body: "x"})}
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(ws, "rag"), Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	p, err := tr.Map(filepath.Join(ws, "rag/recallgate.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "x" {
		t.Errorf("got %q", b)
	}
}

// TestArchiveWithoutGitIsANote: where git is not installed at all (the
// Docker image), the archive is the expected path: a note, not a warning.
func TestArchiveWithoutGitIsANote(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "rag"), 0o755)
	t.Setenv("PATH", t.TempDir()) // no git on it
	src := &fakeArchive{data: tarGz(t, entry{name: "top/rag/recallgate.toml", body: "x"})}
	var warned, noted []string
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(ws, "rag"), Ref: "abcdef0123456789", Root: ws, TempDir: t.TempDir(), Archive: src,
		Warn: func(s string) { warned = append(warned, s) }, Note: func(s string) { noted = append(noted, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if len(warned) != 0 || len(noted) != 1 || !strings.Contains(noted[0], "comes from its archive") {
		t.Errorf("warned %q noted %q", warned, noted)
	}
}

func TestUnreachableNamesTheFix(t *testing.T) {
	dir, _ := repo(t)
	missing := strings.Repeat("cd", 20)
	_, err := Open(context.Background(), Options{Dir: dir, Ref: missing, TempDir: t.TempDir()})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "fetch-depth: 0") || !strings.Contains(err.Error(), "contents: read") {
		t.Errorf("err = %v", err)
	}
	_, err = Open(context.Background(), Options{Dir: dir, Ref: missing, TempDir: t.TempDir(), Archive: &fakeArchive{err: errors.New("GitHub answered 403")}})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "archive: GitHub answered 403") {
		t.Errorf("err = %v", err)
	}
	evil := &fakeArchive{data: tarGz(t, entry{name: "top/../../x", body: "x"})}
	_, err = Open(context.Background(), Options{Dir: dir, Ref: missing, TempDir: t.TempDir(), Archive: evil})
	var unsafe *UnsafeArchiveError
	if !errors.As(err, &unsafe) {
		t.Errorf("an escaping archive must be refused as such: %v", err)
	}
}

// TestCheckoutOwnedByAnotherUser: a container action sees the checkout
// owned by the runner's user, not its own; git refuses such a repository
// ("dubious ownership") unless it is marked safe, which Git does.
func TestCheckoutOwnedByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the checkout to another user")
	}
	dir, first := repo(t)
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 1001, 1001)
	}); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").CombinedOutput(); err == nil {
		t.Skipf("this git does not check ownership (%s)", out)
	}
	tr, err := Open(context.Background(), Options{Dir: dir, Ref: first, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if tr.Via != ViaWorktree {
		t.Errorf("via %s", tr.Via)
	}
}

// FuzzUnpack: whatever an archive holds, Unpack either refuses it (leaving
// nothing) or leaves a tree whose every entry, links followed, stays inside
// the folder. The input is a list of entries, one a line: "f NAME BODY",
// "d NAME", "l NAME TARGET" (symbolic link) or "h NAME TARGET" (hard link),
// so the fuzzer explores archive shapes rather than gzip checksums.
func FuzzUnpack(f *testing.F) {
	f.Add("f top/a/b.md x\nl top/l a/b.md")
	f.Add("l top/x .\nl top/x/y ../z")
	f.Add("l top/a .\nl top/d a/../z")
	f.Add("f top/../../etc/x x")
	f.Add("d top/docs\nl top/docs/latest ../corpus\nf top/corpus/a.md hello")
	f.Fuzz(func(t *testing.T, spec string) {
		var entries []entry
		for _, line := range strings.Split(spec, "\n") {
			parts := strings.SplitN(line, " ", 3)
			if len(parts) < 2 || parts[1] == "" {
				continue
			}
			e := entry{name: parts[1]}
			arg := ""
			if len(parts) == 3 {
				arg = parts[2]
			}
			switch parts[0] {
			case "f":
				e.body = arg
			case "d":
				e.typ = tar.TypeDir
			case "l":
				e.typ, e.link = tar.TypeSymlink, arg
			case "h":
				e.typ, e.link = tar.TypeLink, arg
			default:
				continue
			}
			entries = append(entries, e)
		}
		data, err := buildTarGz(entries)
		if err != nil {
			return
		}
		root := t.TempDir()
		dest := filepath.Join(root, "tree")
		if err := Unpack(bytes.NewReader(data), dest, 1<<20); err != nil {
			if _, serr := os.Lstat(dest); !os.IsNotExist(serr) {
				t.Fatalf("refused (%v) but left %s behind", err, dest)
			}
			return
		}
		filepath.Walk(dest, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.Mode()&os.ModeSymlink == 0 {
				return nil
			}
			rel, _ := filepath.Rel(dest, p)
			if leaves(dest, filepath.ToSlash(rel)) {
				t.Fatalf("%s was kept but leaves the tree", rel)
			}
			if resolved, err := filepath.EvalSymlinks(p); err == nil {
				real, _ := filepath.EvalSymlinks(dest)
				if r, _ := filepath.Rel(real, resolved); r == ".." || strings.HasPrefix(r, "../") {
					t.Fatalf("%s resolves to %s, outside the tree", p, resolved)
				}
			}
			return nil
		})
	})
}

func TestMissingRefFixFitsTheRef(t *testing.T) {
	for ref, want := range map[string]string{
		"origin/main":        "git fetch origin main:refs/remotes/origin/main",
		"main":               "git fetch origin main:refs/remotes/origin/main and pass --base-ref origin/main",
		"0123abcd4567":       "git fetch origin 0123abcd4567",
		"main~5":             "fetch-depth: 0, or git fetch --unshallow",
		"refs/heads/release": "git fetch origin refs/heads/release:refs/heads/release",
	} {
		if got := (&MissingRefError{Ref: ref, Shallow: true}).Fix(); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", ref, got, want)
		}
	}
}

// TestMissingRefInAFullClone: a typo in a clone with all its history is
// said as such, without the shallow-clone advice or an archive download.
func TestMissingRefInAFullClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := oneCommitRepo(t)
	_, err := Open(context.Background(), Options{Dir: dir, Ref: "nosuchbranch", Archive: failingArchive{}})
	var mr *MissingRefError
	if !errors.As(err, &mr) || mr.Shallow || !strings.Contains(err.Error(), `no commit or ref "nosuchbranch"`) || strings.Contains(err.Error(), "fetch-depth") {
		t.Errorf("typo in a full clone: %v", err)
	}
}

// failingArchive must not be asked.
type failingArchive struct{}

func (failingArchive) Archive(context.Context, string) (io.ReadCloser, error) {
	return nil, errors.New("the archive was asked for a ref that does not exist")
}

func (failingArchive) Listing(context.Context, string, func(string, string, string, int64)) error {
	return errors.New("the listing was asked for a ref that does not exist")
}

func (failingArchive) Blob(context.Context, string, int64) ([]byte, error) {
	return nil, errors.New("a blob was asked for a ref that does not exist")
}

// TestWorktreeRunsNoHook: the checkout's own hooks (here post-checkout,
// which `git worktree add` and `read-tree -u` would run) and its pager
// run nothing when the base tree is made.
func TestWorktreeRunsNoHook(t *testing.T) {
	dir, _ := repo(t)
	marker := filepath.Join(t.TempDir(), "hook-ran")
	for _, h := range []string{"post-checkout", "reference-transaction", "post-index-change"} {
		if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", h), []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(dir, "rag"), Ref: "HEAD~1", TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook of the checkout ran while the base tree was made")
	}
}

// TestInterruptedLookupIsNoMissingRef: a job interrupted while git looks
// the base ref up has no answer about the ref; it must not read as a ref
// missing from the checkout (exit 2 with a fetch fix), but as the
// interrupt it is.
func TestInterruptedLookupIsNoMissingRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := oneCommitRepo(t)
	ctx, cancel := context.WithCancel(gitexec.Remember(context.Background()))
	if _, err := gitexec.TopLevel(ctx, dir); err != nil { // remembered: the lookup is what the interrupt hits
		t.Fatal(err)
	}
	cancel()
	_, err := Open(ctx, Options{Dir: dir, Ref: "main", Archive: failingArchive{}})
	var mr *MissingRefError
	if errors.As(err, &mr) || !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted lookup: %v, want context.Canceled and no MissingRefError", err)
	}
}

// oneCommitRepo is a git repository with one empty commit on main.
func oneCommitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "one"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}
