package basetree

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// blobID is git's id of a blob with this content.
func blobID(body string) string {
	return fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(body), body))))
}

// archiveListing is the listing of a test archive's files and links (the
// top folder dropped) and their contents by id.
func archiveListing(data []byte) ([]Entry, map[string]string) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil
	}
	tr := tar.NewReader(zr)
	var out []Entry
	blobs := map[string]string{}
	for {
		h, err := tr.Next()
		if err != nil {
			return out, blobs
		}
		_, name, _ := strings.Cut(h.Name, "/")
		body := ""
		mode := ModeFile
		switch h.Typeflag {
		case tar.TypeReg:
			b, _ := io.ReadAll(tr)
			body = string(b)
			if h.Mode&0o111 != 0 {
				mode = ModeExec
			}
		case tar.TypeSymlink:
			body, mode = h.Linkname, ModeLink
		default:
			continue
		}
		id := blobID(body)
		blobs[id] = body
		out = append(out, Entry{Path: name, Mode: mode, SHA: id, Size: int64(len(body))})
	}
}

// run runs git in dir, failing the test on error.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestSparseCheckoutIsCompleted: a checkout sparse to rag/ would carry its
// patterns into the base worktree, which would then lack
// search/recallgate.toml; the worktree is filled with sparse checkout off
// (the checkout's own patterns untouched), and Files lists the commit's
// listing.
func TestSparseCheckoutIsCompleted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	for name, body := range map[string]string{"search/recallgate.toml": "[retriever]\n", "search/corpus/a.md": "a", "rag/x.md": "x"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	os.Symlink("corpus/a.md", filepath.Join(dir, "search/link.md"))
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-qm", "base")
	base := runGit(t, dir, "rev-parse", "HEAD")
	runGit(t, dir, "sparse-checkout", "set", "--cone", "rag")
	var warned []string
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(dir, "rag"), Ref: base, TempDir: t.TempDir(), Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if b, err := os.ReadFile(filepath.Join(tr.Dir, "search/recallgate.toml")); err != nil || string(b) != "[retriever]\n" {
		t.Errorf("search/recallgate.toml in the base tree: %q %v", b, err)
	}
	if l, err := os.Readlink(filepath.Join(tr.Dir, "search/link.md")); err != nil || l != "corpus/a.md" {
		t.Errorf("search/link.md: %q %v", l, err)
	}
	var files []string
	tr.Files(func(rel, _ string) error { files = append(files, rel); return nil })
	if got := strings.Join(files, " "); got != "rag/x.md search/corpus/a.md search/link.md search/recallgate.toml" {
		t.Errorf("files %s", got)
	}
	if len(warned) != 0 {
		t.Errorf("warned %q: the worktree is made whole, nothing to fetch", warned)
	}
	if st := runGit(t, dir, "ls-files", "-t", "search/recallgate.toml"); st != "S search/recallgate.toml" {
		t.Errorf("the checkout's own sparse patterns changed: %q", st)
	}
}

// TestExportIgnoredFilesAreFetched: the archive lacks tests/ (export-ignore);
// the listing has tests/recallgate.toml, which is fetched by its id. When
// the blob cannot be fetched, or the listing cannot be had, Open fails
// naming what is missing and why: never a tree without the file.
func TestExportIgnoredFilesAreFetched(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "tests"), 0o755)
	cfg := "[retriever]\ntype = \"builtin\"\n"
	data := tarGz(t, entry{name: "top/.gitattributes", body: "/tests export-ignore\n"})
	listing := []Entry{
		{Path: ".gitattributes", Mode: ModeFile, SHA: blobID("/tests export-ignore\n"), Size: 21},
		{Path: "tests/recallgate.toml", Mode: ModeFile, SHA: blobID(cfg), Size: int64(len(cfg))},
		{Path: "vendor/lib", Mode: ModeSubmodule, SHA: strings.Repeat("1", 40), Size: -1},
	}
	t.Setenv("PATH", t.TempDir()) // no git: the archive path
	src := &fakeArchive{data: data, listing: listing, extra: map[string]string{blobID(cfg): cfg}}
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(ws, "tests"), Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(tr.Dir, "tests/recallgate.toml")); err != nil || string(b) != cfg {
		t.Errorf("tests/recallgate.toml: %q %v", b, err)
	}
	if has, sub := tr.Lists("vendor/lib/recallgate.toml"); has || sub != "vendor/lib" {
		t.Errorf("Lists under a submodule: %v %q", has, sub)
	}
	tr.Close()

	src = &fakeArchive{data: data, listing: listing}
	_, err = Open(context.Background(), Options{Dir: filepath.Join(ws, "tests"), Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src})
	var ie *IncompleteTreeError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "lacks 1 files the commit lists (tests/recallgate.toml) because the archive leaves out what the commit's .gitattributes marks export-ignore") {
		t.Errorf("blob not fetched: %v", err)
	}
	src = &fakeArchive{data: data, listErr: errors.New("the tree is truncated")}
	_, err = Open(context.Background(), Options{Dir: filepath.Join(ws, "tests"), Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src})
	var le *ListingError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("no listing: %v", err)
	}
	evil := append(listing[:1:1], Entry{Path: "../x", Mode: ModeFile, SHA: blobID("x"), Size: 1})
	src = &fakeArchive{data: data, listing: evil}
	if _, err = Open(context.Background(), Options{Dir: filepath.Join(ws, "tests"), Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src}); !errors.As(err, &le) {
		t.Errorf("a listing with ..: %v", err)
	}
	out := filepath.Join(ws, "outside")
	link := listing[:1:1]
	link = append(link, Entry{Path: "tests/up", Mode: ModeLink, SHA: blobID("../../outside"), Size: 13})
	src = &fakeArchive{data: data, listing: link, extra: map[string]string{blobID("../../outside"): "../../outside"}}
	_, err = Open(context.Background(), Options{Dir: filepath.Join(ws, "tests"), Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src})
	var ue *UnsafeArchiveError
	if !errors.As(err, &ue) {
		t.Errorf("a fetched link out of the tree (%s): %v", out, err)
	}
}

