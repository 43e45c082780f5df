package basetree

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/internal/confine"
	"github.com/recallgate/recallgate/internal/gitexec"
)

// Entry is one entry of a commit's own tree listing (`git ls-tree -r`, or
// the API's recursive tree): a file, a symbolic link or a submodule;
// folders are implied by the paths.
type Entry struct {
	// Path is from the repository's top, with slashes.
	Path string
	// Mode is git's: "100644" or "100755" (a file), "120000" (a link),
	// "160000" (a submodule's commit).
	Mode string
	// SHA is the object's id: the blob's, or the submodule's commit.
	SHA string
	// Size is the blob's size in bytes, -1 when the listing does not say.
	Size int64
}

// Modes of a listing's entries.
const (
	ModeFile      = "100644"
	ModeExec      = "100755"
	ModeLink      = "120000"
	ModeSubmodule = "160000"
)

// IsSubmodule reports whether the entry is another repository's commit
// (a submodule, or a clone committed inside the tree): it has no files of
// this commit.
func (e Entry) IsSubmodule() bool { return e.Mode == ModeSubmodule }

// maxFetched caps how many files a tree may lack and still be completed
// from the commit's objects; more is an IncompleteTreeError.
const maxFetched = 10_000

// IncompleteTreeError is a base tree that lacks files its commit lists
// and could not be completed: what the base commit holds cannot be known
// from it, so the job stops (exit 3) rather than judge from part of it.
type IncompleteTreeError struct {
	// Commit is the base commit; Via how the tree was made.
	Commit, Via string
	// Missing are the paths the tree lacked (from the top, slashes; the
	// first ten); Count how many.
	Missing []string
	Count   int
	// Why is the likely cause; Err why they could not be fetched.
	Why string
	Err error
}

// Error implements error.
func (e *IncompleteTreeError) Error() string {
	names := strings.Join(e.Missing, ", ")
	if e.Count > len(e.Missing) {
		names += ", …"
	}
	return fmt.Sprintf("the base commit %s's tree (%s) lacks %d files the commit lists (%s) because %s, and they could not be fetched: %v", short(e.Commit), e.Via, e.Count, names, e.Why, e.Err)
}

// Unwrap returns why they could not be fetched.
func (e *IncompleteTreeError) Unwrap() error { return e.Err }

// Fix implements gate.FixError's method.
func (e *IncompleteTreeError) Fix() string {
	return "recallgate judges only from the base commit's whole tree: check out with history (actions/checkout with fetch-depth: 0, GIT_DEPTH: 0 on GitLab) so git gives the commit, or give the job a token that can read the repository's blobs"
}

// ListingError is a commit whose tree cannot be listed completely (git
// failed, the API answered an error or a truncated tree): without it,
// "the base commit has no config" cannot be told, so the job stops.
type ListingError struct {
	// Commit is the commit; Err why.
	Commit string
	Err    error
}

// Error implements error.
func (e *ListingError) Error() string {
	return fmt.Sprintf("list the tree of the base commit %s: %v", short(e.Commit), e.Err)
}

// Unwrap returns why.
func (e *ListingError) Unwrap() error { return e.Err }

// Fix implements gate.FixError's method.
func (e *ListingError) Fix() string {
	return "recallgate tells what the base commit holds from its own listing: check out with history (actions/checkout with fetch-depth: 0, GIT_DEPTH: 0 on GitLab) so git lists it, or give the job a token that can read the repository's tree (GitHub: contents: read; GitLab: the api scope); a tree GitHub truncates needs the history"
}

// gitListing is the commit's tree as git lists it: every file, link and
// submodule, recursively, from the top.
func gitListing(ctx context.Context, top, sha string) ([]Entry, error) {
	out, err := gitexec.Output(ctx, top, 0, "ls-tree", "-r", "-l", "-z", "--full-tree", sha)
	if err != nil {
		return nil, &ListingError{Commit: sha, Err: err}
	}
	var entries []Entry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// "<mode> SP <type> SP <object> SP+ <size> TAB <path>"
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 4 {
			return nil, &ListingError{Commit: sha, Err: fmt.Errorf("git ls-tree: unreadable line %q", rec)}
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			size = -1 // "-" for a submodule
		}
		entries = append(entries, Entry{Path: string(p), Mode: f[0], SHA: f[2], Size: size})
	}
	return entries, nil
}

