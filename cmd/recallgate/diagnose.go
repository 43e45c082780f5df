package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
)

// inputs is what a comparison needs besides the two scorecards.
type inputs struct {
	pol          gate.Policy
	health       []string
	fingerprints [][2]string
	noChart      bool
	notes        []string
}

// corpusFor picks the corpus that attribution and health check gold
// documents against: the flag, the config's `corpus`, else the head's
// builtin retriever's corpus.
func corpusFor(flagValue string, cfg *config.Config) string {
	switch {
	case flagValue != "":
		return flagValue
	case cfg == nil:
		return ""
	case cfg.Corpus != "":
		return cfg.Corpus
	case cfg.Head != nil && cfg.Head.Type == "builtin":
		return cfg.Head.Corpus
	}
	return ""
}

// buildInputs checks the waivers against today, reads the corpus ids and
// runs the eval-set health check.
func buildInputs(e *env, cfg *config.Config, th gate.Thresholds, set *gate.Set, corpus string) (*inputs, error) {
	in := &inputs{pol: gate.Policy{Thresholds: th}}
	ho := gate.HealthOptions{Now: e.clock()}
	if cfg != nil {
		if err := cfg.ExpiredWaivers(e.clock()); err != nil {
			return nil, err
		}
		in.pol.Waivers = cfg.Waivers
		ho.MaxLabelAge = cfg.MaxLabelAge
		in.noChart = cfg.NoChart
	}
	if corpus != "" {
		ids := map[string]bool{}
		if err := gate.WalkCorpus(corpus, func(d gate.Document) error { ids[d.ID] = true; return nil }); err != nil {
			return nil, fmt.Errorf("read corpus for attribution: %w", err)
		}
		in.pol.Corpus = ids
		ho.Corpus = ids
	}
	in.health = gate.Health(set, ho)
	in.fingerprints = append(in.fingerprints, [2]string{"set", set.Fingerprint})
	if cfg != nil {
		in.fingerprints = append(in.fingerprints, [2]string{"config", fingerprintFile(cfg.Path)})
	}
	return in, nil
}

// addSides records each side's retriever config and corpus fingerprints
// and its latency.
func (in *inputs) addSides(runs map[string]sideRun) {
	for i, side := range []string{"base", "head"} {
		r, ok := runs[side]
		if !ok {
			continue
		}
		in.pol.Latency[i] = r.latency()
		if r.config != "" {
			in.fingerprints = append(in.fingerprints, [2]string{side + "_config", r.config})
		}
		if r.corpus != "" {
			in.fingerprints = append(in.fingerprints, [2]string{side + "_corpus", r.corpus})
		}
	}
}

// stability finds the queries whose top-N documents differ between repeats
// of one side, and the largest spread of mean recall@N between two repeats
// of the base: the noise floor a real change must clear.
func stability(set *gate.Set, d gate.Depth, runs map[string]sideRun) (map[string]bool, float64, error) {
	unstable := map[string]bool{}
	floor := 0.0
	for _, side := range []string{"base", "head"} {
		r, ok := runs[side]
		if !ok || len(r.results) < 2 {
			continue
		}
		var cards []*gate.Scorecard
		for _, res := range r.results {
			c, err := gate.ScoreResults(set, res, d)
			if err != nil {
				return nil, 0, err
			}
			cards = append(cards, c)
		}
		for i := range cards[0].Queries {
			first := strings.Join(cards[0].Queries[i].Docs, "\x00")
			for _, c := range cards[1:] {
				if strings.Join(c.Queries[i].Docs, "\x00") != first {
					unstable[cards[0].Queries[i].ID] = true
				}
			}
		}
		if side == "base" {
			for _, a := range cards {
				for _, b := range cards {
					floor = math.Max(floor, math.Abs(a.Summary.Recall-b.Summary.Recall))
				}
			}
		}
	}
	return unstable, floor, nil
}

// identicalSides refuses a gate that cannot fail: both sides the same
// retriever configuration in the same tree. allow turns the refusal into a
// warning, for a deliberate self-check.
//
// oneTable is the fix for one [retriever] table (how to give the base side
// another tree); two identical tables are told to change one.
func identicalSides(e *env, cfg *config.Config, allow bool, oneTable string) error {
	var what, fix string
	switch {
	case cfg.Base == nil || cfg.Head == nil:
		return nil
	case cfg.Base == cfg.Head:
		what, fix = "base and head are the same [retriever] in the same tree", oneTable
	case cfg.Base.Fingerprint() == cfg.Head.Fingerprint():
		what, fix = "[base.retriever] and [head.retriever] are identical", "change one of them; --allow-identical (the action's allow-identical input) runs it anyway"
	default:
		return nil
	}
	if allow {
		e.warn("%s: %s: the gate compares the configuration with itself and cannot fail (allowed)", cfg.Path, what)
		return nil
	}
	return &gate.InputError{File: cfg.Path, Field: "retriever", Err: fmt.Errorf("%s, so this gate cannot fail: %s", what, fix)}
}
