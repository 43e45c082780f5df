package main

import (
	"context"
	"flag"
	"github.com/recallgate/recallgate/gate/cijob"
	"github.com/recallgate/recallgate/gate/pipeline"
)

var driftCommand = command{Name: "drift", Summary: "Compare the head retriever now with a stored baseline run and name what changed since: the nightly drift run, for any scheduler.",
	Usage: "recallgate drift --config FILE --baseline RUN [--format FORMAT] [--out FILE] [--json-out FILE] [--history FILE] [--accept-changed-inputs]", Examples: examples("drift"), Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var o output
		o.register(fs)
		d := cijob.DriftFlags(fs)
		return errorReports("drift", &o, &d.JSONOut, func(ctx context.Context, e *env, args []string) error {
			cmp, f, err := d.Run(ctx, e.job(), args, o.format)
			return pipeline.PublishComparison(e.job(), cmp, err, f, o.out, d.JSONOut)
		})
	}}
