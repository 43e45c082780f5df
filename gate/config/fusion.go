package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/fusion"
)

// FusionBaseline is how a [fusion.NAME] table's of names the baseline.
const FusionBaseline = "baseline"

// Fusion is one [fusion.NAME] table: a candidate an experiment makes by
// fusing the runs of two or more of its rows, no retrieval of its own.
type Fusion struct {
	// Name is NAME, as written (untrusted: every report escapes it).
	Name string
	// Of names the inputs: variant names, or FusionBaseline for the base
	// side, in the order weights are given.
	Of []string
	// Method and Norm are the fusion's (Norm "" for rrf).
	Method, Norm string
	// K are rrf's constants (one, or a swept list); nil for a score method.
	K []float64
	// Weights are fixed weights, one per input; nil when not given or
	// swept (Grid > 0).
	Weights []float64
	// Grid is the step of a swept weight simplex ("grid:0.1"), 0 when the
	// weights are not swept.
	Grid float64
	// Target is the metric a sweep chooses by: fusion.TargetNDCG or
	// fusion.TargetRecall.
	Target string
	// Line is the table's line in the config.
	Line int
}

// Settings are the fusion's settings: one, or every point of its k list
// and weight grid.
func (f Fusion) Settings() []fusion.Setting {
	ks := f.K
	if ks == nil {
		ks = []float64{0}
	}
	ws := [][]float64{f.Weights}
	if f.Grid > 0 {
		ws, _ = fusion.Grid(len(f.Of), f.Grid) // checked when read
	}
	var out []fusion.Setting
	for _, k := range ks {
		for _, w := range ws {
			out = append(out, fusion.Setting{Method: f.Method, Norm: f.Norm, K: k, Weights: w})
		}
	}
	return out
}

// size is how many settings the fusion sweeps, without making them.
func (f Fusion) size() int {
	n := max(1, len(f.K))
	if f.Grid > 0 {
		n *= fusion.GridSize(len(f.Of), f.Grid)
	}
	return n
}

// Swept says whether the fusion has more than one setting.
func (f Fusion) Swept() bool { return f.size() > 1 }

// Fusion returns the fusion of that name, or nil.
func (c *Config) Fusion(name string) *Fusion {
	for i := range c.Fusions {
		if c.Fusions[i].Name == name {
			return &c.Fusions[i]
		}
	}
	return nil
}

// rawFusion is one [fusion.NAME] table as written.
type rawFusion struct {
	Of      []string `toml:"of"`
	Method  string   `toml:"method"`
	Norm    string   `toml:"norm"`
	K       any      `toml:"k"`
	Weights any      `toml:"weights"`
	Target  string   `toml:"target"`
}

// fusions reads the [fusion.NAME] tables in the file's order. A name reads
// apart from the variants' and the baseline's; every input is a variant
// or the baseline; the sweeps hold at most fusion.MaxCandidates settings
// in all. Each error names the file, the line and the key.
func (c *Config) fusions(raw rawConfig, md toml.MetaData, data []byte) error {
	if len(raw.Fusion) == 0 {
		return nil
	}
	var order []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == "fusion" && !seen[k[1]] {
			seen[k[1]] = true
			order = append(order, k[1])
		}
	}
	reads := map[string]string{ReadsAs(BaselineName): BaselineName}
	for _, v := range c.Variants {
		reads[ReadsAs(v.Name)] = v.Name
	}
	total := 0
	for _, name := range order {
		line := keyLine(data, toml.Key{"fusion", name})
		errAt := func(key string, err error) error {
			l, field := line, "fusion."+name
			if key != "" {
				field += "." + key
				if kl := keyLine(data, toml.Key{"fusion", name, key}); kl > 0 {
					l = kl
				}
			}
			return &gate.InputError{File: c.Path, Line: l, Field: field, Err: err}
		}
		if err := checkVariantName(name); err != nil {
			return errAt("", err)
		}
		if other, ok := reads[ReadsAs(name)]; ok {
			return errAt("", fmt.Errorf("the name %q reads as %q, a row of the leaderboard already: two rows would read the same; name them apart", name, other))
		}
		reads[ReadsAs(name)] = name
		f, err := c.fusion(name, raw.Fusion[name])
		if err != nil {
			var fe *fusionKeyError
			if errors.As(err, &fe) {
				return errAt(fe.key, fe.err)
			}
			return errAt("", err)
		}
		f.Line = line
		if len(c.Fusions) > 0 && f.Target != c.Fusions[0].Target {
			return errAt("target", fmt.Errorf("%q, but fusion %q chooses by %q: an experiment's fusions and its winner are chosen by one metric", f.Target, c.Fusions[0].Name, c.Fusions[0].Target))
		}
		total += f.size()
		if total > fusion.MaxCandidates {
			return errAt("", fmt.Errorf("%d fused candidates in all so far (a list of k or a grid of weights counts each point): at most %d; sweep a coarser grid or fewer k", total, fusion.MaxCandidates))
		}
		c.Fusions = append(c.Fusions, f)
	}
	return nil
}

