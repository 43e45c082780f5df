// The [gate] and [refusal] tables: the rules a config sets.

package config

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/recallgate/recallgate/gate"
)

// gateRules reads the [gate] rules and [[gate.segment]] tables into the
// thresholds; a bad value is an error naming its line and key.
func (c *Config) gateRules(raw rawConfig, data []byte) error {
	g := raw.Gate
	t := &c.Thresholds
	for _, r := range gate.Rules() {
		v, ok := g.Rules[r.Key]
		if !ok {
			continue
		}
		if r.Kind == gate.KindRatio && v <= 0 {
			return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", r.Key}), Field: "gate." + r.Key, Err: fmt.Errorf("must be a ratio above 0 such as 1.5 (leave it out to turn the rule off), got %v", v)}
		}
		r.Set(t, v)
	}
	if v := g.MinFlipped; v != nil {
		if *v < 1 {
			return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "min_flipped"}), Field: "gate.min_flipped", Err: fmt.Errorf("must be at least 1 (1: any drop beyond the limit counts), got %d", *v)}
		}
		t.MinFlipped = *v
	}
	if v := g.MinSegmentQueries; v != nil {
		if *v < 1 {
			return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "min_segment_queries"}), Field: "gate.min_segment_queries", Err: fmt.Errorf("must be at least 1, got %d", *v)}
		}
		t.MinSegmentQueries = *v
	}
	if err := gate.CheckUnjudgedMode(g.Unjudged); err != nil {
		return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "unjudged"}), Field: "gate.unjudged", Err: err}
	}
	// The default written out is the default: the same policy fingerprint.
	if g.Unjudged != gate.UnjudgedNonRelevant {
		t.Unjudged = g.Unjudged
	}
	t.RequireSignificance = g.RequireSignificance
	if t.MaxBaselineDrop != nil && strings.TrimSpace(raw.Baseline) == "" {
		// Fail closed: a rule with nothing to measure against is refused,
		// never skipped.
		return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "max_baseline_drop"}), Field: "gate.max_baseline_drop",
			Err: errors.New(`needs the reviewed baseline run to hold the head against: a top-level baseline = "baselines/head.jsonl" (before the first table), written by recallgate gate --write-baseline and committed`)}
	}
	if v := g.Margin; v != nil {
		if *v < 0 || *v >= 1 || math.IsNaN(*v) {
			return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "margin"}), Field: "gate.margin", Err: fmt.Errorf("must be a drop within 0–1 such as 0.02 (leave it out to turn the rule off), got %v", *v)}
		}
		t.Margin = v
	}
	if t.RequireProof = g.RequireProof; t.RequireProof && t.Margin == nil {
		return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "require_proof"}), Field: "gate.require_proof", Err: errors.New("needs a margin to prove: set [gate] margin = 0.02 (the largest drop the set must rule out)")}
	}
	for i, s := range g.Segment {
		var l gate.Limits
		for _, r := range gate.Rules() {
			if v, ok := s.Rules[r.Key]; ok {
				r.SetIn(&l, v)
			}
		}
		t.Segments = append(t.Segments, gate.SegmentRule{Name: s.Name, File: c.Path, Line: arrayKeyLine(data, "gate.segment", i, "name"), Limits: l})
	}
	if err := t.Validate(); err != nil {
		ie := &gate.InputError{File: c.Path, Field: "gate", Err: err}
		var re *gate.RuleError
		if errors.As(err, &re) {
			ie.Err = re.Err
			ie.Field = "gate." + re.Key
			ie.Line = keyLine(data, toml.Key{"gate", re.Key})
			var i int
			var key string
			if n, _ := fmt.Sscanf(re.Key, "segment[%d].%s", &i, &key); n == 2 {
				ie.Line = arrayKeyLine(data, "gate.segment", i, key)
			} else if n, _ := fmt.Sscanf(re.Key, "segment[%d]", &i); n == 1 {
				ie.Line = arrayKeyLine(data, "gate.segment", i, "")
			}
		}
		return ie
	}
	return nil
}

// refusalRules reads [refusal] min_score, the rule of both sides, and
// [base.refusal] and [head.refusal], each side's own over it. A bad value
// is an error naming its line and key.
func (c *Config) refusalRules(raw rawConfig, data []byte) error {
	tables := []struct {
		key []string
		r   *rawRefusal
	}{{[]string{"refusal"}, raw.Refusal}}
	if raw.Base != nil {
		tables = append(tables, struct {
			key []string
			r   *rawRefusal
		}{[]string{"base", "refusal"}, raw.Base.Refusal})
	}
	if raw.Head != nil {
		tables = append(tables, struct {
			key []string
			r   *rawRefusal
		}{[]string{"head", "refusal"}, raw.Head.Refusal})
	}
	for _, t := range tables {
		if t.r == nil {
			continue
		}
		key := append(append([]string{}, t.key...), "min_score")
		field := strings.Join(key, ".")
		v := t.r.MinScore
		switch {
		case v == nil:
			return &gate.InputError{File: c.Path, Line: keyLine(data, t.key), Field: field, Err: errors.New("required in a refusal table: the top hit's score under which the pipeline refuses, e.g. min_score = 0.42")}
		case math.IsNaN(*v) || math.IsInf(*v, 0):
			return &gate.InputError{File: c.Path, Line: keyLine(data, key), Field: field, Err: fmt.Errorf("must be a number, got %v", *v)}
		}
		switch t.key[0] {
		case "refusal":
			c.Refusal[0].MinScore, c.Refusal[1].MinScore = v, v
		case "base":
			c.Refusal[0].MinScore = v
		case "head":
			c.Refusal[1].MinScore = v
		}
	}
	return nil
}
