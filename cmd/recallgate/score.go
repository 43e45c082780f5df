package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/report"
)

var scoreCommand = command{
	Name:     "score",
	Summary:  "Score one run against the eval set at the candidate and context depths.",
	Usage:    "recallgate score --set SET --results RUN [--config FILE] [--candidates N] [--context K] [--corpus DIR|FILE] [--format FORMAT] [--out FILE]",
	Examples: examples("score"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var o common
		o.formats = report.Scorecards
		o.register(fs)
		results := fs.String("results", "", "run to score: JSONL or TREC run (required)")
		corpus := fs.String("corpus", "", "corpus (folder or JSONL) whose sections a set labelling sections (doc#anchor) places the hits in; default the config's head corpus")
		return errorReports("score", &o.output, new(string), func(ctx context.Context, e *env, args []string) error {
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
			if o.note != "" {
				e.job().Note("%s", o.note)
			}
			if *corpus == "" {
				*corpus = s.Config.SideCorpus("head")
			}
			if err := pipeline.PlaceSections(e.job(), s.Set, *corpus); err != nil {
				return err
			}
			scored, err := pipeline.ScoreRun(s.Set, *results, s.Depth, f)
			if err != nil {
				return fmt.Errorf("score run: %w", err)
			}
			defer scored.Close()
			scored.Card.DepthDefaults = s.Defaults
			for _, w := range s.Set.Warnings {
				e.job().Warn("%s: %s", s.Set.Path, w)
			}
			for _, w := range scored.Card.RunWarnings() {
				e.job().Warn("%s: %s", *results, w)
			}
			return emit(e, o.out, scored.Write)
		})
	},
}
