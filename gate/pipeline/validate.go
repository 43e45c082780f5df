package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/agreement"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/corpus"
	"github.com/recallgate/recallgate/gate/retriever"
	"github.com/recallgate/recallgate/gate/section"
	"github.com/recallgate/recallgate/gate/setfile"
	"github.com/recallgate/recallgate/gate/sethealth"
	"github.com/recallgate/recallgate/gate/stats"
)

// ErrNoSet is Validate's error when neither the options nor the config
// name an eval set.
var ErrNoSet = errors.New("no eval set given")

// ValidateOptions say what Validate checks.
type ValidateOptions struct {
	// Set is the eval set ("" = the config's); Corpus the corpus its gold
	// documents must be in ("" = the config's, or none); MaxLabelAge flags
	// older labels ("180d"; "" = the config's).
	Set, Corpus, MaxLabelAge string
	// Config is a recallgate.toml to check too ("" = none): its keys,
	// waivers (an expired one fails) and set; and, unless Offline, each
	// side's retriever is sent the preflight (Preflight).
	Config string
	// Offline sends nothing to any retriever.
	Offline bool
	// BaseRef, with Config, sends the preflight to the base side as that
	// commit's config builds it, in its tree (as gate --base-ref does);
	// TempDir is where that tree is made.
	BaseRef, TempDir string
	// Strict makes a retriever that answers the set's first query with
	// no hits an error (exit 3), not a warning.
	Strict bool
}

