package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/pipeline"
)

var exportCommand = command{
	Name:     "export",
	Summary:  "Write a run's questions, final contexts and gold reference passages for Ragas or DeepEval.",
	Usage:    "recallgate export --run RUN --format ragas|deepeval [--set SET | --config FILE] [--out FILE]",
	Examples: examples("export"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var o pipeline.ExportOptions
		fs.StringVar(&o.Run, "run", "", "run whose final contexts to export: JSONL (with \"context\" or hit text) or TREC (required)")
		fs.StringVar(&o.Format, "format", "", "ragas (EvaluationDataset JSONL) or deepeval (goldens JSON) (required)")
		fs.StringVar(&o.Set, "set", "", "eval set (default: the set named in --config)")
		fs.StringVar(&o.Config, "config", "", "recallgate.toml: its set, corpus (for the gold documents' passages) and [report] context_tokens")
		fs.StringVar(&o.Out, "out", "", "write to this file instead of stdout")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return pipeline.Export(e.job(), o, e.stdout)
		}
	},
}
