package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/history"
)

var historyCommand = command{
	Name:     "history",
	Summary:  "Keep runs over time (add a JSON report's run to a history file) and draw the trend (render).",
	Usage:    "recallgate history add --history FILE --report REPORT.json [--time TIME] | recallgate history render --history FILE [--format " + history.Renderers.Choices() + "] [--out FILE]",
	Examples: examples("history"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		run := history.Flags(fs)
		return func(_ context.Context, e *env, args []string) error { return run(args, e.now, e.stdout, e.stderr) }
	},
}
