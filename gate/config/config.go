// Package config reads recallgate.toml, the file that names the eval set, the
// two depths, the gate thresholds and the base and head retrievers. Decoding
// is strict: a key recallgate does not know is an error, so a typo can never
// silently fall back to a default.
package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/childenv"
	"github.com/recallgate/recallgate/gate/retriever/spec"
)

// Config is a loaded recallgate.toml with defaults applied and paths resolved
// relative to the config file's folder.
type Config struct {
	// Path is the config file as given.
	Path string
	// Set is the eval set path, or "" when the file names none.
	Set string
	// Queries gives the query texts of a qrels set (BEIR queries JSONL).
	Queries string
	// Depth holds the candidate and context depths.
	Depth gate.Depth
	// Thresholds decide the verdict.
	Thresholds gate.Thresholds
	// Base and Head are the two retriever configurations; nil when the file
	// has none. With a single [retriever] table both point to it.
	Base, Head *Retriever
	// Repeats runs each side this many times to find unstable queries (1 = once).
	Repeats int
	// Waivers accept known regressions until they expire.
	Waivers []gate.Waiver
	// MaxWaiverDays is the longest a new waiver may run from today
	// ([gate] max_waiver_days, default DefaultMaxWaiverDays).
	MaxWaiverDays int
	// waiverLines are the lines of each waiver's expires key (0 unknown).
	waiverLines []int
	// MaxLabelAge flags queries whose `verified` date is older (0 = off).
	MaxLabelAge time.Duration
	// Corpus is the corpus the eval set's gold documents should be in, for
	// attribution and health; "" falls back to a builtin retriever's corpus.
	Corpus string
	// CacheDir keeps retrieved runs (and builtin indexes) between jobs,
	// e.g. under actions/cache; "" turns caching off.
	CacheDir string
	// Baseline is the reviewed baseline run (the top-level baseline key)
	// that [gate] max_baseline_drop holds the head against; "" when the
	// file names none. On a pull request the base commit's config names
	// it and the base commit's tree holds it.
	Baseline string
	// BaselineLine is the baseline key's line (0 when unknown).
	BaselineLine int
	// baselineKey is the baseline key as written, for PolicyChanges.
	baselineKey string
	// NoChart leaves the Mermaid chart out of Markdown reports.
	NoChart bool
	// Name is the gate's name ([report] name): it keys the sticky comment
	// and titles the reports, for a repository with several gates.
	Name string
	// GradeNames name the labelling page's grades, 0 first ([label]
	// grades); Guideline is the team's one-line rule shown above them.
	GradeNames []string
	Guideline  string
	// Refusal is each side's own refusal rule ([refusal], or
	// [base.refusal] and [head.refusal] over it): base first.
	Refusal [2]gate.Refusal
	// Variants are the [variant.NAME.retriever] tables an experiment
	// ranks against the base, in the order the file gives them.
	Variants []Variant
	// Fusions are the [fusion.NAME] tables an experiment fuses from its
	// rows' runs, in the order the file gives them.
	Fusions []Fusion
	// Judge is the [judge] table, nil without one.
	Judge *Judge
}

// Retriever configures one side's retriever: the table type lives beside
// the retrievers, in gate/retriever/spec.
type Retriever = spec.Retriever

// Duration is a time.Duration written as a string in TOML ("10s").
type Duration = spec.Duration

// side is a [base] or [head] table.
type side struct {
	Retriever *Retriever  `toml:"retriever"`
	Refusal   *rawRefusal `toml:"refusal"`
}

// rawRefusal is a [refusal] table: the pipeline's own rule for refusing.
type rawRefusal struct {
	MinScore *float64 `toml:"min_score"`
}

// rawSegment is one [[gate.segment]] table.
type rawSegment struct {
	Name string `toml:"name"`
	// Rules are the registered rules the segment sets (see rawType).
	Rules ruleValues `toml:"-"`
}