// TestNestedRepositoryRefused: a config folder inside a clone nested in
// the workspace's repository, or inside a submodule, is refused.
func TestNestedRepositoryRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	runGit(t, ws, "init", "-q", "-b", "main")
	runGit(t, ws, "commit", "-q", "--allow-empty", "-m", "one")
	inner := filepath.Join(ws, "vendor/search")
	os.MkdirAll(inner, 0o755)
	runGit(t, inner, "init", "-q", "-b", "main")
	runGit(t, inner, "commit", "-q", "--allow-empty", "-m", "inner")
	tr, err := Open(context.Background(), Options{Dir: ws, Ref: "HEAD", Root: ws, TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("a config at the workspace's top: %v", err)
	}
	tr.Close()
	_, err = Open(context.Background(), Options{Dir: inner, Ref: "HEAD", Root: ws, TempDir: t.TempDir()})
	var ne *NestedRepoError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "inside vendor/search, another repository") {
		t.Errorf("nested clone: %v", err)
	}
	// A submodule, on a laptop (no workspace).
	runGit(t, ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "sub")
	_, err = Open(context.Background(), Options{Dir: filepath.Join(ws, "sub"), Ref: "HEAD", TempDir: t.TempDir()})
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "a submodule of another repository") {
		t.Errorf("submodule: %v", err)
	}
}

// TestListingNoCommitCanHave: an API's listing that names a path twice
// (a page repeated: once a file, once a submodule), a file with entries
// under it, or a .git folder (its config and hooks written into the base
// tree, where a base script's git would obey them) is refused: no commit
// has one, and which entry is the commit's cannot be told.
func TestListingNoCommitCanHave(t *testing.T) {
	ws := t.TempDir()
	cfg := "[retriever]\ntype = \"builtin\"\n"
	hook := "[core]\n\tfsmonitor = \"touch pwned\"\n"
	data := tarGz(t, entry{name: "top/recallgate.toml", body: cfg})
	file := Entry{Path: "recallgate.toml", Mode: ModeFile, SHA: blobID(cfg), Size: int64(len(cfg))}
	t.Setenv("PATH", t.TempDir()) // no git: the archive path
	for name, listing := range map[string][]Entry{
		"twice":    {file, {Path: "recallgate.toml", Mode: ModeSubmodule, SHA: strings.Repeat("1", 40), Size: -1}},
		"under":    {file, {Path: "recallgate.toml/x", Mode: ModeFile, SHA: blobID(cfg), Size: int64(len(cfg))}},
		".git":     {file, {Path: ".git/config", Mode: ModeFile, SHA: blobID(hook), Size: int64(len(hook))}},
		"sub/.GIT": {file, {Path: "sub/.GIT/config", Mode: ModeFile, SHA: blobID(hook), Size: int64(len(hook))}},
	} {
		src := &fakeArchive{data: data, listing: listing, extra: map[string]string{blobID(hook): hook}}
		tr, err := Open(context.Background(), Options{Dir: ws, Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src})
		var le *ListingError
		if !errors.As(err, &le) {
			t.Errorf("%s: Open = %v, want a ListingError", name, err)
		}
		if tr != nil {
			tr.Close()
		}
	}
}

// TestCheckBlobID: the ids git gives (`git hash-object`, and with
// --object-format=sha256) pass; other bytes, or an id of another shape,
// are refused.
func TestCheckBlobID(t *testing.T) {
	for _, c := range []struct {
		id, data, err string
	}{
		{"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", "", ""},
		{"ce013625030ba8dba906f756967f9e9ca394464a", "hello\n", ""},
		{"CE013625030BA8DBA906F756967F9E9CA394464A", "hello\n", ""},
		{"2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4", "hello\n", ""},
		{"473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813", "", ""},
		{"ce013625030ba8dba906f756967f9e9ca394464a", "hello", "the 5 bytes served for blob ce013625030ba8dba906f756967f9e9ca394464a hash to b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0: not the blob the commit lists"},
		{"2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4", "", "hash to 473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"},
		{"b1", "x", `"b1" is not a blob id (40 or 64 hex digits)`},
	} {
		err := CheckBlobID(c.id, []byte(c.data))
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckBlobID(%s, %q) = %v, want %q", c.id, c.data, err, c.err)
		}
	}
}
