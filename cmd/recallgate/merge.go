package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/pipeline"
)

var mergeCommand = command{
	Name:     "merge",
	Summary:  "Join the shard runs of `retrieve --shard i/n` into one run, refusing overlaps and gaps.",
	Usage:    "recallgate merge --set SET --out RUN SHARD.jsonl…",
	Examples: examples("merge"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		setPath := fs.String("set", "", "eval set the shards were retrieved for (required)")
		out := fs.String("out", "", "merged run to write (required)")
		return func(ctx context.Context, e *env, args []string) error {
			if *setPath == "" || *out == "" || len(args) == 0 {
				return usagef("--set, --out and at least one shard run are required")
			}
			return pipeline.MergeShards(e.job(), pipeline.MergeOptions{Set: *setPath, Out: *out, Shards: args})
		}
	},
}