// Validate checks an eval set, and the config and corpus when given, and
// writes what it found to out, one "ok:", "agreement:" or "health:" line
// each. Gold documents missing from the corpus are an *gate.InputError
// listing every query with its line; a MaxLabelAge it cannot read is
// --max-label-age's usage error.
func Validate(ctx context.Context, e *Env, o ValidateOptions, out io.Writer) error {
	if o.MaxLabelAge != "" {
		if _, err := config.ParseAge(o.MaxLabelAge); err != nil {
			return cli.Usagef("--max-label-age: %v", err)
		}
	}
	var s *gate.Set
	var cfg *config.Config
	if o.Config != "" {
		// What the gate loads and refuses, in its order: the config, the
		// set with its query texts, the segment rules, then CheckConfig.
		c, set, err := LoadConfigSet(o.Config, o.Set)
		if err != nil {
			return err
		}
		cfg = c
		if err := CheckConfig(e, cfg, set, []string{"base", "head"}); err != nil {
			return err
		}
		// The gate without --base-ref takes every waiver as added.
		if err := cfg.CheckWaiverDays(cfg.AddedWaivers(nil), e.Clock(), cfg.MaxWaiverDays); err != nil {
			return err
		}
		s, o.Set = set, set.Path
		if o.Corpus == "" {
			o.Corpus = cfg.SideCorpus("head")
		}
		if o.MaxLabelAge == "" && cfg.MaxLabelAge > 0 {
			o.MaxLabelAge = fmt.Sprintf("%dd", int(cfg.MaxLabelAge.Hours()/24))
		}
		fmt.Fprintf(out, "ok: %s: config is valid (%d waivers)\n", cfg.Path, len(cfg.Waivers))
		if !o.Offline {
			var b *BaseSide
			if o.BaseRef != "" {
				if b, err = OpenBase(ctx, e, cfg, set, BaseOptions{Ref: o.BaseRef, TempDir: o.TempDir}); err != nil {
					return err
				}
				defer b.Tree.Close()
			}
			if err := Preflight(ctx, e, cfg, b, firstAnswerable(set), o.Strict, out); err != nil {
				return err
			}
		}
	} else {
		if o.Set == "" {
			return ErrNoSet
		}
		var err error
		if s, err = setfile.Load(o.Set); err != nil {
			return err
		}
	}
	graded, gold := 0, 0
	for _, q := range s.Queries {
		gold += len(q.Gold)
		for _, g := range q.Gold {
			if g > 1 {
				graded++
				break
			}
		}
	}
	fmt.Fprintf(out, "ok: %s: %d %s (%d answerable, %d unanswerable), %d gold %s, %d %s with graded labels\n",
		s.Path, len(s.Queries), gate.Plural(len(s.Queries), "query", "queries"), s.Answerable(), len(s.Queries)-s.Answerable(),
		gold, gate.Plural(gold, "label", "labels"), graded, gate.Plural(graded, "query", "queries"))
	if a, ok := agreement.Labellers(s); ok {
		fmt.Fprintf(out, "agreement: %d documents judged by both %s and %s: %.0f%% the same grade, Cohen's kappa %.2f (%s), quadratic-weighted %.2f, relevant or not %.2f\n",
			a.Pairs, a.A, a.B, 100*a.Observed, a.Kappa, kappaWords(a.Kappa), a.Weighted, a.Binary)
	}
	if err := judgeCalibration(cfg, s, out); err != nil {
		return err
	}
	disputed, decided, unsure := 0, 0, 0
	for _, q := range s.Queries {
		for _, d := range q.Disputes() {
			disputed++
			if d.Decided != nil {
				decided++
			}
		}
		if len(q.Unsure()) > 0 {
			unsure++
		}
	}
	if disputed+unsure > 0 {
		fmt.Fprintf(out, "adjudication: %d disputed documents (more than a grade apart, or relevant against not), %d decided; %d queries marked unsure; decide with: recallgate label --adjudicate\n", disputed, decided, unsure)
	}
	ho := sethealth.Options{Now: e.Clock()}
	if o.MaxLabelAge != "" {
		d, err := config.ParseAge(o.MaxLabelAge)
		if err != nil {
			return fmt.Errorf("max label age: %w", err)
		}
		ho.MaxLabelAge = d
	}
	var ids map[string]bool
	if o.Corpus != "" {
		snap, err := readCorpus(e, o.Corpus, "")
		if err != nil {
			return err
		}
		ids = snap.IDs()
		s.PlaceSections(snap.SectionLookup())
	}
	for _, h := range sethealth.Check(s, ho) {
		fmt.Fprintf(out, "health: %s\n", h)
	}
	if l := powerLine(s); l != "" {
		fmt.Fprintf(out, "power: %s\n", l)
	}
	if cfg != nil {
		if w := DepthWarning(cfg.Depth, len(ids)); w != "" {
			fmt.Fprintf(out, "warning: %s\n", w)
		}
	}
	if ids == nil {
		return nil
	}
	missing := sethealth.MissingGold(s, ids)
	if len(missing) == 0 {
		fmt.Fprintf(out, "ok: %s: all gold documents are among its %d documents\n", o.Corpus, len(ids))
		return nil
	}
	return missingGoldError(s, o.Corpus, "the corpus", missing)
}

// missingGoldError refuses the gold documents missing names (by query
// id) as a data-quality bug, every query by the set's file:line; where
// says which corpus lacks them.
func missingGoldError(s *gate.Set, corpus, where string, missing map[string][]string) error {
	qids := make([]string, 0, len(missing))
	for id := range missing {
		qids = append(qids, id)
	}
	sort.Slice(qids, func(i, j int) bool { return s.Query(qids[i]).Line < s.Query(qids[j]).Line })
	var lines []string
	for _, id := range qids {
		q := s.Query(id)
		keys := make([]string, len(missing[id]))
		for i, k := range missing[id] {
			keys[i] = k
			if why := q.MissingSection(k); why != "" {
				keys[i] = k + " (" + why + ")"
			}
		}
		lines = append(lines, fmt.Sprintf("%s:%d: query %s: gold not in corpus: %s", s.Path, q.Line, gate.ClipID(id), strings.Join(keys, ", ")))
	}
	return &gate.InputError{File: corpus, Err: fmt.Errorf("%d %s name gold documents missing from %s (a data-quality bug, not a retrieval failure):\n  %s",
		len(qids), gate.Plural(len(qids), "query", "queries"), where, strings.Join(lines, "\n  "))}
}