type rawConfig struct {
	Set     string `toml:"set"`
	Queries string `toml:"queries"`
	Depth   struct {
		Candidates *int `toml:"candidates"`
		Context    *int `toml:"context"`
	} `toml:"depth"`
	Corpus   string `toml:"corpus"`
	CacheDir string `toml:"cache_dir"`
	Baseline string `toml:"baseline"`
	Gate     struct {
		MinFlipped          *int         `toml:"min_flipped"`
		MinSegmentQueries   *int         `toml:"min_segment_queries"`
		RequireSignificance bool         `toml:"require_significance"`
		Repeats             int          `toml:"repeats"`
		MaxWaiverDays       *int         `toml:"max_waiver_days"`
		MinJudgeAgreement   *float64     `toml:"min_judge_agreement"`
		MinJudgeOverlap     *int         `toml:"min_judge_overlap"`
		Margin              *float64     `toml:"margin"`
		RequireProof        bool         `toml:"require_proof"`
		Unjudged            string       `toml:"unjudged"`
		Segment             []rawSegment `toml:"segment"`
		// Rules are the registered rules [gate] sets (see rawType).
		Rules ruleValues `toml:"-"`
	} `toml:"gate"`
	Report struct {
		Below         *float64 `toml:"below"`
		ContextTokens int      `toml:"context_tokens"`
		MaxLabelAge   string   `toml:"max_label_age"`
		Chart         *bool    `toml:"chart"`
		Name          string   `toml:"name"`
	} `toml:"report"`
	Label struct {
		Grades    []string `toml:"grades"`
		Guideline string   `toml:"guideline"`
	} `toml:"label"`
	Waiver []struct {
		Query   string   `toml:"query"`
		Reason  string   `toml:"reason"`
		Expires string   `toml:"expires"`
		Rules   []string `toml:"rules"`
	} `toml:"waiver"`
	Retriever *Retriever               `toml:"retriever"`
	Refusal   *rawRefusal              `toml:"refusal"`
	Base      *side                    `toml:"base"`
	Head      *side                    `toml:"head"`
	Variant   map[string]*variantTable `toml:"variant"`
	Fusion    map[string]*rawFusion    `toml:"fusion"`
	Judge     *Judge                   `toml:"judge"`
}

