package main

import (
	"context"
	"flag"
	"io"
	"path/filepath"

	"github.com/recallgate/recallgate/gate/report"
)

var reportCommand = command{
	Name:     "report",
	Summary:  "Render a saved JSON report again, in any format.",
	Usage:    "recallgate report --in report.json --format " + report.Comparisons.Choices() + " [--out FILE]",
	Examples: examples("report"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		in := fs.String("in", "", "JSON report written by compare, gate or the action (required)")
		var o output
		fs.StringVar(&o.format, "format", string(report.HTML), "output format: "+report.Comparisons.List())
		fs.StringVar(&o.out, "out", "", "write to this file instead of stdout")
		format, out, noJSON := &o.format, &o.out, ""
		// A report that cannot be read leaves no earlier one at --out.
		return errorReports("report", &o, &noJSON, func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *in == "" {
				return usagef("--in is required")
			}
			if *out != "" && filepath.Clean(*out) == filepath.Clean(*in) {
				o.out = "" // the error report must not replace the input
				return usagef("--out is the --in file: give another")
			}
			f, err := report.Comparisons.Parse(*format)
			if err != nil {
				return usagef("--format: %v", err)
			}
			r, err := report.ReadCompareReportFile(*in)
			if err != nil {
				return err
			}
			return emit(e, *out, func(w io.Writer) error { return report.WriteCompareReport(w, r, f) })
		})
	},
}
