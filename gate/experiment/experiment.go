// Package experiment ranks candidate retrievers against one baseline: the
// [variant.NAME.retriever] tables of a recallgate.toml against its
// [base.retriever] (or [retriever]). Every variant is retrieved once, in
// batches holding at most one builtin index (variants of one index build
// share it), sharing the run cache, and paired with the baseline query by
// query exactly as the gate pairs base and head (pipeline.Pairing, the
// comparison of pipeline.CompareRuns: the same scores, flips, attribution,
// segments, final-context stage and refusal check) as its batch ends. The
// comparisons become a leaderboard (Report), each kept as its row, written
// as text, JSON, Markdown or an HTML page with inline SVG charts, and read
// back strictly (ReadReport). An experiment informs; it does not gate.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/ghaction"
	"github.com/recallgate/recallgate/gate/pipeline"
	"github.com/recallgate/recallgate/gate/retriever"
)

// DefaultParallel is how many distinct retrievers an experiment runs at
// once (the baseline counts as one; builtin sides sharing one index build
// count once): a search service, a process or an index each.
const DefaultParallel = 4

// MaxIndexes is how many builtin indexes an experiment holds at once: a
// batch builds at most one (the sides that share it retrieve together), so
// the peak memory stays below one gate's (which holds two) however many
// variants there are. An index build is one core's work, and the queries of
// one side already run on every core, so a second index at once would not
// make the experiment faster, only larger.
const MaxIndexes = 1

// BaselineName is the baseline's name in every report.
const BaselineName = config.BaselineName

// Options are the choices of one experiment run.
type Options struct {
	// Config holds the baseline and the variants; Set is its eval set,
	// read once for every variant.
	Config *config.Config
	Set    *gate.Set
	// NoCache ignores the config's cache_dir.
	NoCache bool
	// Parallel is how many distinct retrievers run at once (0:
	// DefaultParallel).
	Parallel int
	// BaseRef, when set, runs the baseline in that commit's whole tree
	// with that commit's config as the policy, as `gate --base-ref` does
	// (pipeline.OpenBase); the variants run in this checkout. TempDir is
	// where the tree is made ("" the system's).
	BaseRef, TempDir string
}

// VariantError is why a variant could not be ranked: its retriever could
// not be built or failed on a query. Its chain holds the retriever's error
// (an infrastructure error: exit 3), never a row of zeros.
type VariantError struct {
	// Name is the variant's, as the config names it.
	Name string
	// Err is why: the retriever's build or retrieval error.
	Err error
}

// Error names the variant and says why it could not be ranked.
func (e *VariantError) Error() string { return fmt.Sprintf("variant %q: %v", e.Name, e.Err) }

// Unwrap returns the retriever's error.
func (e *VariantError) Unwrap() error { return e.Err }

