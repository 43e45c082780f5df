package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/setfile"
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
			set, err := setfile.Load(*setPath)
			if err != nil {
				return err
			}
			results, err := runfile.MergeShards(set, args)
			if err != nil {
				return err
			}
			if err := pipeline.WriteRunTo(e.job().Streams(), *out, results, gate.RunMeta{Set: set.Fingerprint}); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "recallgate: merged %d shards, %d queries, into %s\n", len(args), len(results), *out)
			return nil
		}
	},
}
