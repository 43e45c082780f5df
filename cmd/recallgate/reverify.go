package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/pipeline"
)

var reverifyCommand = command{
	Name:     "reverify",
	Summary:  "Re-check the labels verified longest ago: open the labelling page on a seeded sample of them.",
	Usage:    "recallgate reverify [--sample N] [--seed S] [--config FILE] [--set SET] [--labeller NAME] [--pool-config FILE] [--depth D] [--binary] [--port PORT]",
	Examples: examples("reverify"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var lf labelFlags
		lf.register(fs)
		n := fs.Int("sample", 5, "how many queries to re-check")
		seed := fs.Uint64("seed", 1, "seed that breaks ties between equally old labels")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *n < 1 {
				return usagef("--sample must be at least 1")
			}
			lf.reverify = true
			return runLabel(ctx, e, lf, pipeline.ReverifyPick(e.job(), *n, *seed))
		}
	},
}
