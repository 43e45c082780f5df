package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/pipeline"
)

// parseShard reads "i/n".
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usagef("--shard wants i/n with 1 ≤ i ≤ n, got %q", s)
	}
	return i, n, nil
}

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
			set, err := gate.LoadSet(*setPath)
			if err != nil {
				return err
			}
			results, err := gate.MergeShards(set, args)
			if err != nil {
				return err
			}
			if err := pipeline.WriteRunFile(*out, results, gate.RunMeta{Set: set.Fingerprint}); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "recallgate: merged %d shards, %d queries, into %s\n", len(args), len(results), *out)
			return nil
		}
	},
}
