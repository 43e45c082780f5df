package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/glci"
	"github.com/recallgate/recallgate/gate/gljob"
)

var ciCommand = command{
	Name: "ci", Summary: "CI entrypoint: GitHub Actions runs the action; GitLab CI gates the merge request (note) or checks drift on a schedule (issue).",
	Usage:    "recallgate ci [--config FILE] [--mode pr|drift|auto] [--comment always|on-change|never] [--name NAME] [--baseline RUN] [--history FILE] [--base-results RUN --head-results RUN] [--fail-on-regression BOOL] [--allow-identical BOOL] [--accept-changed-inputs BOOL] [--working-directory DIR] [--junit FILE]   (GitLab; each flag defaults to its RECALLGATE_* variable)",
	Examples: examples("ci"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		inputs := glci.Flags(fs)
		return func(ctx context.Context, e *env, args []string) error {
			switch err := noArgs(args); {
			case err != nil:
				return err
			case e.getenv("GITHUB_ACTIONS") == "true" && fs.NFlag() > 0:
				return usagef("under GitHub Actions, recallgate ci takes the action's inputs (INPUT_* variables), not flags")
			case e.getenv("GITHUB_ACTIONS") == "true":
				return runAction(ctx, e)
			}
			return gljob.Run(ctx, e.job(), inputs, e.stderr, e.stdout)
		}
	},
}
