package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/scaffold"
)

var initCommand = command{
	Name:     "init",
	Summary:  "Start a gate in a repository: a commented recallgate.toml, a starter set and corpus, a CI workflow.",
	Usage:    "recallgate init [--dir DIR] [--ci github|gitlab] [--retriever builtin|command|http]",
	Examples: examples("init"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		dir := fs.String("dir", ".", "the repository's root folder to write into")
		ci := fs.String("ci", "github", "the workflow to write: github (.github/workflows/recallgate.yml) or gitlab (.gitlab-ci.yml)")
		kind := fs.String("retriever", "builtin", "the [retriever] to start with: builtin (BM25 over eval/corpus), command (retriever.py; the native action's workflow) or http")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return scaffold.Init(*dir, *ci, *kind, e.stdout)
		}
	},
}