// Run retrieves the baseline and every variant, pairs each variant with the
// baseline under the config's [gate] policy and builds the leaderboard. A
// variant that fails is a *VariantError naming it (all failing variants,
// joined); no report is made then.
func Run(ctx context.Context, e *pipeline.Env, o Options) (*Report, error) {
	cfg, set := o.Config, o.Set
	if len(cfg.Variants) == 0 {
		return nil, gate.AtStage(gate.StageConfig, "", &gate.InputError{File: cfg.Path, Field: "variant", Err: errors.New("an experiment needs at least one [variant.NAME.retriever] table to rank against the baseline")})
	}
	if cfg.Base == nil {
		return nil, gate.AtStage(gate.StageConfig, "", &gate.InputError{File: cfg.Path, Field: "base.retriever", Err: errors.New("an experiment needs its baseline: a [base.retriever] or [retriever] table")})
	}
	if cfg.Head != nil && cfg.Head != cfg.Base {
		e.Warn("%s: [head.retriever] is not ranked by an experiment: name it [variant.NAME.retriever] to rank it", cfg.Path)
	}
	sides := []string{"base"}
	for _, v := range cfg.Variants {
		sides = append(sides, v.Side())
	}
	if o.BaseRef != "" {
		sides = sides[1:] // the baseline's table is the base commit's
	}
	if err := pipeline.CheckConfig(e, cfg, set, sides); err != nil {
		return nil, err
	}
	// The ruler: the base commit's policy and baseline retriever when
	// asked (the variants are ranked on the given set).
	ruling, err := pipeline.OpenRuling(ctx, e, cfg, set, pipeline.BaseOptions{Ref: o.BaseRef, TempDir: o.TempDir})
	if err != nil {
		return nil, err
	}
	defer ruling.Close()
	cfg, notes, keys := ruling.Config, ruling.Notes, map[string]string{}
	if b := ruling.Base; b != nil {
		keys["base"] = b.Tree.Commit
		if ruling.Policy.Source == gate.PolicyBaseCommit {
			notes = append(notes, fmt.Sprintf("policy: the base commit's config (%s) judged every variant: its [gate] and [depth]", pipeline.ShortSHA(b.Tree.Commit)))
		}
		sides = append([]string{"base"}, sides...)
	}
	job := *e
	if cfg.CacheDir != "" && !o.NoCache {
		job.Cache = &pipeline.RunCache{Dir: cfg.CacheDir, Keys: keys}
	}
	// One batch at a time, each at most o.Parallel retrievers; a variant is
	// scored and made its row as soon as its batch is retrieved, and its
	// run and comparison are dropped: only the baseline's run stays.
	rows := make([]row, len(cfg.Variants), len(cfg.Variants)+len(cfg.Fusions))
	target := targetMetric(cfg)
	// The runs the fusions read stay until they are fused.
	need, kept := fusionInputs(cfg), map[string][]gate.Result{}
	index := map[string]int{}
	for i, v := range cfg.Variants {
		index[v.Side()] = i
	}
	var pair *pipeline.Pairing
	var errs []error
	for _, batch := range batches(cfg, sides, o.Parallel) {
		runs, err := retrieve(ctx, &job, cfg, set, batch)
		if err != nil {
			if !errors.As(err, new(*VariantError)) {
				return nil, inHeadsPlace(err) // the baseline's
			}
			errs = append(errs, err)
		}
		if len(errs) > 0 {
			continue // no report: the others are retrieved for their errors
		}
		if r, ok := runs["base"]; ok {
			// Scored once for every variant; its run is all that stays.
			if err := pipeline.PlaceSections(&job, set, cfg.SideCorpus("head")); err != nil {
				return nil, err
			}
			if pair, err = pipeline.NewPairing(&job, set, cfg.Depth, r); err != nil {
				return nil, err
			}
		}
		for _, side := range batch {
			if r, ok := runs[side]; ok && need[side] {
				kept[side] = r.First()
			}
			i, ok := index[side]
			if !ok {
				continue
			}
			v := cfg.Variants[i]
			// The variant takes the head's place, so SideCorpus and the
			// fingerprints see it as the gate sees its head.
			run, ok := runs[side]
			if !ok || pair == nil {
				return nil, fmt.Errorf("variant %q: retrieval gave no run and no error (a bug in recallgate: please report it)", v.Name)
			}
			vc := *cfg
			vc.Head = v.Retriever
			cmp, err := pair.Compare(&vc, cfg.Thresholds, run)
			if err != nil {
				return nil, inHeadsPlace(&VariantError{Name: v.Name, Err: err})
			}
			rows[i] = rowOf(Input{Name: v.Name, Comparison: cmp}, target)
		}
	}
	if len(errs) > 0 {
		return nil, inHeadsPlace(errors.Join(errs...))
	}
	for _, f := range cfg.Fusions {
		fr, err := fuse(cfg, set, pair, f, kept)
		if err != nil {
			return nil, inHeadsPlace(err)
		}
		rows = append(rows, fr)
	}
	r := assemble(rows, target)
	r.Notes = append(r.Notes, notes...)
	return r, nil
}

// batches orders the sides (the baseline first) into batches of at most
// parallel distinct retrievers each (0: DefaultParallel), of which at most
// MaxIndexes builtin indexes: builtin sides of one corpus and index
// options (retriever.IndexKey) share one build, so they go in one batch
// and count once; http sides that call one URL never share a batch. A batch's retrievers live while it runs, so no more are
// held at once.
func batches(cfg *config.Config, sides []string, parallel int) [][]string {
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	var keys []string
	groups := map[string][]string{}
	for _, side := range sides {
		key := retriever.IndexKey(pipeline.SideTable(cfg, side))
		if key == "" {
			key = "\x00" + side // a retriever of its own, no index
		}
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], side)
	}
	var out [][]string
	var batch []string
	retrievers, indexes := 0, 0
	urls := map[string]bool{} // the services the batch calls
	for _, key := range keys {
		index := !strings.HasPrefix(key, "\x00")
		url := serviceURL(cfg, groups[key])
		if retrievers == parallel || index && indexes == MaxIndexes || url != "" && urls[url] {
			out, batch, retrievers, indexes, urls = append(out, batch), nil, 0, 0, map[string]bool{}
		}
		if url != "" {
			urls[url] = true
		}
		batch = append(batch, groups[key]...)
		retrievers++
		if index {
			indexes++
		}
	}
	return append(out, batch)
}