// Load reads and validates a config file. Every error is a *gate.InputError
// naming the file (and the line, for syntax errors); one wrapping
// fs.ErrNotExist when there is no file. A path that is not a regular file
// (a FIFO, /dev/zero, a file under /proc) is refused before it is read,
// and a file larger than gate.MaxConfigBytes is refused.
func Load(path string) (*Config, error) {
	data, err := gate.ReadInputFile(path, "config", gate.MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse decodes a config held in memory; name is the file it came from, used
// for messages and for resolving relative paths.
func Parse(data []byte, name string) (*Config, error) {
	raw, md, err := decodeConfig(data, name)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(name)
	c := &Config{Path: name, Depth: gate.DefaultDepth(), Thresholds: gate.DefaultThresholds()}
	if raw.Set != "" {
		c.Set = resolve(dir, raw.Set)
	}
	if raw.Queries != "" {
		c.Queries = resolve(dir, raw.Queries)
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
	if err := c.gateRules(raw, data); err != nil {
		return nil, err
	}
	if err := c.refusalRules(raw, data); err != nil {
		return nil, err
	}
	if err := c.judgePolicy(raw, data); err != nil {
		return nil, err
	}
	if err := c.judge(raw, data, filepath.Dir(name)); err != nil {
		return nil, err
	}
	c.Repeats = raw.Gate.Repeats
	if c.Repeats == 0 {
		c.Repeats = 1
	}
	if c.Repeats < 1 || c.Repeats > 20 {
		return nil, &gate.InputError{File: name, Field: "gate.repeats", Err: fmt.Errorf("must be within 1 and 20, got %d", raw.Gate.Repeats)}
	}
	c.MaxWaiverDays = DefaultMaxWaiverDays
	if v := raw.Gate.MaxWaiverDays; v != nil {
		if *v < 1 {
			return nil, &gate.InputError{File: name, Line: keyLine(data, toml.Key{"gate", "max_waiver_days"}), Field: "gate.max_waiver_days", Err: fmt.Errorf("must be at least 1 day, got %d", *v)}
		}
		c.MaxWaiverDays = *v
	}
	if v := raw.Report.Below; v != nil {
		c.Depth.Below = *v
	}
	if raw.Report.ContextTokens < 0 {
		return nil, &gate.InputError{File: name, Field: "report.context_tokens", Err: errors.New("must not be negative")}
	}
	c.Depth.ContextTokens = raw.Report.ContextTokens
	if err := c.Depth.Validate(); err != nil {
		return nil, &gate.InputError{File: name, Field: "report", Err: err}
	}
	if a := raw.Report.MaxLabelAge; a != "" {
		d, err := ParseAge(a)
		if err != nil {
			return nil, &gate.InputError{File: name, Field: "report.max_label_age", Err: err}
		}
		c.MaxLabelAge = d
	}
	if raw.Corpus != "" {
		c.Corpus = resolve(dir, raw.Corpus)
	}
	if raw.CacheDir != "" {
		c.CacheDir = resolve(dir, raw.CacheDir)
	}
	if raw.Baseline != "" {
		c.Baseline, c.baselineKey, c.BaselineLine = resolve(dir, raw.Baseline), raw.Baseline, keyLine(data, toml.Key{"baseline"})
	}
	c.NoChart = raw.Report.Chart != nil && !*raw.Report.Chart
	if n := raw.Report.Name; n != "" {
		if err := gate.CheckGateName(n); err != nil {
			return nil, &gate.InputError{File: name, Line: keyLine(data, toml.Key{"report", "name"}), Field: "report.name", Err: err}
		}
		c.Name = n
	}
	if err := c.readLabel(raw, data, name); err != nil {
		return nil, err
	}
	if err := c.readWaivers(raw, data, name); err != nil {
		return nil, err
	}
	if err := c.variants(raw, md, data, dir); err != nil {
		return nil, err
	}
	if err := c.fusions(raw, md, data); err != nil {
		return nil, err
	}
	if err := c.sides(raw, dir); err != nil {
		var ie *gate.InputError
		if errors.As(err, &ie) && ie.Line == 0 && ie.Field != "" {
			ie.Line = retrieverKeyLine(data, raw.Retriever != nil, ie.Field)
		}
		return nil, err
	}
	return c, nil
}

// decodeConfig decodes the TOML into the raw config, refusing a syntax
// error, a value of the wrong type and an unknown key with an
// *gate.InputError naming the line and the key.
func decodeConfig(data []byte, name string) (rawConfig, toml.MetaData, error) {
	var raw rawConfig
	read := reflect.New(rawType)
	md, err := toml.Decode(string(data), read.Interface())
	takeRules(read.Elem(), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			field := ""
			if k := toml.Key(strings.Split(pe.LastKey, ".")); pe.LastKey != "" && keyLine(data, k) == pe.Position.Line {
				field = pe.LastKey // the error is on the key's own line: name it
			}
			return raw, md, &gate.InputError{File: name, Line: pe.Position.Line, Field: field, Err: errors.New(pe.Message)}
		}
		if ie, ok := typeError(data, name, err); ok {
			return raw, md, ie
		}
		return raw, md, &gate.InputError{File: name, Err: err}
	}
	if und := md.Undecoded(); len(und) > 0 {
		sort.SliceStable(und, func(i, j int) bool {
			li, lj := keyLine(data, und[i]), keyLine(data, und[j])
			if li != lj {
				return li < lj
			}
			return und[i].String() < und[j].String()
		})
		line, field, msg := unknownKeyError(data, und)
		return raw, md, &gate.InputError{File: name, Line: line, Field: field, Err: errors.New(msg)}
	}
	if err := checkFinite(data, name); err != nil {
		return raw, md, err
	}
	return raw, md, nil
}

// readLabel reads [label]: the grades' names and the guideline.
func (c *Config) readLabel(raw rawConfig, data []byte, name string) error {
	if g := raw.Label.Grades; g != nil {
		if len(g) != 2 && len(g) != gate.MaxGrade+1 {
			return &gate.InputError{File: name, Line: keyLine(data, toml.Key{"label", "grades"}), Field: "label.grades", Err: fmt.Errorf("name every grade, 0 first: 2 names for binary grades or %d for 0–%d, got %d", gate.MaxGrade+1, gate.MaxGrade, len(g))}
		}
		for i, n := range g {
			if strings.TrimSpace(n) == "" || strings.ContainsAny(n, "\r\n") {
				return &gate.InputError{File: name, Line: keyLine(data, toml.Key{"label", "grades"}), Field: fmt.Sprintf("label.grades[%d]", i), Err: errors.New("a grade's name is one non-empty line")}
			}
		}
		c.GradeNames = g
	}
	c.Guideline = strings.TrimSpace(raw.Label.Guideline)
	return nil
}

// readWaivers reads the [[waiver]] tables: each names a query once, a
// date and known rules.
func (c *Config) readWaivers(raw rawConfig, data []byte, name string) error {
	seen := map[string]bool{}
	for i, w := range raw.Waiver {
		field := fmt.Sprintf("waiver[%d]", i)
		if w.Query == "" || w.Reason == "" || w.Expires == "" {
			return &gate.InputError{File: name, Field: field, Err: errors.New("query, reason and expires (YYYY-MM-DD) are all required")}
		}
		exp, err := time.Parse("2006-01-02", w.Expires)
		if err != nil {
			return &gate.InputError{File: name, Field: field + ".expires", Err: fmt.Errorf("%q is not a date like 2027-01-31", w.Expires)}
		}
		if seen[w.Query] {
			return &gate.InputError{File: name, Field: field + ".query", Err: fmt.Errorf("query %q is waived twice", gate.ClipID(w.Query))}
		}
		seen[w.Query] = true
		for _, r := range w.Rules {
			if !slices.Contains(gate.RuleNames, r) {
				return &gate.InputError{File: name, Line: arrayKeyLine(data, "waiver", i, "rules"), Field: field + ".rules", Err: fmt.Errorf("unknown rule %q (rules: %s)", r, strings.Join(gate.RuleNames, ", "))}
			}
		}
		c.Waivers = append(c.Waivers, gate.Waiver{Query: w.Query, Reason: w.Reason, Expires: exp, Rules: w.Rules})
		c.waiverLines = append(c.waiverLines, arrayKeyLine(data, "waiver", i, "expires"))
	}
	return nil
}

// retrieverKeyLine is the line of a retriever table's key, field as
// prepare names it ("base.retriever.env"); with one [retriever] table both
// sides' keys are in it.
func retrieverKeyLine(data []byte, single bool, field string) int {
	if rest, ok := strings.CutPrefix(field, "base."); single && ok {
		field = rest
	} else if rest, ok := strings.CutPrefix(field, "head."); single && ok {
		field = rest
	}
	return keyLine(data, strings.Split(field, "."))
}

// arrayKeyLine is the line of key in the i-th [[table]] of the file, or of
// that table's header when key is "" or not written there; 0 when absent.
func arrayKeyLine(data []byte, table string, i int, key string) int {
	seen, header := -1, 0
	for n, line := range strings.Split(string(data), "\n") {
		if m := headerLine.FindStringSubmatch(line); m != nil {
			if seen == i {
				break
			}
			if strings.HasPrefix(strings.TrimSpace(line), "[[") && unquoteKey(m[1]) == table {
				seen++
				if seen == i {
					header = n + 1
				}
			}
			continue
		}
		if seen == i && key != "" {
			if m := keyRe.FindStringSubmatch(line); m != nil && unquoteKey(m[1]) == key {
				return n + 1
			}
		}
	}
	return header
}

func (c *Config) sides(raw rawConfig, dir string) error {
	hasBase := raw.Base != nil && raw.Base.Retriever != nil
	hasHead := raw.Head != nil && raw.Head.Retriever != nil
	switch {
	case raw.Retriever != nil && (hasBase || hasHead):
		return &gate.InputError{File: c.Path, Field: "retriever", Err: errors.New("use either [retriever] or [base.retriever] and [head.retriever], not both")}
	case raw.Retriever != nil:
		c.Base, c.Head = raw.Retriever, raw.Retriever
	case hasBase && !hasHead && len(raw.Variant) > 0:
		c.Base = raw.Base.Retriever // an experiment's baseline: no head side
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
	if c.Head != nil && c.Head != c.Base {
		return c.prepare(c.Head, dir, "head.retriever")
	}
	return nil
}

// prepare checks one retriever table and resolves its paths.
func (c *Config) prepare(r *Retriever, dir, table string) error {
	if b, err := json.Marshal(r); err == nil {
		sum := sha256.Sum256(b)
		r.Sum = "sha256:" + hex.EncodeToString(sum[:])
	}
	if r.Type == "" {
		return &gate.InputError{File: c.Path, Field: table + ".type", Err: errors.New("required")}
	}
	if !slices.Contains(spec.Kinds, r.Type) {
		return &gate.InputError{File: c.Path, Field: table + ".type", Err: fmt.Errorf("unknown retriever type %q (want %s)", r.Type, spec.KindList())}
	}
	if key, v := r.RequiredKey(); key != "" && v == "" {
		return &gate.InputError{File: c.Path, Field: table + "." + key, Err: fmt.Errorf("required for a %s retriever", r.Type)}
	}
	for _, f := range []struct{ key, v string }{{"context", r.Context}, {"context_doc", r.ContextDoc}, {"context_chunk", r.ContextChunk}, {"context_text", r.ContextText}, {"context_tokens", r.ContextTokens}, {"abstain", r.Abstain}} {
		switch {
		case f.v == "":
		case r.Type != "http":
			return &gate.InputError{File: c.Path, Field: table + "." + f.key, Err: fmt.Errorf("only an http retriever takes the %s path: a command or file retriever's answer carries \"context\" and \"abstain\" itself", f.key)}
		case f.key != "context" && f.key != "abstain" && r.Context == "":
			return &gate.InputError{File: c.Path, Field: table + "." + f.key, Err: fmt.Errorf("a path inside the context: set context (the path to the array of passages) too")}
		}
	}
	if r.Type == "command" && len(r.Command) == 0 {
		return &gate.InputError{File: c.Path, Field: table + ".command", Err: errors.New("required for a command retriever: the argv array, e.g. [\"python3\", \"retriever.py\"]")}
	}
	if key, err := r.CheckStart(); err != nil {
		return &gate.InputError{File: c.Path, Field: table + "." + key, Err: err}
	}
	if err := checkEnv(r.Env, "retriever"); err != nil {
		return &gate.InputError{File: c.Path, Field: table + ".env", Err: err}
	}
	if r.Concurrency < 0 {
		return &gate.InputError{File: c.Path, Field: table + ".concurrency", Err: errors.New("must not be negative")}
	}
	if r.Concurrency == 0 {
		r.Concurrency = 4
	}
	if r.RateLimit < 0 {
		return &gate.InputError{File: c.Path, Field: table + ".rate_limit", Err: errors.New("must not be negative")}
	}
	if r.Timeout.Duration == 0 {
		r.Timeout.Duration = 30 * time.Second
	}
	r.Dir = dir
	if files := r.NamedFilesSum(); files != "" {
		// A pull request that rewrites the script its command names
		// changes the retriever's fingerprint (the cache key, the drift
		// baseline's retriever) as one that edits the table does.
		sum := sha256.Sum256([]byte(r.Sum + "\x00" + files))
		r.Sum = "sha256:" + hex.EncodeToString(sum[:])
	}
	if r.Path != "" {
		r.Path = resolve(dir, r.Path)
	}
	if r.Corpus != "" {
		r.Corpus = resolve(dir, r.Corpus)
	}
	return nil
}

// ParseAge reads an age like "180d", "26w" or a Go duration.
func ParseAge(s string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			var v int
			if _, err := fmt.Sscanf(n, "%d", &v); err == nil && v > 0 && fmt.Sprint(v) == n {
				return time.Duration(v) * unit, nil
			}
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not an age like \"180d\" or \"26w\"", s)
	}
	return d, nil
}

// ExpiredWaivers returns an error naming the waivers whose last day is before today.
func (c *Config) ExpiredWaivers(now time.Time) error {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var bad []string
	for _, w := range c.Waivers {
		if w.Expires.Before(today) {
			bad = append(bad, fmt.Sprintf("%s (expired %s: %s)", w.Query, w.Expires.Format("2006-01-02"), w.Reason))
		}
	}
	if len(bad) > 0 {
		return &gate.InputError{File: c.Path, Field: "waiver", Err: fmt.Errorf("expired: %s; fix the regression or renew the waiver", strings.Join(bad, "; "))}
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

// checkEnv refuses a variable name a program (who: "retriever",
// "judge") may not be given: the runner's credentials and command files,
// and what is no variable name.
func checkEnv(names []string, who string) error {
	for _, name := range names {
		switch {
		case childenv.RunnerSecret(name):
			return fmt.Errorf("%s is one of the runner's credentials (%s), which are never given to a %s", name, childenv.RunnerSecretNames, who)
		case childenv.RunnerFile(name):
			return fmt.Errorf("%s names one of the runner's command files (%s): a %s that writes it sets BASH_ENV, PATH or outputs for every later step, so it is never given to a %s", name, strings.Join(childenv.RunnerFiles, ", "), who, who)
		case name == "" || strings.ContainsAny(name, "= \t\n\x00"):
			return fmt.Errorf("%q is not a variable name", name)
		}
	}
	return nil
}
