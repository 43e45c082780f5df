package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/experiment"
)

var experimentCommand = command{
	Name:     "experiment",
	Summary:  "Rank candidate retrievers ([variant.NAME.retriever] tables) against the baseline, each paired per query as the gate pairs base and head.",
	Usage:    "recallgate experiment --config FILE [--format " + experiment.Renderers.Choices() + "] [--out FILE] [--json-out FILE] [--base-ref REF]",
	Examples: examples("experiment"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		o, out := experiment.CommandOptions{}, output{}
		fs.StringVar(&o.Config, "config", "recallgate.toml", "recallgate.toml with the set, [depth], [gate], the baseline ([base.retriever] or [retriever]) and [variant.NAME.retriever] tables")
		fs.StringVar(&out.format, "format", string(experiment.Renderers.Default()), "output format: "+experiment.Renderers.List())
		fs.StringVar(&out.out, "out", "", "write the report to this file instead of stdout")
		fs.StringVar(&o.JSONOut, "json-out", "", "also write the JSON report to this file")
		fs.StringVar(&o.BaseRef, "base-ref", "", "run the baseline in the whole tree of this commit or ref (e.g. origin/main), judged by its config, as gate --base-ref does")
		return errorReports("experiment", &out, &o.JSONOut, func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			o.Format, o.Out = out.format, out.out
			return experiment.Command(ctx, e.job(), o, e.stdout)
		})
	},
}