// CheckGoldHeld refuses, before anything is retrieved, the set's gold
// documents that neither side's corpus holds: a label naming a document
// nobody has is a data bug of the set (as validate says), never a
// regression nor a pass. head is the corpus the head side reads ("" when
// unknown: nothing is checked); base the base side's ("" or the same
// path when it is the head's). Gold only the head's corpus lacks is the
// change deleting it: left to the comparison. Each corpus is read once
// per run (Env.Corpora), the base's only when the head's lacks gold.
func CheckGoldHeld(e *Env, set *gate.Set, head, base string) error {
	snap, err := readCorpus(e, head, "")
	if snap == nil {
		return err
	}
	set.PlaceSections(snap.SectionLookup())
	missing := sethealth.MissingGold(set, snap.IDs())
	if len(missing) == 0 {
		return nil
	}
	where := "the corpus"
	if base != "" && base != head {
		where = "both sides' corpora (the base's and the head's)"
		held := func(string) bool { return false } // a base corpus that cannot be read holds nothing
		if b, err := readCorpus(e, base, ""); err == nil {
			held = holds(b)
		}
		for q, docs := range missing {
			docs = slices.DeleteFunc(docs, held)
			if len(docs) == 0 {
				delete(missing, q)
			} else {
				missing[q] = docs
			}
		}
		if len(missing) == 0 {
			return nil
		}
	}
	return missingGoldError(set, head, where, missing)
}

// holds reports whether a corpus holds what a gold key names: a
// document, or a section its document has (a heading the other side's
// corpus renamed is still the base's).
func holds(c *corpus.Snapshot) func(key string) bool {
	ids, lookup := c.IDs(), c.SectionLookup()
	return func(key string) bool {
		doc, anchor, ok := section.SplitKey(key)
		if !ok {
			return ids[key]
		}
		if !ids[doc] {
			return false
		}
		d := lookup(doc)
		if d == nil {
			return false
		}
		_, found := d.Find(anchor)
		return found
	}
}

// CheckConfig refuses what the gate refuses of a config and its set
// before any retrieval, beyond loading them (LoadConfigSet): expired
// waivers, a waiver of a query the set lacks, and a retriever table of
// sides that cannot be built (checked without building it). validate
// --config runs the same, so it refuses exactly what the gate refuses.
func CheckConfig(e *Env, cfg *config.Config, set *gate.Set, sides []string) error {
	if err := cfg.ExpiredWaivers(e.Clock()); err != nil {
		return err
	}
	for _, w := range cfg.Waivers {
		if set.Query(w.Query) == nil {
			return &gate.InputError{File: cfg.Path, Field: "waiver", Err: fmt.Errorf("waiver for query %q: no such query in %s", gate.ClipID(w.Query), set.Path)}
		}
	}
	for _, side := range sides {
		rc := SideTable(cfg, side)
		if rc == nil {
			continue // the gate names it when it needs the side
		}
		if err := retriever.Check(rc, retriever.Deps{ConfigPath: cfg.Path, Side: side, Getenv: e.Getenv}); err != nil {
			return err
		}
	}
	return nil
}

// kappaWords reads a kappa the usual way (Landis and Koch's bands).
func kappaWords(k float64) string {
	switch {
	case k < 0.2:
		return "poor: the labelling guide needs work before the labels can gate"
	case k < 0.4:
		return "fair: discuss the disagreements and sharpen the guide"
	case k < 0.6:
		return "moderate"
	case k < 0.8:
		return "substantial"
	}
	return "almost perfect"
}

// ScoringOptions are a scoring command's inputs: the config and set paths
// and the depths given on the command line (nil when not given).
type ScoringOptions struct {
	Config, Set         string
	Candidates, Context *int
	// Discover, with no Config, reads DefaultConfig in the current folder
	// when it is there, as gate does (its flag's default).
	Discover bool
}

