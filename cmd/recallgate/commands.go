package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/report"
)

// common are the flags shared by score and compare.
type common struct {
	set, config, format, out string
	candidates, context      int
	fs                       *flag.FlagSet
}

func (o *common) register(fs *flag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.set, "set", "", "eval set: JSONL or TREC qrels (default: the set named in --config)")
	fs.StringVar(&o.config, "config", "", "recallgate.toml to read the set, [depth] and [gate] from; flags win")
	fs.IntVar(&o.candidates, "candidates", gate.DefaultCandidates, "candidate depth N for recall@N")
	fs.IntVar(&o.context, "context", gate.DefaultContext, "context depth k for precision@k and nDCG@k")
	fs.StringVar(&o.format, "format", "text", "output format: text, json, markdown, junit, benchmark or html")
	fs.StringVar(&o.out, "out", "", "write the report to this file instead of stdout")
}

// isSet reports whether a flag was given on the command line.
func (o *common) isSet(name string) bool {
	found := false
	o.fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

// resolve loads what a scoring command runs with: the flags given win
// over the config, the config over the defaults.
func (o *common) resolve() (*pipeline.Scoring, report.Format, error) {
	f, err := report.ParseFormat(o.format)
	if err != nil {
		return nil, f, usagef("--format: %v", err)
	}
	so := pipeline.ScoringOptions{Config: o.config, Set: o.set}
	if o.isSet("candidates") {
		so.Candidates = &o.candidates
	}
	if o.isSet("context") {
		so.Context = &o.context
	}
	s, err := pipeline.LoadScoring(so)
	if errors.Is(err, pipeline.ErrNoSet) {
		return nil, f, usagef("--set is required (or a config with set = \"…\")")
	}
	return s, f, err
}

// emit writes a report to --out (atomically) or to stdout.
func emit(e *env, out string, write func(io.Writer) error) error {
	if out == "" {
		return write(e.stdout)
	}
	return writeFileAtomic(out, write)
}

// writeFileAtomic writes through a temporary file in the same folder and
// renames it into place, so a reader never sees half a report.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, 0o644, write)
}

// publishComparison prints the comparison's warnings, writes its report (and the
// JSON one beside it) and turns a failing verdict into errRegression.
func publishComparison(e *env, cmp *gate.Comparison, f report.Format, out, jsonOut string) error {
	for _, w := range cmp.Warnings {
		e.job().Warn("%s", w)
	}
	rep := report.FromComparison(cmp)
	if jsonOut != "" {
		if err := writeFileAtomic(jsonOut, func(w io.Writer) error { return report.WriteCompareReport(w, rep, report.JSON) }); err != nil {
			return err
		}
	}
	if err := emit(e, out, func(w io.Writer) error { return report.WriteCompareReport(w, rep, f) }); err != nil {
		return err
	}
	if cmp.Verdict == gate.Fail {
		return errRegression
	}
	return nil
}

func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q (flags start with --)", args[0])
	}
	return nil
}

var scoreCommand = command{
	name:    "score",
	summary: "Score one run against the eval set at the candidate and context depths.",
	usage:   "recallgate score --set SET --results RUN [--config FILE] [--candidates N] [--context K] [--format FORMAT] [--out FILE]",
	examples: `  recallgate score --set queries.jsonl --results run.jsonl
  recallgate score --set qrels.txt --results run.trec --candidates 100 --context 10 --format json
  recallgate score --config recallgate.toml --results head.jsonl --format markdown --out score.md
`,
	setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
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
			for _, w := range card.Warnings() {
				e.job().Warn("%s: %s", *results, w)
			}
			return emit(e, o.out, func(w io.Writer) error { return report.Score(w, card, f) })
		}
	},
}

var compareCommand = command{
	name:    "compare",
	summary: "Compare a base and a head run query by query and decide the gate.",
	usage:   "recallgate compare --set SET --base RUN --head RUN [--config FILE] [--candidates N] [--context K] [--max-recall-drop D] [--max-new-misses M] [--corpus DIR|FILE] [--format FORMAT] [--out FILE] [--json-out FILE]",
	examples: `  recallgate compare --set queries.jsonl --base base.jsonl --head head.jsonl
  recallgate compare --config recallgate.toml --base base.jsonl --head head.jsonl --format markdown --out comment.md
  recallgate compare --set qrels.txt --base base.trec --head head.trec --max-recall-drop 0.05 --max-new-misses 1

Exits 1 when a gate rule fails: mean recall@N drops by more than
--max-recall-drop, more than --max-new-misses queries newly reach zero
recall, or a rule of the config's [gate] breaks (nDCG@k and precision@k
drops, the tail, floors, segments).
`,
	setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var o common
		o.register(fs)
		base := fs.String("base", "", "base run (the target branch): JSONL or TREC run (required)")
		head := fs.String("head", "", "head run (the change): JSONL or TREC run (required)")
		drop := fs.Float64("max-recall-drop", gate.DefaultMaxRecallDrop, "largest absolute drop of mean recall@N that passes")
		misses := fs.Int("max-new-misses", gate.DefaultMaxNewMisses, "how many queries may newly reach zero recall")
		corpus := fs.String("corpus", "", "corpus (folder or JSONL) to tell gold docs missing from it apart from retrieval misses")
		jsonOut := fs.String("json-out", "", "also write the JSON report to this file (for 'recallgate report' or 'recallgate comment' later)")
		return func(ctx context.Context, e *env, args []string) error {
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
			if o.isSet("max-recall-drop") {
				s.Thresholds.MaxRecallDrop = *drop
			}
			if o.isSet("max-new-misses") {
				s.Thresholds.MaxNewMisses = *misses
			}
			if err := s.Thresholds.Validate(); err != nil {
				return usagef("%v", err)
			}
			cmp, err := pipeline.CompareFiles(e.job(), s.Config, s.Set, s.Depth, s.Thresholds, pipeline.CorpusFor(*corpus, s.Config), *base, *head)
			if err != nil {
				return err
			}
			return publishComparison(e, cmp, f, o.out, *jsonOut)
		}
	},
}

var validateCommand = command{
	name:    "validate",
	summary: "Check an eval set (and that its gold documents exist in a corpus).",
	usage:   "recallgate validate --set SET [--corpus DIR|FILE] [--max-label-age 180d] | --config FILE",
	examples: `  recallgate validate --set frozen-set/queries.jsonl
  recallgate validate --config frozen-set/recallgate.toml
  recallgate validate --set frozen-set/queries.jsonl --corpus frozen-set/corpus
  recallgate validate --set qrels.tsv --corpus corpus.jsonl
`,
	setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		set := fs.String("set", "", "eval set: JSONL or TREC qrels (required unless --config names one)")
		corpus := fs.String("corpus", "", "corpus folder of .txt/.md files or JSONL of {\"id\",\"title\",\"text\"}; every gold doc must be in it")
		maxAge := fs.String("max-label-age", "", "flag labels whose \"verified\" date is older, e.g. 180d or 26w")
		cfgPath := fs.String("config", "", "also check recallgate.toml: its keys, waivers (expired ones fail) and set; its corpus and max_label_age apply")
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			if *maxAge != "" {
				if _, err := config.ParseAge(*maxAge); err != nil {
					return usagef("--max-label-age: %v", err)
				}
			}
			err := pipeline.Validate(e.job(), pipeline.ValidateOptions{Set: *set, Corpus: *corpus, MaxLabelAge: *maxAge, Config: *cfgPath}, e.stdout)
			if errors.Is(err, pipeline.ErrNoSet) {
				return usagef("--set is required (or --config with set = \"…\")")
			}
			return err
		}
	},
}
