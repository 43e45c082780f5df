package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/sample"
)

var sampleCommand = command{
	Name:     "sample",
	Summary:  "Draw a draft eval set from a query log: half known failures, half ordinary traffic by frequency.",
	Usage:    "recallgate sample --log FILE --out SET [--known-bad FILE] [--size N] [--seed S] [--format text|jsonl|csv] [--field NAME] [--column NAME] [--id-field NAME | --hash-ids] [--max-chars N] [--append | --force]",
	Examples: examples("sample"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		logPath := fs.String("log", "", "the query log: one query a line, JSONL or CSV (required)")
		out := fs.String("out", "", "the draft set to write (required)")
		knownBad := fs.String("known-bad", "", "queries known to fail (complaints, tickets): text, or JSONL/CSV by the file name, with --field/--column")
		size := fs.Int("size", 30, "how many queries to draw")
		seed := fs.Uint64("seed", 1, "seed of the draw; the same seed draws the same queries")
		format := fs.String("format", "", "log format: text, jsonl or csv (default: jsonl with --field, csv with --column, else from the file name, else text)")
		field := fs.String("field", "query", "JSONL key holding the query")
		column := fs.String("column", "query", "CSV column holding the query")
		idField := fs.String("id-field", "", "JSONL key or CSV column holding the log's own query id, kept as the draft's id (default: the first of id, _id, query_id, qid there; a query with none, or one a set cannot hold or already given, gets the hash of its text, q-…)")
		hashIDs := fs.Bool("hash-ids", false, "ignore the log's ids: every draft id is the hash of its text (q-…)")
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
			if *idField != "" && *hashIDs {
				return usagef("--id-field and --hash-ids contradict each other")
			}
			if *appendTo && *force {
				return usagef("--append and --force contradict each other")
			}
			flags := given(fs)
			logFormat, err := sample.LogFormat(*logPath, *format, flags["field"], flags["column"])
			if err != nil {
				return usagef("%v", err)
			}
			return pipeline.Sample(e.job(), pipeline.SampleOptions{
				Log: *logPath, KnownBad: *knownBad, Format: logFormat, Read: sample.Options{Field: *field, Column: *column, MaxChars: *maxChars, IDField: *idField, HashIDs: *hashIDs},
				Size: *size, Seed: *seed, Out: *out, Append: *appendTo, Force: *force,
			})
		}
	},
}