// DefaultConfig is the config gate reads by default and score and compare
// find in the current folder without --config.
const DefaultConfig = "recallgate.toml"

// Scoring is what score and compare run with: the set, the depths and the
// thresholds, from the command line over the config over the defaults.
type Scoring struct {
	Set        *gate.Set
	Depth      gate.Depth
	Thresholds gate.Thresholds
	// Config is the loaded config, nil without one.
	Config *config.Config
	// Defaults names the depths neither a flag nor the config set
	// ("candidates", "context"): the defaults, said on the report's depth
	// line. Found says the config was DefaultConfig,
	// found in the current folder without --config.
	Defaults []string
	Found    bool
}

// LoadScoring merges the command line over the config over the defaults
// and loads the set. It returns ErrNoSet when neither names a set.
func LoadScoring(o ScoringOptions) (*Scoring, error) {
	s := &Scoring{Depth: gate.DefaultDepth(), Thresholds: gate.DefaultThresholds()}
	setPath := o.Set
	if o.Config == "" && o.Discover {
		if fi, err := os.Stat(DefaultConfig); err == nil && fi.Mode().IsRegular() {
			o.Config, s.Found = DefaultConfig, true
		}
	}
	if o.Config == "" {
		if o.Candidates == nil {
			s.Defaults = append(s.Defaults, "candidates")
		}
		if o.Context == nil {
			s.Defaults = append(s.Defaults, "context")
		}
	}
	if o.Config != "" {
		cfg, err := config.Load(o.Config)
		if err != nil {
			return nil, gate.AtStage(gate.StageConfig, "", err)
		}
		s.Depth, s.Thresholds, s.Config = cfg.Depth, cfg.Thresholds, cfg
		if setPath == "" {
			setPath = cfg.Set
		}
	}
	if o.Candidates != nil {
		s.Depth.Candidates = *o.Candidates
	}
	if o.Context != nil {
		s.Depth.Context = *o.Context
	}
	if err := s.Depth.Validate(); err != nil {
		return nil, &gate.InputError{File: o.Config, Field: "depth", Err: err}
	}
	if setPath == "" {
		return nil, ErrNoSet
	}
	var set *gate.Set
	var err error
	if s.Config != nil {
		set, err = LoadSetFor(s.Config, setPath) // its query texts too
	} else if set, err = setfile.Load(setPath); err != nil {
		err = fmt.Errorf("load set: %w", err)
	}
	if err != nil {
		return nil, gate.AtStage(gate.StageSet, "", err)
	}
	s.Set = set
	return s, nil
}

