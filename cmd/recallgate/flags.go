package main

import (
	"context"
	"flag"
	"io"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/report"
)

// output are --format and --out, the flags of every command that writes a
// report; the formats are those of the report package's table formats
// (report.Comparisons when nil).
type output struct {
	format, out string
	formats     formatTable
}

// formatTable is a document's table of formats (a report.Renderers).
type formatTable interface {
	Parse(s string) (report.Format, error)
	List() string
	Default() report.Format
}

func (o *output) register(fs *flag.FlagSet) {
	if o.formats == nil {
		o.formats = report.Comparisons
	}
	fs.StringVar(&o.format, "format", string(o.formats.Default()), "output format: "+o.formats.List())
	fs.StringVar(&o.out, "out", "", "write the report to this file instead of stdout")
}

// parse reads --format.
func (o *output) parse() (report.Format, error) {
	f, err := o.formats.Parse(o.format)
	if err != nil {
		return f, usagef("--format: %v", err)
	}
	return f, nil
}

// given lists the flags given on the command line.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// common are the flags shared by score and compare.
type common struct {
	output
	set, config         string
	candidates, context int
	fs                  *flag.FlagSet
	// note says which config resolve found ("" when none was looked for).
	note string
}

func (o *common) register(fs *flag.FlagSet) {
	o.fs = fs
	o.output.register(fs)
	fs.StringVar(&o.set, "set", "", "eval set: JSONL or TREC qrels (default: the set named in --config)")
	fs.StringVar(&o.config, "config", "", "recallgate.toml to read the set, [depth] and [gate] from; flags win (default: recallgate.toml in the current folder, when there)")
	fs.IntVar(&o.candidates, "candidates", gate.DefaultCandidates, "candidate depth N for recall@N")
	fs.IntVar(&o.context, "context", gate.DefaultContext, "context depth k for precision@k and nDCG@k")
}

// resolve loads what a scoring command runs with: the flags given win
// over the config, the config over the defaults.
func (o *common) resolve() (*pipeline.Scoring, report.Format, error) {
	f, err := o.parse()
	if err != nil {
		return nil, f, err
	}
	so, flags := pipeline.ScoringOptions{Config: o.config, Set: o.set, Discover: true}, given(o.fs)
	if flags["candidates"] {
		so.Candidates = &o.candidates
	}
	if flags["context"] {
		so.Context = &o.context
	}
	s, err := pipeline.LoadScoring(so)
	if err == nil && s.Found {
		o.note = "reading " + pipeline.DefaultConfig + " in the current folder (no --config)"
	}
	return s, f, err
}

// emit writes a report to --out (by atomicfile's rules: "-" is stdout) or
// to stdout.
func emit(e *env, out string, write func(io.Writer) error) error {
	return report.WriteTo(e.job().Streams(), out, write)
}

// verdicts are the flags that change the gate's thresholds and keep its
// JSON report, shared by gate and compare.
type verdicts struct {
	drop    float64
	misses  int
	jsonOut string
	fs      *flag.FlagSet
}

func (v *verdicts) register(fs *flag.FlagSet, overrides string) {
	v.fs = fs
	fs.Float64Var(&v.drop, "max-recall-drop", gate.DefaultMaxRecallDrop, "largest absolute drop of mean recall@N that passes"+overrides)
	fs.IntVar(&v.misses, "max-new-misses", gate.DefaultMaxNewMisses, "how many queries may newly reach zero recall"+overrides)
	fs.StringVar(&v.jsonOut, "json-out", "", "also write the JSON report to this file (for 'recallgate report' or 'recallgate comment' later)")
}

// apply puts the thresholds given on the command line over th.
func (v *verdicts) apply(th *gate.Thresholds) error {
	flags := given(v.fs)
	if flags["max-recall-drop"] {
		th.MaxRecallDrop = v.drop
	}
	if flags["max-new-misses"] {
		th.MaxNewMisses = v.misses
	}
	if err := th.Validate(); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// noArgs refuses positional arguments.
var noArgs = cli.NoArgs

// errorReports makes run write, when it ends in exit 2 or 3, an error
// report in place of each report file asked for (--out in its format,
// --json-out in JSON), atomically: a previous run's pass never stays.
func errorReports(name string, o *output, jsonOut *string, run func(context.Context, *env, []string) error) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		err := run(ctx, e, args)
		if code := exitCode(err); code == exitInput || code == exitInfra {
			pipeline.WriteErrorReports(e.job(), name, code, noSetIsUsage(err), o.format, o.out, *jsonOut)
		}
		return err
	}
}
