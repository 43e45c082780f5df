package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
)

// InsideWorkspace refuses, in action mode, every path that resolves
// (symbolic links followed) outside GITHUB_WORKSPACE: a config from a pull
// request must not make the action read the runner's other files.
func InsideWorkspace(ws string, cfg *config.Config, extra ...string) error {
	if ws == "" {
		return nil
	}
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", ws, err)
	}
	paths := append([]string{}, extra...)
	if cfg != nil {
		paths = append(paths, cfg.Path, cfg.Set, cfg.Queries, cfg.Corpus, cfg.CacheDir, cfg.Baseline)
		if cfg.Judge != nil {
			paths = append(paths, cfg.Judge.GuidelineFile)
		}
		for _, r := range []*config.Retriever{cfg.Base, cfg.Head} {
			if r != nil {
				paths = append(paths, r.Path, r.Corpus)
			}
		}
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		abs = resolveExisting(abs)
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			file := ""
			if cfg != nil {
				file = cfg.Path
			}
			return &gate.InputError{File: file, Err: fmt.Errorf("path %s is outside the workspace %s; in action mode every input path must stay inside it", p, ws)}
		}
	}
	return nil
}

// resolveExisting follows the symbolic links of abs's longest existing
// ancestor and joins the rest: a path not created yet (a cache folder, a
// first night's history) under a linked folder resolves where a write
// would land, however many of its folders are still to be made.
func resolveExisting(abs string) string {
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
