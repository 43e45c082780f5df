// Package basetree puts the whole tree of a commit (a pull request's base)
// in a temporary folder, so the base side of a comparison runs on that
// commit's corpus, scripts and config rather than on the head's checkout.
//
// It asks git first, for a detached worktree of the commit; when git or the
// commit is not there (a shallow checkout, an image without git) it unpacks
// the commit's archive from an ArchiveSource, refusing any entry that would
// land outside the folder. Close removes the tree either way.
package basetree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/recallgate/recallgate/internal/confine"
	"github.com/recallgate/recallgate/internal/gitexec"
)

// DefaultMaxBytes caps what an archive may unpack to.
const DefaultMaxBytes int64 = 2 << 30

// Ways a tree was made, in Tree.Via.
const (
	ViaWorktree = "git worktree"
	ViaArchive  = "archive"
)

// ArchiveSource gives the gzipped tar archive of a commit, as GitHub's
// REST API serves it (every entry under one top folder), and the commit's
// own tree listing and blobs: an archive leaves out what .gitattributes
// marks export-ignore, so what the commit holds is told by its listing,
// and a file the archive lacks is fetched by its id.
type ArchiveSource interface {
	// Archive opens the archive of commit ref; the caller closes it.
	Archive(ctx context.Context, ref string) (io.ReadCloser, error)
	// Listing calls add with every file, link and submodule of commit
	// ref's tree, recursively: its path from the top (slashes), git's mode
	// (see Entry), its object id and size (-1 when unknown). A listing the
	// service cut short (truncated) is an error.
	Listing(ctx context.Context, ref string, add func(path, mode, sha string, size int64)) error
	// Blob returns blob sha's content; more than max bytes is an error.
	Blob(ctx context.Context, sha string, max int64) ([]byte, error)
}

// Options say which commit to materialise and how.
type Options struct {
	// Dir is a folder inside the head's checkout; git is asked there.
	Dir string
	// Ref is the commit: a SHA, or any name git resolves (origin/main).
	Ref string
	// Root is the top of the head's checkout when git cannot tell it (the
	// archive path; GITHUB_WORKSPACE in a job). Head paths map to the tree
	// relative to it.
	Root string
	// TempDir holds the tree's folder ("" = the system's temp folder).
	TempDir string
	// Archive is asked when git cannot give the commit; nil = git only.
	Archive ArchiveSource
	// MaxBytes caps the unpacked archive (0 = DefaultMaxBytes).
	MaxBytes int64
	// Warn receives one line per fallback taken (nil = silent).
	Warn func(string)
	// Note receives the line of a fallback that is the expected path, not
	// a problem: the archive where git is not installed at all (the
	// Docker image); nil means Warn.
	Note func(string)
}

// Tree is a commit's files in a temporary folder.
type Tree struct {
	// Dir is the top of the tree: the repository's root at the commit.
	Dir string
	// Commit is the full SHA when git resolved it, else the ref as given.
	Commit string
	// Via says how the tree was made: ViaWorktree or ViaArchive.
	Via string
	// head is the top of the head's checkout, the root Map works from.
	head string
	// entries is the commit's own listing, sorted by path: what the
	// commit holds is told from it, never from the folder alone.
	entries []Entry

	once    sync.Once
	cleanup func() error
	err     error
}

// Head is the top of the head's checkout the tree's paths map from.
func (t *Tree) Head() string { return t.head }

// Map returns where a path of the head's checkout is in the base tree. A
// path outside the head's checkout has no counterpart and is an error.
func (t *Tree) Map(headPath string) (string, error) {
	abs, err := filepath.Abs(headPath)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, ok := confine.Rel(t.head, abs)
	if !ok {
		return "", fmt.Errorf("%s is outside the checkout %s, so it has no place in the base commit's tree", headPath, t.head)
	}
	return filepath.Join(t.Dir, rel), nil
}

