package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/pipeline"
)

var gateCommand = command{
	Name:     "gate",
	Summary:  "Retrieve the set with the base and the head retriever, compare them and decide the gate.",
	Usage:    "recallgate gate --config FILE [--set SET] [--base-ref REF] [--allow-identical] [--max-recall-drop D] [--max-new-misses M] [--format FORMAT] [--out FILE] [--json-out FILE] [--save-runs DIR] [--write-baseline FILE] [--no-cache] [--base-cache-key KEY] [--head-cache-key KEY]",
	Examples: examples("gate"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		cfgPath := fs.String("config", "recallgate.toml", "recallgate.toml with the set, [depth], [gate] and the retrievers")
		setPath := fs.String("set", "", "eval set to use instead of the config's")
		var o output
		o.register(fs)
		saveRuns := fs.String("save-runs", "", "also write base.jsonl and head.jsonl runs into this folder")
		baseline := fs.String("write-baseline", "", "also write the head run to this file, the baseline of a nightly drift run (one [retriever] and no --base-ref: the set is retrieved once and nothing compared)")
		var v verdicts
		v.register(fs, " (overrides [gate]: the base commit's with --base-ref)")
		noCache := fs.Bool("no-cache", false, "ignore cache_dir: retrieve both sides afresh")
		baseKey := fs.String("base-cache-key", "", "what identifies the base side's index for the cache, e.g. the base commit")
		headKey := fs.String("head-cache-key", "", "what identifies the head side's index for the cache, e.g. the head commit")
		baseRef := fs.String("base-ref", "", "run the base side in the whole tree of this commit or ref (e.g. origin/main): its config, corpus and scripts")
		allowIdentical := fs.Bool("allow-identical", false, "run even when both sides are the same retriever configuration in the same tree (a self-check that cannot fail)")
		return errorReports("gate", &o, &v.jsonOut, func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			f, err := o.parse()
			if err != nil {
				return err
			}
			cfg, set, err := pipeline.LoadConfigSet(*cfgPath, *setPath)
			if err != nil {
				return err
			}
			th := cfg.Thresholds
			if err := v.apply(&th); err != nil {
				return err
			}
			cmp, err := pipeline.Gate(ctx, e.job(), pipeline.GateOptions{
				Config: cfg, Set: set, Thresholds: th, Overrides: v.apply, BaseRef: *baseRef, TempDir: ghaction.ReadRunner(e.getenv).TempDir(),
				AllowIdentical: *allowIdentical, IdenticalFix: "pass --base-ref origin/main (the base side then runs in that commit's tree), or write [base.retriever] and [head.retriever]; --allow-identical runs it anyway",
				CacheKeys: map[string]string{"base": *baseKey, "head": *headKey}, NoCache: *noCache, SaveRuns: *saveRuns, Baseline: *baseline, RecordCommits: true,
			})
			return pipeline.PublishComparison(e.job(), cmp, err, f, o.out, v.jsonOut)
		})
	},
}