// checkListing sorts a listing and refuses one whose paths could not be
// a commit's (absolute, "..", empty parts, a .git folder, one named twice,
// one under a file) or whose modes are unknown.
func checkListing(commit string, entries []Entry) ([]Entry, error) {
	out := slices.Clone(entries)
	for _, e := range out {
		if e.Path == "" || e.Path == "." || path.Clean(e.Path) != e.Path || !confine.Local(e.Path) || strings.ContainsAny(e.Path, "\\\x00") || gitDir(e.Path) {
			return nil, &ListingError{Commit: commit, Err: fmt.Errorf("the listing has a malformed path %q", e.Path)}
		}
		switch e.Mode {
		case ModeFile, ModeExec, ModeLink, ModeSubmodule:
		default:
			return nil, &ListingError{Commit: commit, Err: fmt.Errorf("the listing's entry %s has an unknown mode %q", e.Path, e.Mode)}
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	// No commit lists a path twice, nor a file, link or submodule with
	// entries under it (a repeated or spliced page of an API's answer):
	// which entry is the commit's cannot be told.
	seen := make(map[string]bool, len(out))
	for _, e := range out {
		if seen[e.Path] {
			return nil, &ListingError{Commit: commit, Err: fmt.Errorf("the listing names %s twice", e.Path)}
		}
		seen[e.Path] = true
	}
	for _, e := range out {
		for d := path.Dir(e.Path); d != "."; d = path.Dir(d) {
			if seen[d] {
				return nil, &ListingError{Commit: commit, Err: fmt.Errorf("the listing has %s under %s, which it lists as a file, link or submodule", e.Path, d)}
			}
		}
	}
	return out, nil
}

// gitDir reports whether a part of p (slashes) is .git in any letter
// case: git refuses such a path in a tree (it would be a repository's own
// folder, its config and hooks), so a listing with one is refused too.
func gitDir(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// complete makes the tree hold every file and link its commit lists: each
// one the tree lacks (a sparse checkout's patterns, an archive's
// export-ignore) is fetched by its id and written, within max bytes and
// maxFetched files; links are kept inside the tree. A file that cannot be
// fetched is an IncompleteTreeError. It says, through warn, what it
// fetched.
func (t *Tree) complete(ctx context.Context, fetch func(ctx context.Context, e Entry, max int64) ([]byte, error), why string, max int64, warn func(string)) error {
	var missing []Entry
	for _, e := range t.entries {
		if e.IsSubmodule() {
			continue
		}
		if _, err := os.Lstat(filepath.Join(t.Dir, filepath.FromSlash(e.Path))); errors.Is(err, os.ErrNotExist) {
			missing = append(missing, e)
		} else if err != nil {
			return t.incomplete([]Entry{e}, why, err)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(missing) > maxFetched {
		return t.incomplete(missing, why, fmt.Errorf("more than %d files are missing", maxFetched))
	}
	var total int64
	for _, e := range missing {
		data, err := fetch(ctx, e, max-total)
		if err == nil && int64(len(data)) > max-total {
			err = fmt.Errorf("%s would take the tree past %d bytes", e.Path, max)
		}
		if err == nil {
			total += int64(len(data))
			err = t.write(e, data)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return t.incomplete(missing, why, fmt.Errorf("%s: %w", e.Path, err))
		}
	}
	if warn != nil {
		names := make([]string, 0, 11)
		for _, e := range missing[:min(len(missing), 10)] {
			names = append(names, e.Path)
		}
		if len(missing) > 10 {
			names = append(names, "…")
		}
		warn(fmt.Sprintf("the base commit %s's tree (%s) lacked %d files its commit lists (%s) because %s: each was fetched by its id", short(t.Commit), t.Via, len(missing), strings.Join(names, ", "), why))
	}
	return nil
}

func (t *Tree) incomplete(missing []Entry, why string, err error) error {
	e := &IncompleteTreeError{Commit: t.Commit, Via: t.Via, Count: len(missing), Why: why, Err: err}
	for _, m := range missing[:min(len(missing), 10)] {
		e.Missing = append(e.Missing, m.Path)
	}
	return e
}

// write puts a fetched entry in the tree: a file created new, or a link
// that stays inside the tree; no folder on its way may be a link.
func (t *Tree) write(e Entry, data []byte) error {
	target := filepath.Join(t.Dir, filepath.FromSlash(e.Path))
	for d := filepath.Dir(target); len(d) > len(t.Dir); d = filepath.Dir(d) {
		if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return &UnsafeArchiveError{Entry: e.Path, Reason: "its folder is a symbolic link in the tree"}
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if e.Mode == ModeLink {
		if err := linkInside(e.Path, string(data)); err != nil {
			return &UnsafeArchiveError{Entry: e.Path, Reason: err.Error()}
		}
		if err := os.Symlink(string(data), target); err != nil {
			return err
		}
		if leaves(t.Dir, e.Path) {
			os.Remove(target)
			return &UnsafeArchiveError{Entry: e.Path, Reason: fmt.Sprintf("symbolic link to %q leaves the tree through another link", data)}
		}
		return nil
	}
	mode := os.FileMode(0o644)
	if e.Mode == ModeExec {
		mode = 0o755
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// gitBlob reads a blob of the checkout's repository, at most max bytes.
func gitBlob(top string) func(ctx context.Context, e Entry, max int64) ([]byte, error) {
	return func(ctx context.Context, e Entry, max int64) ([]byte, error) {
		if e.Size > max {
			return nil, fmt.Errorf("%d bytes, over what the tree may still hold (%d)", e.Size, max)
		}
		out, err := gitexec.Output(ctx, top, max, "cat-file", "blob", e.SHA)
		if err != nil {
			return nil, fmt.Errorf("blob %s: %w", e.SHA, err)
		}
		return out, nil
	}
}

// Lists reports whether the base commit's own listing has rel (from the
// top, slashes) as a file or link; sub says rel is, or is under, one of
// its submodules.
func (t *Tree) Lists(rel string) (has bool, sub string) {
	for _, e := range t.entries {
		if e.Path == rel {
			if e.IsSubmodule() {
				return false, e.Path
			}
			return true, ""
		}
		if e.IsSubmodule() && strings.HasPrefix(rel, e.Path+"/") {
			return false, e.Path
		}
	}
	return false, ""
}

// CheckBlobID checks that data is the blob id names: git's object id of a
// blob, the SHA-1 of "blob <size>\x00" and the bytes (40 hex digits), or
// their SHA-256 in a repository of that object format (64). An id of
// another shape, or bytes that hash to another id (an API's or a proxy's
// wrong answer), is an error saying which.
func CheckBlobID(id string, data []byte) error {
	var h hash.Hash
	switch len(id) {
	case sha1.Size * 2:
		h = sha1.New()
	case sha256.Size * 2:
		h = sha256.New()
	default:
		return fmt.Errorf("%.80q is not a blob id (40 or 64 hex digits)", id)
	}
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(id) {
		return fmt.Errorf("the %d bytes served for blob %s hash to %s: not the blob the commit lists", len(data), id, got)
	}
	return nil
}