// fusionKeyError is a bad value of one key of a [fusion.NAME] table.
type fusionKeyError struct {
	key string
	err error
}

func (e *fusionKeyError) Error() string { return e.key + ": " + e.err.Error() }

// keyErr is a fusionKeyError.
func keyErr(key, format string, args ...any) error {
	return &fusionKeyError{key: key, err: fmt.Errorf(format, args...)}
}

// fusion checks one table's values.
func (c *Config) fusion(name string, t *rawFusion) (Fusion, error) {
	f := Fusion{Name: name, Method: t.Method, Norm: t.Norm, Target: t.Target}
	if t.Target == "" {
		f.Target = fusion.TargetNDCG
	}
	if f.Target != fusion.TargetNDCG && f.Target != fusion.TargetRecall {
		return f, keyErr("target", "%q: recall or ndcg", t.Target)
	}
	if len(t.Of) < 2 {
		return f, keyErr("of", "name two or more inputs (variant names, or %q), got %d", FusionBaseline, len(t.Of))
	}
	for i, o := range t.Of {
		if o != FusionBaseline && c.Variant(o) == nil {
			var names []string
			for _, v := range c.Variants {
				names = append(names, strconv.Quote(v.Name))
			}
			return f, keyErr("of", "%q is no variant of this file (the variants: %s; the base side is %q)", o, strings.Join(names, ", "), FusionBaseline)
		}
		if slices.Contains(t.Of[:i], o) {
			return f, keyErr("of", "%q is named twice", o)
		}
	}
	f.Of = t.Of
	if !slices.Contains(fusion.Methods, f.Method) {
		return f, keyErr("method", "%q: one of %s", t.Method, strings.Join(fusion.Methods, ", "))
	}
	switch {
	case f.Method == fusion.RRF && f.Norm != "":
		return f, keyErr("norm", "rrf fuses ranks, not scores: leave norm out")
	case f.Method != fusion.RRF && f.Norm == "":
		f.Norm = fusion.MinMax
	case f.Method != fusion.RRF && !slices.Contains(fusion.Norms, f.Norm):
		return f, keyErr("norm", "%q: one of %s", f.Norm, strings.Join(fusion.Norms, ", "))
	}
	ks, err := numbers(t.K)
	switch {
	case err != nil:
		return f, keyErr("k", "%v", err)
	case t.K != nil && f.Method != fusion.RRF:
		return f, keyErr("k", "k is rrf's constant: %s does not read it", f.Method)
	case f.Method == fusion.RRF && t.K == nil:
		ks = []float64{fusion.DefaultK}
	}
	for _, k := range ks {
		if k <= 0 {
			return f, keyErr("k", "must be above 0, got %v", k)
		}
	}
	f.K = ks
	if t.Weights == nil {
		if f.Method == fusion.WSum {
			for range f.Of {
				f.Weights = append(f.Weights, 1/float64(len(f.Of)))
			}
		}
		return f, nil
	}
	if f.Method != fusion.WSum && f.Method != fusion.RRF {
		return f, keyErr("weights", "%s takes no weights (wsum and rrf do)", f.Method)
	}
	if s, ok := t.Weights.(string); ok {
		step, found := strings.CutPrefix(s, "grid:")
		v, err := strconv.ParseFloat(step, 64)
		if !found || err != nil {
			return f, keyErr("weights", "%q: a list of numbers, or \"grid:0.1\" to sweep the weights", s)
		}
		if _, err := fusion.Grid(2, v); err != nil {
			return f, keyErr("weights", "%v", err)
		}
		if n := fusion.GridSize(len(f.Of), v); n > fusion.MaxCandidates {
			return f, keyErr("weights", "%q over %d inputs is %d fused candidates: at most %d", s, len(f.Of), n, fusion.MaxCandidates)
		}
		f.Grid = v
		return f, nil
	}
	w, err := numbers(t.Weights)
	if err != nil {
		return f, keyErr("weights", "%v", err)
	}
	if len(w) != len(f.Of) {
		return f, keyErr("weights", "%d weights for %d inputs: one each, in of's order", len(w), len(f.Of))
	}
	sum := 0.0
	for _, x := range w {
		if x < 0 {
			return f, keyErr("weights", "a weight is at least 0, got %v", x)
		}
		sum += x
	}
	if sum <= 0 {
		return f, keyErr("weights", "the weights sum to 0: nothing would count")
	}
	f.Weights = w
	return f, nil
}

// numbers reads a number or a list of numbers (nil: none).
func numbers(v any) ([]float64, error) {
	one := func(x any) (float64, error) {
		switch n := x.(type) {
		case int64:
			return float64(n), nil
		case float64:
			return n, nil
		}
		return 0, fmt.Errorf("%v is not a number", x)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		if len(x) == 0 {
			return nil, errors.New("an empty list: give one number or several")
		}
		out := make([]float64, len(x))
		for i, e := range x {
			n, err := one(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	n, err := one(v)
	if err != nil {
		return nil, err
	}
	return []float64{n}, nil
}
