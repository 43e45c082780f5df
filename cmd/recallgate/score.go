package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/report"
)

var scoreCommand = command{
	Name:     "score",
	Summary:  "Score one run against the eval set at the candidate and context depths.",
	Usage:    "recallgate score --set SET --results RUN [--config FILE] [--candidates N] [--context K] [--format FORMAT] [--out FILE]",
	Examples: examples("score"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var o common
		o.register(fs)
		results := fs.String("results", "", "run to score: JSONL or TREC run (required)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *results == "" {
				return usagef("--results is required")
			}
			s, f, err := o.resolve()
			if err != nil {
				return err
			}
			card, err := gate.ScoreRunFile(s.Set, *results, s.Depth)
			if err != nil {
				return fmt.Errorf("score run: %w", err)
			}
			for _, w := range s.Set.Warnings {
				e.job().Warn("%s: %s", s.Set.Path, w)
			}
			for _, w := range card.RunWarnings() {
				e.job().Warn("%s: %s", *results, w)
			}
			return emit(e, o.out, func(w io.Writer) error { return report.Score(w, card, f) })
		}
	},
}
