package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/retriever"
	"github.com/recallgate/recallgate/gate/setfile"
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
}

// Validate checks an eval set, and the config and corpus when given, and
// writes what it found to out, one "ok:", "agreement:" or "health:" line
// each. Gold documents missing from the corpus are an *gate.InputError
// listing every query with its line.
func Validate(ctx context.Context, e *Env, o ValidateOptions, out io.Writer) error {
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
			if err := Preflight(ctx, e, cfg, out); err != nil {
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
	if a, ok := gate.LabellerAgreement(s); ok {
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
	ho := gate.HealthOptions{Now: e.Clock()}
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
	for _, h := range gate.Health(s, ho) {
		fmt.Fprintf(out, "health: %s\n", h)
	}
	if cfg != nil {
		if w := DepthWarning(cfg.Depth, len(ids)); w != "" {
			fmt.Fprintf(out, "warning: %s\n", w)
		}
	}
	if ids == nil {
		return nil
	}
	missing := gate.MissingGold(s, ids)
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
	missing := gate.MissingGold(set, snap.IDs())
	if len(missing) == 0 {
		return nil
	}
	where := "the corpus"
	if base != "" && base != head {
		where = "both sides' corpora (the base's and the head's)"
		var held map[string]bool // a base corpus that cannot be read holds nothing
		if b, err := readCorpus(e, base, ""); err == nil {
			held = b.IDs()
		}
		for q, docs := range missing {
			docs = slices.DeleteFunc(docs, func(d string) bool { return held[d] })
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
}

// Scoring is what score and compare run with: the set, the depths and the
// thresholds, from the command line over the config over the defaults.
type Scoring struct {
	Set        *gate.Set
	Depth      gate.Depth
	Thresholds gate.Thresholds
	// Config is the loaded config, nil without one.
	Config *config.Config
}

// LoadScoring merges the command line over the config over the defaults
// and loads the set. It returns ErrNoSet when neither names a set.
func LoadScoring(o ScoringOptions) (*Scoring, error) {
	s := &Scoring{Depth: gate.DefaultDepth(), Thresholds: gate.DefaultThresholds()}
	setPath := o.Set
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

// Preflight sends each side's retriever (base, then head; one table
// once) the preflight the gate sends before it retrieves, starting its
// service or program where the config says how (retriever.Preflight), and
// says on out what answered. A retriever that does not answer, or whose
// answer the table cannot read, is its error (exit 3 when it is down).
func Preflight(ctx context.Context, e *Env, cfg *config.Config, out io.Writer) error {
	for _, side := range []string{"base", "head"} {
		rc := SideTable(cfg, side)
		if rc == nil || (side == "head" && rc == cfg.Base) {
			continue
		}
		what, err := retriever.Preflight(ctx, rc, retriever.Deps{ConfigPath: cfg.Path, Side: side, Getenv: e.Getenv, Stderr: e.Stderr,
			Client: e.HTTPClient(), Warn: func(s string) { e.Warn("%s", s) }, Fence: e.fence})
		if err != nil {
			return gate.AtStage(gate.StageRetrieve, side, err)
		}
		if what != "" {
			fmt.Fprintf(out, "ok: %s side: %s answered the preflight query\n", side, what)
		}
	}
	return nil
}
