package main

import (
	"cmp"
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/judge"
)

var judgeCommand = command{Name: "judge", Summary: "Grade a report's label debt and a calibration sample with the [judge] program.",
	Usage: "recallgate judge --config FILE --from-report REPORT [--set SET]", Examples: examples("judge"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var o judge.Options
		fs.StringVar(&o.ConfigPath, "config", "recallgate.toml", "config holding the [judge] table (and corpus, set)")
		fs.StringVar(&o.Report, "from-report", "", "JSON report (compare or gate --format json) whose label debt is graded (required)")
		fs.StringVar(&o.Set, "set", "", "eval set to write the grades into (default: the config's)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil || o.Report == "" {
				return cmp.Or(err, usagef("--from-report is required"))
			}
			o.Getenv, o.Client, o.Stderr, o.Out = e.getenv, e.client, e.stderr, e.stdout
			return judge.Run(ctx, o)
		}
	},
}