// Named returns where a path of the head's checkout is in the base tree,
// and its path from the checkout's top (slashes), taken as the path names
// it: no link inside the checkout is followed, so a config the change
// turned into a link to another file is looked up at its own path, never
// at the link's target. A path outside the checkout has no counterpart
// and is an error.
func (t *Tree) Named(headPath string) (at, rel string, err error) {
	abs, err := filepath.Abs(headPath)
	if err != nil {
		return "", "", err
	}
	// The top as the path names it: the shallowest folder of the path
	// that is the checkout's top (a temporary folder may itself sit
	// behind a link, as /tmp does on macOS).
	top := ""
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil && real == t.head {
			top = d
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if top == "" {
		return "", "", fmt.Errorf("%s is outside the checkout %s, so it has no place in the base commit's tree", headPath, t.head)
	}
	r, err := filepath.Rel(top, abs)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(t.Dir, r), filepath.ToSlash(r), nil
}

// Linked reports whether the head's checkout reaches rel (a path from the
// top, as Named gives it) through a link the base commit does not have:
// some part of it is a symbolic link in the checkout that is not the same
// link (same target) at the base commit.
func (t *Tree) Linked(rel string) bool {
	parts := strings.Split(filepath.FromSlash(rel), string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		hi, err := os.Lstat(filepath.Join(t.head, p))
		if err != nil {
			return false
		}
		if hi.Mode()&os.ModeSymlink != 0 && !t.sameLink(p) {
			return true
		}
	}
	return false
}

// sameLink reports whether p is, at the base commit, a link with the
// target it has in the head's checkout.
func (t *Tree) sameLink(p string) bool {
	bt, berr := os.Readlink(filepath.Join(t.Dir, p))
	ht, herr := os.Readlink(filepath.Join(t.head, p))
	return berr == nil && herr == nil && bt == ht
}

// Gone calls fn with the path from the top (slashes) and the base tree
// path of every file of the base commit that the head's checkout no
// longer has as the base had it: removed, moved or renamed away, or now
// reached through a link the base did not have (a file replaced by a
// link, a folder replaced by one). The files are the commit's own
// listing's (submodules left out); links are reported as files, not
// followed.
func (t *Tree) Gone(fn func(rel, at string) error) error {
	return t.Files(func(rel, at string) error {
		if t.gone(rel) {
			return fn(rel, at)
		}
		return nil
	})
}

// gone reports whether the head's checkout lacks rel as the base has it.
func (t *Tree) gone(rel string) bool {
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		// Each folder on the way must still be a folder, not a link.
		hi, err := os.Lstat(filepath.Join(t.head, filepath.Join(parts[:i+1]...)))
		if err != nil || !hi.IsDir() {
			return true
		}
	}
	r := filepath.FromSlash(rel)
	hi, err := os.Lstat(filepath.Join(t.head, r))
	if err != nil || hi.IsDir() {
		return true
	}
	return hi.Mode()&os.ModeSymlink != 0 && !t.sameLink(r)
}

// Files calls fn with the path from the top (slashes) and the base tree
// path of every file and link (not followed) of the base commit's own
// listing, in lexical order; submodules are left out.
func (t *Tree) Files(fn func(rel, at string) error) error {
	for _, e := range t.entries {
		if e.IsSubmodule() {
			continue
		}
		if err := fn(e.Path, filepath.Join(t.Dir, filepath.FromSlash(e.Path))); err != nil {
			return err
		}
	}
	return nil
}

