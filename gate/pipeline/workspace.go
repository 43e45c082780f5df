package pipeline

import (
	"fmt"
	"path/filepath"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/internal/confine"
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
		abs, err := confine.Resolve(p)
		if err != nil {
			return err
		}
		if !confine.Within(root, abs) {
			file := ""
			if cfg != nil {
				file = cfg.Path
			}
			return &gate.InputError{File: file, Err: fmt.Errorf("path %s is outside the workspace %s; in action mode every input path must stay inside it", p, ws)}
		}
	}
	return nil
}
