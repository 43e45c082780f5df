package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/recallgate/recallgate/gate/sample"
)

var sampleCommand = command{
	Name:     "sample",
	Summary:  "Draw a draft eval set from a query log: half known failures, half ordinary traffic by frequency.",
	Usage:    "recallgate sample --log FILE --out SET [--known-bad FILE] [--size N] [--seed S] [--format text|jsonl|csv] [--field NAME] [--column NAME] [--max-chars N] [--append | --force]",
	Examples: examples("sample"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		logPath := fs.String("log", "", "the query log: one query a line, JSONL or CSV (required)")
		out := fs.String("out", "", "the draft set to write (required)")
		knownBad := fs.String("known-bad", "", "queries known to fail (complaints, tickets): text, or JSONL/CSV by the file name, with --field/--column")
		size := fs.Int("size", 30, "how many queries to draw")
		seed := fs.Uint64("seed", 1, "seed of the draw; the same seed draws the same queries")
		format := fs.String("format", "", "log format: text, jsonl or csv (default: from the file name, else text)")
		field := fs.String("field", "query", "JSONL key holding the query")
		column := fs.String("column", "query", "CSV column holding the query")
		maxChars := fs.Int("max-chars", 300, "drop longer lines (pasted documents, not queries)")
		appendTo := fs.Bool("append", false, "add to an existing set, keeping its queries and labels")
		force := fs.Bool("force", false, "replace an existing file")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *logPath == "" || *out == "" {
				return usagef("--log and --out are required")
			}
			if *size < 1 {
				return usagef("--size must be at least 1, got %d", *size)
			}
			if *appendTo && *force {
				return usagef("--append and --force contradict each other")
			}
			opts := sample.Options{Field: *field, Column: *column, MaxChars: *maxChars}
			qs, st, err := readLog(e, *logPath, *format, opts)
			if err != nil {
				return err
			}
			var bad []sample.Query
			if *knownBad != "" {
				if bad, _, err = readLog(e, *knownBad, "", opts); err != nil { // its own format, by its name
					return err
				}
			}
			drafts := sample.Draft(sample.Draw(qs, bad, *size, *seed))
			res, err := sample.WriteDraft(*out, drafts, *appendTo, *force)
			if errors.Is(err, sample.ErrExists) {
				return usagef("%s exists: --append adds new queries to it and keeps its labels, --force replaces it", *out)
			}
			if err != nil {
				return err
			}
			drafts, counts := res.Written, res.Counts
			fmt.Fprintf(e.stderr, "recallgate: %s: %s\n", *logPath, st)
			verb := "wrote"
			if res.Appended {
				verb = "appended"
			}
			fmt.Fprintf(e.stderr, "recallgate: %s %d queries (%d %s, %d %s) to %s\n", verb, len(drafts),
				counts[sample.KnownFailure], sample.KnownFailure, counts[sample.Ordinary], sample.Ordinary, *out)
			if !res.Appended && len(drafts) < *size {
				e.job().Warn("the log and the known failures hold only %d distinct queries, fewer than --size %d", len(drafts), *size)
			}
			fmt.Fprintf(e.stderr, "recallgate: next, label them: recallgate label --config recallgate.toml --set %s\n", *out)
			return nil
		}
	},
}

// readLog reads a log or known-failure file, warning about each skipped
// line (up to 20) with its line number.
func readLog(e *env, path, format string, o sample.Options) ([]sample.Query, sample.Stats, error) {
	qs, st, err := sample.ReadFile(path, format, o)
	for _, w := range st.Warnings(path) {
		e.job().Warn("%s", w)
	}
	if errors.Is(err, sample.ErrFormat) {
		return nil, st, usagef("--format: %v", err)
	}
	return qs, st, err
}
