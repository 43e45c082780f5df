package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/runfile"
)

// RunCache keeps each side's retrieved run under a key of what determines
// it: the set, the retriever config, the corpus (builtin) and, for
// retrievers whose index recallgate cannot see, a caller's key such as the
// commit the index was built from.
//
// The cache must live outside the repository (under RUNNER_TEMP or
// ~/.cache, restored by actions/cache): a pull request can commit files,
// and a run it planted under the base side's key would stand in for the
// base. So an entry that is in the checkout's git tree (tracked, or added
// to the index) is never used, and every entry records the key it was
// written under, checked on read.
type RunCache struct {
	Dir string
	// keys are the caller's extra key per side ("" = none given).
	Keys map[string]string
}

// key returns the cache key of a side, or "" when the side must not be
// cached: a file run needs no cache, and a remote index with no caller key
// could change under the same config.
func (c *RunCache) key(set *gate.Set, fp SideRun, side string, k int) string {
	extra := c.Keys[side]
	if fp.Corpus == "" && extra == "" {
		return ""
	}
	h := sha256.New()
	// k is in the key: a run cached at 50 candidates cannot answer for 100.
	fmt.Fprintf(h, "recallgate-run-cache-v2\x00%s\x00%s\x00%s\x00%s\x00%d", set.Fingerprint, fp.Config, fp.Corpus, extra, k)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func (c *RunCache) path(key string) string { return filepath.Join(c.Dir, "run-"+key+".jsonl") }

// load returns a cached run; a missing entry is a miss, and so is one the
// checkout's git tree holds, one written under another key or a corrupt
// one, each with a warning naming it.
func (c *RunCache) load(e *Env, key string, set *gate.Set) ([]gate.Result, bool) {
	p := c.path(key)
	if _, err := os.Stat(p); err != nil {
		return nil, false
	}
	if tracked, err := InGitTree(p); tracked || err != nil {
		why := "is in the repository's git tree (committed or added by this change)"
		if err != nil {
			why = fmt.Sprintf("may be in the repository's git tree (%v)", err)
		}
		e.Warn("cache entry %s %s and was not used: a run in the checkout could be planted by the change under test; keep cache_dir outside the repository (under RUNNER_TEMP or ~/.cache, restored by actions/cache)", p, why)
		return nil, false
	}
	var res []gate.Result
	meta, err := runfile.ReadRunFile(p, func(r gate.Result) error {
		res = append(res, gate.Result{ID: r.ID, Hits: append([]gate.Hit(nil), r.Hits...), Context: r.Context, Abstain: r.Abstain})
		return nil
	})
	if err == nil && meta.CacheKey != key {
		got := "no key"
		if meta.CacheKey != "" {
			got = "key " + meta.CacheKey
		}
		e.Warn("cache entry %s was written under %s, not %s (renamed or copied), and was not used", p, got, key)
		return nil, false
	}
	if err == nil {
		err = meta.CheckSet(set, p)
	}
	if err == nil && len(res) != len(set.Queries) {
		err = fmt.Errorf("has %d queries, the set %d", len(res), len(set.Queries))
	}
	if err == nil {
		for i, q := range set.Queries {
			if res[i].ID != q.ID {
				err = fmt.Errorf("query %d is %s, the set's is %s", i+1, res[i].ID, q.ID)
				break
			}
		}
	}
	if err != nil {
		e.Warn("cache entry %s is corrupt and was ignored: %v", p, err)
		return nil, false
	}
	return res, true
}

// store writes a run atomically, with the key it is stored under.
func (c *RunCache) store(key string, res []gate.Result, meta gate.RunMeta) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	meta.CacheKey = key
	return WriteRunFile(c.path(key), res, meta)
}

// gitTimeout bounds the git call of InGitTree.
const gitTimeout = 30 * time.Second

// InGitTree reports whether git tracks the file at path in the checkout
// that holds it: in HEAD or in the index (added, even if not committed).
// No git, or a folder in no git checkout, is false; any other failure of
// git is an error, so the caller can refuse the file to be safe.
func InGitTree(path string) (bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	dir, name := filepath.Split(abs)
	files, err := gitTracked(dir, name)
	return len(files) > 0, err
}

// trackedUnder lists the files git tracks under the folder dir (see
// InGitTree), at most a few.
func trackedUnder(dir string) ([]string, error) {
	files, err := gitTracked(dir, ".")
	if len(files) > 3 {
		files = files[:3]
	}
	return files, err
}

// gitTracked runs git ls-files in dir for one literal pathspec.
func gitTracked(dir, pathspec string) ([]string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, nil // a folder not made yet holds nothing
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	// readGit: safe.directory (a container action sees a checkout owned by
	// another user, which git would otherwise refuse to read, and a
	// refusal must not read as "not a repository"), no hooks, no pager.
	out, err := readGit(ctx, dir, "ls-files", "-z", "--cached", "--full-name", "--", ":(literal)"+pathspec)
	switch {
	case err == nil:
		return strings.FieldsFunc(out, func(r rune) bool { return r == 0 }), nil
	case strings.Contains(err.Error(), "not a git repository"):
		return nil, nil
	}
	return nil, fmt.Errorf("git ls-files in %s: %s", dir, strings.TrimPrefix(err.Error(), "git ls-files: "))
}

// IndexDir is the folder builtin indexes are saved in: the cache's, or ""
// (indexes built afresh) with a warning when git tracks a file under it,
// since a saved index committed by the change under test would stand in
// for the base side's.
func (c *RunCache) IndexDir(e *Env) string {
	files, err := trackedUnder(c.Dir)
	switch {
	case err != nil:
		e.Warn("cache_dir %s: saved indexes not used: cannot tell whether the repository tracks files there (%v)", c.Dir, err)
		return ""
	case len(files) > 0:
		e.Warn("cache_dir %s holds files the repository tracks (%s): saved indexes are not used; keep cache_dir outside the repository (under RUNNER_TEMP or ~/.cache, restored by actions/cache)", c.Dir, strings.Join(files, ", "))
		return ""
	}
	return c.Dir
}
