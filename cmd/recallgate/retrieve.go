package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/pipeline"
)

var retrieveCommand = command{
	Name:     "retrieve",
	Summary:  "Run one side's retriever over the eval set and write the run file.",
	Usage:    "recallgate retrieve --config FILE [--set SET] [--side base|head] [--base-ref REF] [--shard i/n] --out RUN",
	Examples: examples("retrieve"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		cfgPath := fs.String("config", "recallgate.toml", "recallgate.toml with the set and the retrievers")
		setPath := fs.String("set", "", "eval set to use instead of the config's")
		side := fs.String("side", "head", "which retriever to run: base or head")
		out := fs.String("out", "", "run file to write, JSONL (required)")
		shard := fs.String("shard", "", "retrieve only shard i/n of the queries (join the shards with 'recallgate merge')")
		baseRef := fs.String("base-ref", "", "with --side base: run it in the whole tree of this commit or ref, as 'gate --base-ref' does")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *side != "base" && *side != "head" {
				return usagef("--side must be base or head, got %q", *side)
			}
			if *out == "" {
				return usagef("--out is required")
			}
			if *baseRef != "" && *side != "base" {
				return usagef("--base-ref goes with --side base")
			}
			return pipeline.RetrieveRun(ctx, e.job(), pipeline.RetrieveOptions{
				Config: *cfgPath, Set: *setPath, Side: *side, BaseRef: *baseRef, TempDir: ghaction.ReadRunner(e.getenv).TempDir(), Shard: *shard, Out: *out,
			})
		}
	},
}
