package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/config"
)

// baseSide is the base side of a comparison run from another commit's
// whole tree: its config parsed where it stands in that tree, so the
// corpus, the command's working folder and file runs all come from it.
type baseSide struct {
	tree *basetree.Tree
	cfg  *config.Config
	// notes say what was compared, for the report.
	notes []string
}

// baseOptions are what openBase needs besides the head's config.
type baseOptions struct {
	ref       string                 // the base commit or ref
	workspace string                 // GITHUB_WORKSPACE in a job ("" on a laptop): paths must stay in the tree
	archive   basetree.ArchiveSource // nil = git only
	tempDir   string
}

// openBase materialises the base commit and loads the head config's
// counterpart in it. The caller must close the tree. With no config at that
// path in the base commit (recallgate is new in the change), the head's
// config text is read in the base tree instead, with a warning.
func openBase(ctx context.Context, e *env, head *config.Config, set *gate.Set, o baseOptions) (*baseSide, error) {
	cfgAbs, err := filepath.Abs(head.Path)
	if err != nil {
		return nil, err
	}
	tree, err := basetree.Open(ctx, basetree.Options{
		Dir: filepath.Dir(cfgAbs), Ref: o.ref, Root: o.workspace, TempDir: o.tempDir, Archive: o.archive,
		Warn: func(s string) { e.warn("%s", s) },
	})
	if err != nil {
		return nil, err
	}
	b := &baseSide{tree: tree}
	if err := b.load(e, head, cfgAbs, set, o); err != nil {
		tree.Close()
		return nil, err
	}
	return b, nil
}

func (b *baseSide) load(e *env, head *config.Config, cfgAbs string, set *gate.Set, o baseOptions) error {
	short := shortSHA(b.tree.Commit)
	at, err := b.tree.Map(cfgAbs)
	if err != nil {
		return &gate.InputError{File: head.Path, Err: err}
	}
	bcfg, err := config.Load(at)
	if errors.Is(err, fs.ErrNotExist) {
		e.warn("%s does not exist at the base commit %s: the base side runs the head's config in the base commit's tree", head.Path, short)
		data, rerr := os.ReadFile(head.Path)
		if rerr != nil {
			return &gate.InputError{File: head.Path, Err: rerr}
		}
		bcfg, err = config.Parse(data, at)
	}
	if err != nil {
		return fmt.Errorf("config at the base commit %s: %w", short, err)
	}
	if bcfg.Base == nil {
		return &gate.InputError{File: head.Path + "@" + short, Field: "retriever", Err: errors.New("the base commit's config has no retriever")}
	}
	if o.workspace != "" {
		// Only what the base side reads: the set and thresholds are the head's.
		if err := insideWorkspace(b.tree.Dir, nil, bcfg.Base.Path, bcfg.Base.Corpus); err != nil {
			return &gate.InputError{File: head.Path + "@" + short, Field: "retriever", Err: fmt.Errorf("the base commit's config must keep its paths inside its own tree: %w", err)}
		}
	}
	b.cfg = bcfg
	b.notes = append(b.notes, fmt.Sprintf("base side: the tree of commit %s (%s), with its own config, corpus and scripts; head side: this checkout", short, b.tree.Via))
	if p, err := b.tree.Map(set.Path); err == nil {
		switch baseSet := fingerprintFile(p); {
		case baseSet == "":
			b.notes = append(b.notes, "the eval set is new in this change; both sides are scored on it")
		case baseSet != set.Fingerprint:
			b.notes = append(b.notes, fmt.Sprintf("the eval set changed in this change; both sides are scored on the head's set (%d queries)", len(set.Queries)))
		}
	}
	return nil
}

// sides returns the config to retrieve with: the head's, with the base
// side's retriever taken from the base commit's config.
func (b *baseSide) sides(head *config.Config) *config.Config {
	c := *head
	c.Base = b.cfg.Base
	return &c
}