// serviceURL is the URL of the http retriever the sides name ("" for
// another kind): variants that call one service run one after another, so
// each one's latency is its own, not the contention of several at once.
func serviceURL(cfg *config.Config, sides []string) string {
	for _, side := range sides {
		if t := pipeline.SideTable(cfg, side); t != nil && t.Type == "http" {
			return t.URL
		}
	}
	return ""
}

// retrieve runs one batch of sides at once (sharing rate limits, progress
// and index builds) and returns every side's run; the failures of its
// variants are joined, each a *VariantError. The baseline's failure is
// the run's.
func retrieve(ctx context.Context, e *pipeline.Env, cfg *config.Config, set *gate.Set, batch []string) (map[string]pipeline.SideRun, error) {
	out := map[string]pipeline.SideRun{}
	var errs []error
	for len(batch) > 0 {
		runs, err := pipeline.Retrieve(ctx, e, cfg, set, batch, cfg.Depth.Candidates, 1)
		if err != nil {
			// A retriever that could not be built stops its batch:
			// drop its side and run the others again.
			side := failedSide(err, batch)
			if side == "base" {
				return nil, err
			}
			if side == "" {
				if len(batch) == 1 || ctx.Err() != nil {
					return nil, err
				}
				// Which one is unknown: each side alone tells.
				for _, s := range batch {
					one, err := retrieve(ctx, e, cfg, set, []string{s})
					if err != nil {
						if s == "base" {
							return nil, err
						}
						errs = append(errs, sideError(s, err))
						continue
					}
					out[s] = one[s]
				}
				break
			}
			errs = append(errs, sideError(side, err))
			batch = slices.DeleteFunc(slices.Clone(batch), func(s string) bool { return s == side })
			continue
		}
		for _, side := range batch {
			if r := runs[side]; r.Err != nil {
				errs = append(errs, sideError(side, r.Err))
			} else {
				out[side] = r
			}
		}
		break
	}
	for _, err := range errs {
		if !errors.As(err, new(*VariantError)) {
			return nil, err // the baseline's
		}
	}
	if len(errs) > 0 {
		return out, errors.Join(errs...)
	}
	return out, nil
}

// failedSide is the side a retrieval error names (its stage's side), when
// it is one of the batch's; "" when it names none.
func failedSide(err error, batch []string) string {
	var se *gate.StageError
	if errors.As(err, &se) && slices.Contains(batch, se.Side) {
		return se.Side
	}
	return ""
}

// inHeadsPlace tags a variant's error as the head side's at its stage, the
// role a variant plays, so an error report (whose sides are base, head or
// none) reads back; its message names the variant.
func inHeadsPlace(err error) error {
	if !errors.As(err, new(*VariantError)) {
		return err
	}
	stage := gate.StageRetrieve
	var se *gate.StageError
	if errors.As(err, &se) {
		stage = se.Stage
	}
	return &gate.StageError{Stage: stage, Side: "head", Err: err}
}

// sideError is a side's error: a variant's names the variant; the
// baseline's stays as it is.
func sideError(side string, err error) error {
	name, ok := strings.CutPrefix(side, "variant.")
	if !ok || errors.As(err, new(*VariantError)) {
		return err
	}
	return &VariantError{Name: name, Err: err}
}

// CommandOptions are the flags of `recallgate experiment`.
type CommandOptions struct {
	// Config is the recallgate.toml with the baseline and the variants.
	Config string
	// Format is text, json, markdown or html; Out the file to write it to
	// ("" stdout), JSONOut a file for the JSON report besides.
	Format, Out, JSONOut string
	// BaseRef runs the baseline in that commit's tree (Options.BaseRef).
	BaseRef string
}

// Command is `recallgate experiment`: the config and its set loaded (the
// set once), the experiment run, its warnings printed and the report
// written. It returns nil when the experiment ran, whatever the variants
// did: an experiment informs, it does not gate.
func Command(ctx context.Context, e *pipeline.Env, o CommandOptions, stdout io.Writer) error {
	f, err := ParseFormat(o.Format)
	if err != nil {
		return cli.Usagef("--format: %v", err)
	}
	cfg, set, err := pipeline.LoadConfigSet(o.Config, "")
	if err != nil {
		return err
	}
	r, err := Run(ctx, e, Options{Config: cfg, Set: set, BaseRef: o.BaseRef, TempDir: ghaction.ReadRunner(e.Getenv).TempDir()})
	if err != nil {
		return err
	}
	for _, w := range r.Warnings {
		e.Warn("%s", w)
	}
	return WriteFiles(atomicfile.Streams{Stdout: stdout, Stderr: e.Stderr}, r, f, o.Out, o.JSONOut)
}
