package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/ghjob"
)

var commentCommand = command{
	Name:     "comment",
	Summary:  "Post (or update) the sticky PR comment from a saved JSON report.",
	Usage:    "recallgate comment --report report.json [--pr N] [--config PATH] [--name NAME]",
	Examples: examples("comment"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		in := fs.String("report", "", "JSON report written by compare, gate or the action (required)")
		pr := fs.Int("pr", 0, "pull request number (found from the event in a workflow_run job)")
		cfgName := fs.String("config", "", "config path the sticky comment is keyed by, relative to the workspace (default: the report's, else recallgate.toml)")
		name := fs.String("name", "", "gate name the sticky comment is keyed by (default: the report's)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *in == "" {
				return usagef("--report is required")
			}
			return ghjob.Comment(ctx, e.job(), ghjob.CommentOptions{Report: *in, PR: *pr, Config: *cfgName, Name: *name}, e.stdout)
		}
	},
}
