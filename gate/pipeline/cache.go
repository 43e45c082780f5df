package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recallgate/recallgate/gate"
)

// RunCache keeps each side's retrieved run under a key of what determines
// it: the set, the retriever config, the corpus (builtin) and, for
// retrievers whose index recallgate cannot see, a caller's key such as the
// commit the index was built from.
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

// load returns a cached run; a missing entry is a miss, a corrupt one is
// ignored with a warning.
func (c *RunCache) load(e *Env, key string, set *gate.Set) ([]gate.Result, bool) {
	p := c.path(key)
	if _, err := os.Stat(p); err != nil {
		return nil, false
	}
	var res []gate.Result
	meta, err := gate.ReadRunFile(p, func(r gate.Result) error {
		res = append(res, gate.Result{ID: r.ID, Hits: append([]gate.Hit(nil), r.Hits...)})
		return nil
	})
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

// store writes a run atomically.
func (c *RunCache) store(key string, res []gate.Result, meta gate.RunMeta) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	return WriteRunFile(c.path(key), res, meta)
}
