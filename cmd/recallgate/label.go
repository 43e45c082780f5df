package main

import (
	"context"
	"flag"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/pipeline"
)

// labelFlags are the flags label and reverify share.
type labelFlags struct {
	config, set, labeller string
	// fromReport is a compare report whose new unjudged context documents
	// are the only pairs to label (label only).
	fromReport                   string
	pool                         []string
	depth, port                  int
	binary, adjudicate, reverify bool
}

func (f *labelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.config, "config", "recallgate.toml", "recallgate.toml: its retrievers make the pool, its corpus gives titles and whole documents")
	fs.StringVar(&f.set, "set", "", "the draft or set to label (default: the config's set); TREC qrels become a JSONL set beside it, texts from queries")
	fs.StringVar(&f.labeller, "labeller", "", "who labels; each grade is recorded under this name (default: $USER, else $LOGNAME, else the account this runs as)")
	fs.Func("pool-config", "another recallgate.toml whose retrievers add to the pool (repeatable)", func(v string) error { f.pool = append(f.pool, v); return nil })
	fs.IntVar(&f.depth, "depth", 10, "how many top documents of each retriever go into the pool")
	fs.IntVar(&f.port, "port", 0, "port on 127.0.0.1 (default: a free one, printed)")
	fs.BoolVar(&f.binary, "binary", false, "grade 0/1 instead of 0–3")
}

var labelCommand = command{
	Name:     "label",
	Summary:  "Label a draft set in the browser: pooled documents from every retriever, graded with the keyboard.",
	Usage:    "recallgate label [--config FILE] [--set SET] [--labeller NAME] [--pool-config FILE] [--depth D] [--binary] [--port PORT] [--from-report report.json] [--adjudicate] [--export qrels|jsonl]",
	Examples: examples("label"),
	Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var lf labelFlags
		lf.register(fs)
		fs.StringVar(&lf.fromReport, "from-report", "", "a JSON compare report: label only the documents it lists as unjudged in the head's context")
		fs.BoolVar(&lf.adjudicate, "adjudicate", false, "decide where labellers disagree: only the disputed documents, with every labeller's grade")
		export := fs.String("export", "", "write the labels to stdout instead of serving the page: qrels (TREC, every judged document) or jsonl")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *export != "" {
				return pipeline.ExportLabels(e.job(), pipeline.LabelOptions{Config: lf.config, Set: lf.set}, *export, e.stdout)
			}
			return runLabel(ctx, e, lf, nil)
		}
	},
}

// runLabel builds the pool and serves the page until ctx ends. pick, when
// given, chooses the queries shown.
func runLabel(ctx context.Context, e *env, lf labelFlags, pick func(*gate.Set) []string) error {
	return pipeline.ServeLabel(ctx, e.job(), pipeline.LabelOptions{
		Config: lf.config, Set: lf.set, Labeller: lf.labeller, PoolConfigs: lf.pool, Depth: lf.depth,
		Binary: lf.binary, FromReport: lf.fromReport, Pick: pick, Adjudicate: lf.adjudicate, Reverify: lf.reverify,
	}, lf.port, e.stdout)
}