// Preflight sends each retriever the config names the preflight the
// gate sends before it retrieves, starting its service or program where
// the config says how (retriever.Preflight), then the set's first query
// (first; nil: none), and says on out what answered, each named by what
// was started: one [retriever] is "retriever (this checkout)", two tables
// "[base.retriever] (this checkout)" and "[head.retriever] (this
// checkout)"; with base (validate --base-ref) the base side is the base
// commit's table in its tree. A retriever that does not answer, or whose
// answer the table cannot read, is its error (exit 3 when it is down); an
// answer to the first query that holds no hits is a warning line, and
// with strict an *gate.InfraError (exit 3) once every side was asked.
func Preflight(ctx context.Context, e *Env, cfg *config.Config, base *BaseSide, first *gate.Query, strict bool, out io.Writer) error {
	type one struct {
		side, name string
		rc         *config.Retriever
	}
	var sides []one
	switch {
	case base != nil:
		bc := base.Sides(cfg)
		sides = []one{{"base", "base side (the tree of commit " + ShortSHA(base.Tree.Commit) + ")", bc.Base}, {"head", "head side (this checkout)", cfg.Head}}
	case cfg.Base == cfg.Head:
		sides = []one{{"head", "retriever (this checkout)", cfg.Head}}
	default:
		sides = []one{{"base", "[base.retriever] (this checkout)", cfg.Base}, {"head", "[head.retriever] (this checkout)", cfg.Head}}
	}
	var empty []string
	for _, s := range sides {
		if s.rc == nil {
			continue
		}
		p, err := retriever.Preflight(ctx, s.rc, retriever.Deps{ConfigPath: cfg.Path, Side: s.side, Getenv: e.Getenv, Stderr: e.Stderr,
			Client: e.HTTPClient(), Warn: func(w string) { e.Warn("%s", w) }, Fence: e.fence}, first, cfg.Depth.Candidates)
		if err != nil {
			return base.Named(gate.AtStage(gate.StageRetrieve, s.side, err))
		}
		if p.What == "" {
			continue
		}
		fmt.Fprintf(out, "ok: %s: %s answered the preflight query\n", s.name, p.What)
		switch {
		case p.Asked == "":
		case p.Hits == 0:
			msg := fmt.Sprintf("%s: %s answered %s with no hits: is its index empty? (the gate would score every query of the set as missed)", s.name, p.What, gate.ClipID(p.Asked))
			fmt.Fprintf(out, "warning: %s\n", msg)
			empty = append(empty, msg)
		default:
			fmt.Fprintf(out, "ok: %s answered %s with %d %s\n", s.name, gate.ClipID(p.Asked), p.Hits, gate.Plural(p.Hits, "hit", "hits"))
		}
	}
	if strict && len(empty) > 0 {
		return gate.AtStage(gate.StageRetrieve, "", &gate.InfraError{Err: fmt.Errorf("--strict: %s", strings.Join(empty, "; "))})
	}
	return nil
}

// firstAnswerable is the set's first query with gold (an unanswerable
// query may rightly find nothing), or its first query; nil for no query.
func firstAnswerable(s *gate.Set) *gate.Query {
	for _, q := range s.Queries {
		if len(q.Gold) > 0 {
			return q
		}
	}
	if len(s.Queries) > 0 {
		return s.Queries[0]
	}
	return nil
}

// powerLine says what the set can catch (setDetectability): the
// smallest mean recall drop it can call significant (the health line
// gives the set-size wording); "" for a set with no answerable query.
func powerLine(s *gate.Set) string {
	d := setDetectability(s)
	n := d.Queries
	switch {
	case n == 0:
		return ""
	case !d.FlipsKnown:
		return fmt.Sprintf("no drop can be significant on %d answerable %s: not even all of them moving the same way reaches p < 0.05 (the sign-flip test)", n, gate.Plural(n, "query", "queries"))
	case !d.DropKnown:
		return fmt.Sprintf("a drop is significant only when %d queries move the same way, and fewer than %d of the %d answerable queries have a relevant gold document to lose", d.MinFlips, d.MinFlips, n)
	}
	return fmt.Sprintf("the smallest mean recall drop these %d answerable queries can call significant is %.3f (%d queries each losing one of their relevant gold documents, sign-flip p < 0.05)",
		n, d.MinRecallDrop, d.MinFlips)
}

// setDetectability is what a set can call significant before any run:
// its answerable queries, each able to drop by one of its relevant gold
// documents (1/relevant of recall@N, the base finding them all), at gate.Alpha.
func setDetectability(s *gate.Set) gate.Detectability {
	var steps []float64
	for _, q := range s.Queries {
		if !q.Unanswerable && q.Relevant() > 0 {
			steps = append(steps, 1/float64(q.Relevant()))
		}
	}
	d := gate.Detectability{Queries: s.Answerable()}
	d.MinFlips, d.FlipsKnown = stats.MinFlipsAt(d.Queries, gate.Alpha)
	d.MinRecallDrop, d.DropKnown = stats.MinDropAt(steps, d.Queries, gate.Alpha)
	return d
}
