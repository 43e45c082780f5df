package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/pipeline"
)

var compareCommand = command{
	Name:     "compare",
	Summary:  "Compare a base and a head run query by query and decide the gate.",
	Usage:    "recallgate compare --set SET --base RUN --head RUN [--config FILE] [--candidates N] [--context K] [--max-recall-drop D] [--max-new-misses M] [--corpus DIR|FILE] [--format FORMAT] [--out FILE] [--json-out FILE]",
	Examples: examples("compare"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var o common
		o.register(fs)
		base := fs.String("base", "", "base run (the target branch): JSONL or TREC run (required)")
		head := fs.String("head", "", "head run (the change): JSONL or TREC run (required)")
		var v verdicts
		v.register(fs, "")
		corpus := fs.String("corpus", "", "corpus (folder or JSONL) to tell gold docs missing from it apart from retrieval misses")
		return errorReports("compare", &o.output, &v.jsonOut, func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *base == "" || *head == "" {
				return usagef("--base and --head are required")
			}
			s, f, err := o.resolve()
			if err != nil {
				return err
			}
			if err := v.apply(&s.Thresholds); err != nil {
				return err
			}
			if *corpus == "" {
				*corpus = s.Config.SideCorpus("head")
			}
			if o.note != "" {
				e.job().Note("%s", o.note)
			}
			cmp, err := pipeline.CompareFiles(e.job(), s.Config, s.Set, s.Depth, s.Thresholds, *corpus, *base, *head)
			if cmp != nil {
				cmp.DepthDefaults = s.Defaults
			}
			return pipeline.PublishComparison(e.job(), cmp, err, f, o.out, v.jsonOut)
		})
	},
}
