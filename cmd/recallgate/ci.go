package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/ghjob"
	"github.com/recallgate/recallgate/gate/gljob"
)

var ciCommand = command{
	Name: "ci", Summary: "CI entrypoint: GitHub Actions runs the action; GitLab CI gates the merge request (note) or checks drift on a schedule (issue).",
	Usage:    "recallgate ci [--config FILE] [--mode pr|drift|auto] [--comment always|on-change|never] [--name NAME] [--baseline RUN] [--history FILE] [--base-results RUN --head-results RUN] [--fail-on-regression BOOL] [--allow-identical BOOL] [--accept-changed-inputs BOOL] [--working-directory DIR] [--junit FILE]   (GitLab; each flag defaults to its RECALLGATE_* variable)",
	Examples: examples("ci"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		inputs := cijob.Flags(fs)
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return cis(e).Run(ctx, e.getenv, fs.NFlag(), inputs)
		}
	},
}

// cis are the CI systems `recallgate ci` runs under, in the order they are
// tried: the one table (cijob.CIs), here because only a room may join the
// CIs' jobs and gate/cijob stays CI-neutral. A new CI is one line here and
// its room's CI value.
func cis(e *env) cijob.CIs {
	return cijob.CIs{
		ghjob.CI(func(ctx context.Context) error { return runAction(ctx, e) }),
		gljob.CI(e.job(), e.stderr, e.stdout),
	}
}
