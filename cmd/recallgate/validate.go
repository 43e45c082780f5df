package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/pipeline"
)

var validateCommand = command{
	Name:     "validate",
	Summary:  "Check an eval set (and that its gold documents exist in a corpus).",
	Usage:    "recallgate validate --set SET [--corpus DIR|FILE] [--max-label-age 180d] | --config FILE [--base-ref REF] [--strict] [--offline]",
	Examples: examples("validate"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		set := fs.String("set", "", "eval set: JSONL or TREC qrels (required unless --config names one)")
		corpus := fs.String("corpus", "", "corpus folder of .txt/.md files or JSONL of {\"id\",\"title\",\"text\"}; every gold doc must be in it")
		maxAge := fs.String("max-label-age", "", "flag labels whose \"verified\" date is older, e.g. 180d or 26w")
		cfgPath := fs.String("config", "", "also check recallgate.toml as the gate does before retrieving: its keys, set (with queries), segment rules, waivers and retriever tables, then send each side's retriever the preflight; its corpus and max_label_age apply")
		baseRef := fs.String("base-ref", "", "with --config, also send the preflight to the base side as this commit or ref (e.g. origin/main) builds it, in its own tree, as gate --base-ref runs it")
		strict := fs.Bool("strict", false, "with --config, a retriever that answers the set's first query with no hits fails (exit 3) instead of warning")
		offline := fs.Bool("offline", false, "with --config, send nothing to the retrievers (by default each side's is sent the gate's preflight query, its service or program started where the config says how)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if (*baseRef != "" || *strict) && *cfgPath == "" {
				return usagef("--base-ref and --strict check the config's retrievers: give --config")
			}
			return pipeline.Validate(ctx, e.job(), pipeline.ValidateOptions{Set: *set, Corpus: *corpus, MaxLabelAge: *maxAge, Config: *cfgPath, Offline: *offline,
				BaseRef: *baseRef, TempDir: ghaction.ReadRunner(e.getenv).TempDir(), Strict: *strict}, e.stdout)
		}
	},
}
