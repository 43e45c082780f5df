package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/internal/confine"
)

// MaxNamedFiles bounds how many files NamedFiles lists, and
// MaxNamedFileBytes how much of each the fingerprint reads: past it the
// file counts by its first MaxNamedFileBytes and its size.
const (
	MaxNamedFiles     = 32
	MaxNamedFileBytes = 64 << 20
)

// NamedFiles lists the files a command retriever's argv (or an http
// retriever's start) names that exist in the repository: each argument (and the value after "=" of a
// --flag=value argument) resolved from Dir, that is a regular file (links
// followed) inside the repository holding Dir, the nearest folder upwards
// with a .git entry, or Dir itself when there is none. Absolute paths,
// sorted, each once, at most MaxNamedFiles; nil for other kinds. The
// program found on PATH (argv[0] without a slash) and what a script reads
// or imports are not named, so not listed.
func (r *Retriever) NamedFiles() []string {
	argv := r.Command
	if r.Type == "http" {
		argv = r.Start
	}
	if (r.Type != "command" && r.Type != "http") || len(argv) == 0 || r.Dir == "" {
		return nil
	}
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	root := repositoryRoot(dir)
	var out []string
	for i, arg := range argv {
		cands := []string{arg}
		if _, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "-") {
			cands = []string{v}
		}
		for _, c := range cands {
			if c == "" || strings.ContainsRune(c, 0) || (i == 0 && !strings.ContainsRune(c, '/')) {
				continue
			}
			p := c
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				continue
			}
			if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if !confine.Within(root, real) {
				continue
			}
			if !slices.Contains(out, real) {
				out = append(out, real)
			}
		}
	}
	slices.Sort(out)
	if len(out) > MaxNamedFiles {
		out = out[:MaxNamedFiles]
	}
	return out
}

// repositoryRoot is the nearest folder from dir upwards holding a .git
// entry (a folder, or the file of a worktree), dir when there is none.
func repositoryRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// NamedFilesSum is the hash of the files NamedFiles lists, each by its
// path relative to Dir (slashes) and its content (at most
// MaxNamedFileBytes, with its size), so it does not depend on where the
// checkout is; "" when there are none. A file that cannot be read counts
// by its path and the error.
func (r *Retriever) NamedFilesSum() string {
	files := r.NamedFiles()
	if len(files) == 0 {
		return ""
	}
	dir, _ := filepath.Abs(r.Dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	h := sha256.New()
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			rel = f
		}
		fmt.Fprintf(h, "%d:%s", len(rel), filepath.ToSlash(rel))
		h.Write([]byte(fileSum(f)))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// fileSum hashes one named file, bounded.
func fileSum(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxNamedFileBytes))
	if err != nil {
		return "unreadable: " + err.Error()
	}
	size := n
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return fmt.Sprintf("%d:%s", size, hex.EncodeToString(h.Sum(nil)))
}
