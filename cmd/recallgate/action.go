package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/ghjob"
)

var actionCommand = command{
	Name:     "action",
	Summary:  "GitHub Actions entrypoint: reads INPUT_* and the event, gates, comments, writes outputs.",
	Usage:    "recallgate action   (configured through the action's inputs, see action.yml)",
	Examples: examples("action"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return runAction(ctx, e)
		}
	},
}

// runAction runs the action's job (ghjob.Run), its subprocesses'
// output fenced off from the runner's workflow commands.
func runAction(ctx context.Context, e *env) error {
	e.fence = ghaction.NewFence(e.rawStderr)
	return ghjob.Run(ctx, e.job(), e.commands, e.stdout)
}