// Inside reports whether at, a path in the base tree, stays in it once
// its links are followed: a link of the base commit is followed only
// within its own tree.
func (t *Tree) Inside(at string) bool {
	root, err := filepath.EvalSymlinks(t.Dir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(at)
	if err != nil {
		return false
	}
	return confine.Within(root, real)
}

// Close removes the tree (and, for a worktree, git's record of it). It is
// safe to call more than once; it does not depend on any context, so it
// also runs after an interrupt.
func (t *Tree) Close() error {
	t.once.Do(func() {
		if t.cleanup != nil {
			t.err = t.cleanup()
		}
	})
	return t.err
}

// MissingRefError is a base ref git cannot resolve in the checkout: in a
// shallow clone the history may just be missing; in a full clone the ref
// does not exist.
type MissingRefError struct {
	// Ref is the ref as asked; Dir the checkout it was looked up in.
	Ref, Dir string
	// Shallow says the checkout is a shallow clone.
	Shallow bool
}

// Error implements error.
func (e *MissingRefError) Error() string {
	if e.Shallow {
		return fmt.Sprintf("%s is not in the checkout %s (a shallow clone, or not fetched)", short(e.Ref), e.Dir)
	}
	return fmt.Sprintf("no commit or ref %q in %s (a typo? `git branch -a` lists the refs)", e.Ref, e.Dir)
}

// Fix is the command that brings the ref into a shallow clone, for the
// ref as it was asked: a remote-tracking branch is fetched into its own
// ref (a plain `git fetch origin main` writes only FETCH_HEAD), a commit
// by its SHA, and a ref relative to another (main~5) needs the history.
func (e *MissingRefError) Fix() string {
	ref := e.Ref
	switch {
	case strings.ContainsAny(ref, "~^@:"):
		return "check out with history (actions/checkout with fetch-depth: 0, or git fetch --unshallow)"
	case isSHA(ref):
		return fmt.Sprintf("git fetch origin %s (or actions/checkout with fetch-depth: 0)", ref)
	case strings.HasPrefix(ref, "origin/"):
		b := strings.TrimPrefix(ref, "origin/")
		return fmt.Sprintf("git fetch origin %s:refs/remotes/origin/%s (or actions/checkout with fetch-depth: 0)", b, b)
	case strings.HasPrefix(ref, "refs/"):
		return fmt.Sprintf("git fetch origin %s:%s (or actions/checkout with fetch-depth: 0)", ref, ref)
	}
	return fmt.Sprintf("git fetch origin %s:refs/remotes/origin/%s and pass --base-ref origin/%s (or actions/checkout with fetch-depth: 0)", ref, ref, ref)
}

// isSHA reports whether ref looks like a commit SHA (gitexec.IsSHA: 7 to
// 64 hex digits).
func isSHA(ref string) bool { return gitexec.IsSHA(ref) }

// UnreachableError means neither git nor the archive source could give the
// commit. Its message names the fixes.
type UnreachableError struct {
	// Ref is the commit or ref asked for.
	Ref        string
	Git        error // why git could not (nil when not tried)
	ArchiveErr error // why the archive could not (nil when not tried)
	// Fix, when set, is the CI's own advice (how its checkout gets the
	// history, which token downloads the archive); "" gives GitHub's.
	Fix string
}

// Error implements error.
func (e *UnreachableError) Error() string {
	var why []string
	if e.Git != nil {
		why = append(why, "git: "+e.Git.Error())
	}
	switch {
	case e.ArchiveErr != nil:
		why = append(why, "archive: "+e.ArchiveErr.Error())
	case e.Fix != "":
		why = append(why, "archive: no API token to download it with")
	default:
		why = append(why, "archive: no GitHub token to download it with")
	}
	if e.Fix != "" {
		return fmt.Sprintf("base commit %s is not reachable (%s). Fix: %s", short(e.Ref), strings.Join(why, "; "), e.Fix)
	}
	fix := "check out with history (actions/checkout with fetch-depth: 0)"
	var mr *MissingRefError
	if errors.As(e.Git, &mr) {
		fix = mr.Fix()
	}
	return fmt.Sprintf("base commit %s is not reachable (%s). Fix: %s, or give the job a token with contents: read so recallgate can download the commit's archive",
		short(e.Ref), strings.Join(why, "; "), fix)
}

// Unwrap returns the causes.
func (e *UnreachableError) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Git, e.ArchiveErr} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// short is a ref as messages show it (gitexec.ShortRef).
func short(s string) string { return gitexec.ShortRef(s) }

