// Package config reads recallgate.toml, the file that names the eval set, the
// two depths, the gate thresholds and the base and head retrievers. Decoding
// is strict: a key recallgate does not know is an error, so a typo can never
// silently fall back to a default.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/recallgate/recallgate/gate"
)

// Config is a loaded recallgate.toml with defaults applied and paths resolved
// relative to the config file's folder.
type Config struct {
	// Path is the config file as given.
	Path string
	// Set is the eval set path, or "" when the file names none.
	Set string
	// Depth holds the candidate and context depths.
	Depth gate.Depth
	// Thresholds decide the verdict.
	Thresholds gate.Thresholds
	// Base and Head are the two retriever configurations; nil when the file
	// has none. With a single [retriever] table both point to it.
	Base, Head *Retriever
}

// Retriever configures one side's retriever.
type Retriever struct {
	// Type names the retriever kind, e.g. "file".
	Type string `toml:"type"`
	// Path is the run file of a "file" retriever, resolved like Set.
	Path string `toml:"path"`
}

// side is a [base] or [head] table.
type side struct {
	Retriever *Retriever `toml:"retriever"`
}

type rawConfig struct {
	Set   string `toml:"set"`
	Depth struct {
		Candidates *int `toml:"candidates"`
		Context    *int `toml:"context"`
	} `toml:"depth"`
	Gate struct {
		MaxRecallDrop *float64 `toml:"max_recall_drop"`
		MaxNewMisses  *int     `toml:"max_new_misses"`
	} `toml:"gate"`
	Retriever *Retriever `toml:"retriever"`
	Base      *side      `toml:"base"`
	Head      *side      `toml:"head"`
}

// Load reads and validates a config file. Every error is a *gate.InputError
// naming the file (and the line, for syntax errors).
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &gate.InputError{File: path, Err: fmt.Errorf("read config: %w", err)}
	}
	return Parse(data, path)
}

// Parse decodes a config held in memory; name is the file it came from, used
// for messages and for resolving relative paths.
func Parse(data []byte, name string) (*Config, error) {
	var raw rawConfig
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &gate.InputError{File: name, Line: pe.Position.Line, Err: errors.New(pe.Message)}
		}
		return nil, &gate.InputError{File: name, Err: err}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return nil, &gate.InputError{File: name, Field: keys[0], Err: fmt.Errorf("unknown key (unknown: %s)", strings.Join(keys, ", "))}
	}
	dir := filepath.Dir(name)
	c := &Config{Path: name, Depth: gate.DefaultDepth(), Thresholds: gate.DefaultThresholds()}
	if raw.Set != "" {
		c.Set = resolve(dir, raw.Set)
	}
	if v := raw.Depth.Candidates; v != nil {
		c.Depth.Candidates = *v
	}
	if v := raw.Depth.Context; v != nil {
		c.Depth.Context = *v
	}
	if err := c.Depth.Validate(); err != nil {
		return nil, &gate.InputError{File: name, Field: "depth", Err: err}
	}
	if v := raw.Gate.MaxRecallDrop; v != nil {
		c.Thresholds.MaxRecallDrop = *v
	}
	if v := raw.Gate.MaxNewMisses; v != nil {
		c.Thresholds.MaxNewMisses = *v
	}
	if err := c.Thresholds.Validate(); err != nil {
		return nil, &gate.InputError{File: name, Field: "gate", Err: err}
	}
	if err := c.sides(raw, dir); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) sides(raw rawConfig, dir string) error {
	hasBase := raw.Base != nil && raw.Base.Retriever != nil
	hasHead := raw.Head != nil && raw.Head.Retriever != nil
	switch {
	case raw.Retriever != nil && (hasBase || hasHead):
		return &gate.InputError{File: c.Path, Field: "retriever", Err: errors.New("use either [retriever] or [base.retriever] and [head.retriever], not both")}
	case raw.Retriever != nil:
		c.Base, c.Head = raw.Retriever, raw.Retriever
	case hasBase != hasHead:
		return &gate.InputError{File: c.Path, Field: "retriever", Err: errors.New("[base.retriever] and [head.retriever] go together: one is missing")}
	case hasBase:
		c.Base, c.Head = raw.Base.Retriever, raw.Head.Retriever
	}
	if c.Base == nil {
		return nil
	}
	if err := c.prepare(c.Base, dir, "base.retriever"); err != nil {
		return err
	}
	if c.Head != c.Base {
		return c.prepare(c.Head, dir, "head.retriever")
	}
	return nil
}

// prepare checks one retriever table and resolves its paths.
func (c *Config) prepare(r *Retriever, dir, table string) error {
	if r.Type == "" {
		return &gate.InputError{File: c.Path, Field: table + ".type", Err: errors.New("required")}
	}
	if r.Path != "" {
		r.Path = resolve(dir, r.Path)
	}
	return nil
}

// resolve makes p relative to the config's folder unless it is absolute.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