// Open materialises the commit: a git worktree when the checkout has the
// commit, else the archive. The caller must Close the tree.
func Open(ctx context.Context, o Options) (*Tree, error) {
	if o.Ref == "" {
		return nil, errors.New("no base commit given")
	}
	if err := oneRepository(ctx, o); err != nil {
		return nil, err
	}
	t, gitErr := openWorktree(ctx, o)
	if gitErr == nil {
		return t, nil
	}
	var le *ListingError
	var ie *IncompleteTreeError
	var ue *UnsafeArchiveError
	if errors.As(gitErr, &le) || errors.As(gitErr, &ie) || errors.As(gitErr, &ue) || ctx.Err() != nil {
		return nil, gitErr // git has the commit, so an archive would add nothing
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var mr *MissingRefError
	if errors.As(gitErr, &mr) && !mr.Shallow {
		return nil, mr // a ref that does not exist: no archive has it either
	}
	if o.Archive == nil {
		return nil, &UnreachableError{Ref: o.Ref, Git: gitErr}
	}
	say := o.Warn
	msg := fmt.Sprintf("git cannot give the base commit %s (%v); downloading its archive instead", short(o.Ref), gitErr)
	if !gitexec.Installed() && o.Note != nil {
		say, msg = o.Note, fmt.Sprintf("no git here: the base commit %s comes from its archive, through the API", short(o.Ref))
	}
	if say != nil {
		say(msg)
	}
	t, err := openArchive(ctx, o)
	if err != nil {
		if errors.As(err, &ue) || errors.As(err, &le) || errors.As(err, &ie) || ctx.Err() != nil {
			return nil, err
		}
		return nil, &UnreachableError{Ref: o.Ref, Git: gitErr, ArchiveErr: err}
	}
	return t, nil
}

// git runs git in dir through gitexec: the checkout marked safe (a
// container action sees a checkout owned by another user, and git refuses
// such a repository unless told it is trusted), no hooks, pager, fsmonitor
// or signature check, git's environment cleared, bounded in time and
// output. recallgate only reads the repository and adds a worktree.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitexec.Run(ctx, dir, args...)
}

// repoRoot is the top of the git checkout holding dir.
func repoRoot(ctx context.Context, dir string) (string, error) {
	if !gitexec.Installed() {
		return "", gitexec.ErrNotInstalled
	}
	top, err := gitexec.TopLevel(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("%s is not in a git checkout: %w", dir, err)
	}
	return top, nil
}

func openWorktree(ctx context.Context, o Options) (*Tree, error) {
	top, err := repoRoot(ctx, o.Dir)
	if err != nil {
		return nil, err
	}
	sha, err := git(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", o.Ref+"^{commit}")
	if err != nil || sha == "" {
		if ctx.Err() != nil {
			// Interrupted while git looked: no answer about the ref.
			return nil, fmt.Errorf("look up %s in %s: %w", short(o.Ref), top, ctx.Err())
		}
		// A commit SHA may just not be fetched; a name in a full clone is wrong.
		shallow, _ := git(ctx, top, "rev-parse", "--is-shallow-repository")
		return nil, &MissingRefError{Ref: o.Ref, Dir: top, Shallow: strings.TrimSpace(shallow) == "true" || isSHA(o.Ref)}
	}
	tmp, err := os.MkdirTemp(o.TempDir, "recallgate-base-")
	if err != nil {
		return nil, fmt.Errorf("base tree: %w", err)
	}
	dir := filepath.Join(tmp, "tree")
	// The worktree is made empty and then filled with the whole commit:
	// `git worktree add` would carry a sparse checkout's patterns into it
	// (and leave out what they leave out), so the files are read with
	// sparse checkout off for this one command.
	_, err = git(ctx, top, "worktree", "add", "--detach", "--no-checkout", "--quiet", dir, sha)
	if err == nil {
		_, err = git(ctx, dir, "-c", "core.sparseCheckout=false", "read-tree", "-u", "--reset", sha)
	}
	if err != nil {
		// An interrupted add leaves the worktree locked ("initializing"):
		// only a double --force removes it.
		_, _ = git(context.Background(), top, "worktree", "remove", "--force", "--force", dir)
		os.RemoveAll(tmp)
		_, _ = git(context.Background(), top, "worktree", "prune")
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("worktree of %s: %w", short(sha), err)
	}
	t := &Tree{Dir: dir, Commit: sha, Via: ViaWorktree, head: top}
	t.cleanup = func() error {
		_, rmErr := git(context.Background(), top, "worktree", "remove", "--force", dir)
		err := os.RemoveAll(tmp)
		_, _ = git(context.Background(), top, "worktree", "prune")
		if err != nil {
			return fmt.Errorf("remove base tree %s: %w", tmp, err)
		}
		if rmErr != nil {
			return fmt.Errorf("remove worktree %s: %w", dir, rmErr)
		}
		return nil
	}
	// The worktree is not the commit: a sparse checkout's patterns are
	// carried into it. The commit's own listing says what it holds.
	if err := t.fill(ctx, func(ctx context.Context) ([]Entry, error) { return gitListing(ctx, top, sha) }, gitBlob(top),
		"the checkout is sparse (git worktree add carries its patterns into the base tree)", o); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// fill reads the commit's listing and completes the tree from it.
func (t *Tree) fill(ctx context.Context, list func(context.Context) ([]Entry, error), fetch func(context.Context, Entry, int64) ([]byte, error), why string, o Options) error {
	entries, err := list(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if le := new(ListingError); !errors.As(err, &le) {
			err = &ListingError{Commit: t.Commit, Err: err}
		}
		return err
	}
	if t.entries, err = checkListing(t.Commit, entries); err != nil {
		return err
	}
	max := o.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	return t.complete(ctx, fetch, why, max, o.Warn)
}

func openArchive(ctx context.Context, o Options) (*Tree, error) {
	head := o.Root
	if top, err := repoRoot(ctx, o.Dir); err == nil {
		head = top
	}
	if head == "" {
		return nil, errors.New("the top of the checkout is unknown (no git, no workspace)")
	}
	if abs, err := filepath.Abs(head); err == nil {
		head = abs
	}
	if real, err := filepath.EvalSymlinks(head); err == nil {
		head = real
	}
	rc, err := o.Archive.Archive(ctx, o.Ref)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	tmp, err := os.MkdirTemp(o.TempDir, "recallgate-base-")
	if err != nil {
		return nil, fmt.Errorf("base tree: %w", err)
	}
	dir := filepath.Join(tmp, "tree")
	max := o.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if err := Unpack(rc, dir, max); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	t := &Tree{Dir: dir, Commit: o.Ref, Via: ViaArchive, head: head}
	t.cleanup = func() error {
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("remove base tree %s: %w", tmp, err)
		}
		return nil
	}
	// An archive leaves out what the commit's .gitattributes marks
	// export-ignore: the commit's own listing says what it holds.
	// Each blob must be the one the listing names: its bytes hash to its id.
	fetch := func(ctx context.Context, e Entry, max int64) ([]byte, error) {
		data, err := o.Archive.Blob(ctx, e.SHA, max)
		if err == nil {
			err = CheckBlobID(e.SHA, data)
		}
		return data, err
	}
	if err := t.fill(ctx, func(ctx context.Context) ([]Entry, error) {
		var entries []Entry
		err := o.Archive.Listing(ctx, o.Ref, func(p, mode, sha string, size int64) {
			entries = append(entries, Entry{Path: p, Mode: mode, SHA: sha, Size: size})
		})
		return entries, err
	}, fetch,
		"the archive leaves out what the commit's .gitattributes marks export-ignore", o); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// HeadState is the commit checked out in the git checkout holding dir and
// whether it has changes that are not committed (tracked or untracked
// files); an error when dir is not in one.
func HeadState(ctx context.Context, dir string) (commit string, dirty bool, err error) {
	return headStatus(ctx, dir, true)
}

// headStatus is HEAD's commit in the checkout holding dir and whether
// git's status lists anything (untracked files too when untracked).
func headStatus(ctx context.Context, dir string, untracked bool) (commit string, listed bool, err error) {
	top, err := repoRoot(ctx, dir)
	if err != nil {
		return "", false, err
	}
	if commit, err = gitexec.Head(ctx, top); err != nil {
		return "", false, err
	}
	listed, err = gitexec.Status(ctx, top, untracked)
	return commit, listed, err
}

// NestedRepoError is a config inside another repository than the one the
// job checked out (a submodule, a clone inside the checkout): the base
// commit is the checkout's, so that repository's base cannot be told.
type NestedRepoError struct {
	// Dir is the folder asked about; Repo the top of the repository it is
	// in; Workspace the checkout's top ("" when none was given).
	Dir, Repo, Workspace string
}

// Error implements error.
func (e *NestedRepoError) Error() string {
	if e.Workspace == "" {
		return fmt.Sprintf("%s is in %s, a submodule of another repository: the base commit is not that repository's to judge by; run the gate in the superproject with a config of its own", e.Dir, e.Repo)
	}
	rel, err := filepath.Rel(e.Workspace, e.Repo)
	if err != nil {
		rel = e.Repo
	}
	return fmt.Sprintf("the config's folder is inside %s, another repository (a submodule or a nested clone) than the workspace's %s: the base commit is the workspace's, and a config of another repository is refused; name a config of the workspace's own repository", filepath.ToSlash(rel), e.Workspace)
}

// Fix implements gate.FixError's method.
func (e *NestedRepoError) Fix() string {
	return "name a config of the checkout's own repository; a gate for the other repository runs in that repository's own pipeline"
}

// oneRepository refuses a config folder that is in another repository
// than the checkout's: every folder from the workspace down to o.Dir that
// holds a .git is a repository, and the shallowest is the checkout's.
// Without a workspace (a laptop, a CI step running `gate`) the workspace
// is the repository of the working folder when o.Dir is inside it, and
// else a submodule is refused.
func oneRepository(ctx context.Context, o Options) error {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if o.Root == "" {
		if !gitexec.Installed() {
			return nil
		}
		if wd, err := os.Getwd(); err == nil {
			if top, err := repoRoot(ctx, wd); err == nil && top != dir && isUnder(top, dir) {
				o.Root = top
			}
		}
	}
	if o.Root == "" {
		if super, err := git(ctx, dir, "rev-parse", "--show-superproject-working-tree"); err == nil && super != "" {
			top, _ := git(ctx, dir, "rev-parse", "--show-toplevel")
			return &NestedRepoError{Dir: o.Dir, Repo: top}
		}
		return nil
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, ok := confine.Rel(root, dir)
	if !ok {
		return nil // not in the workspace: the caller's confinement says so
	}
	parts := []string{""}
	if rel != "." {
		parts = append(parts, strings.Split(rel, string(filepath.Separator))...)
	}
	var repos []string
	d := root
	for _, part := range parts {
		d = filepath.Join(d, part)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			repos = append(repos, d)
		}
	}
	if len(repos) > 1 {
		return &NestedRepoError{Dir: o.Dir, Repo: repos[len(repos)-1], Workspace: root}
	}
	return nil
}

// isUnder reports whether p is top or inside it.
func isUnder(top, p string) bool { return confine.Within(top, p) }

// HeadCommitted is the commit checked out in the git checkout holding dir
// and whether its tracked files have changes not committed (untracked
// files, such as the reports a run writes beside the config, do not
// count); an error when dir is not in one.
func HeadCommitted(ctx context.Context, dir string) (commit string, changed bool, err error) {
	return headStatus(ctx, dir, false)
}
