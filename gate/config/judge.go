package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/recallgate/recallgate/gate"
)

// DefaultMinJudgeOverlap is how many documents people and the judge must
// both have graded before the judge's agreement may let its grades count
// ([gate] min_judge_overlap).
const DefaultMinJudgeOverlap = 30

// Judge is the [judge] table: the program that grades the pairs nobody
// judged, speaking the retrievers' transports (gate/judge). Its grades
// count in a verdict only as the base commit's [gate] min_judge_agreement
// and min_judge_overlap allow.
type Judge struct {
	// Name names the judge: its grades are the labeller "judge:<name>".
	Name string `toml:"name"`
	// Type is "command" (a long-lived subprocess, one JSON line each way)
	// or "http" (a templated request).
	Type string `toml:"type"`
	// Command is the argv of a command judge (no shell); Env the variables
	// it gets besides the defaults (childenv.ChildEnvNames).
	Command []string `toml:"command"`
	Env     []string `toml:"env"`
	// URL, Method, Body and Headers describe an http judge's request:
	// {{query_id}}, {{query}}, {{doc}}, {{text}} and {{guideline}} are
	// filled in (URL-escaped in the URL, JSON strings in the body),
	// {{grades}} is the JSON array of grade names; header values may read
	// ${VAR} and are secrets, never printed.
	URL     string            `toml:"url"`
	Method  string            `toml:"method"`
	Body    string            `toml:"body"`
	Headers map[string]string `toml:"headers"`
	// GradePath, ReasonPath and TokensPath are dot paths into an http
	// judge's answer (default "grade", "reason", "tokens").
	GradePath  string `toml:"grade"`
	ReasonPath string `toml:"reason"`
	TokensPath string `toml:"tokens"`
	Retries    *int   `toml:"retries"`
	MaxBody    int64  `toml:"max_body_bytes"`
	// Guideline is the rule the judge grades by, as text; GuidelineFile a
	// file holding it (relative to the config). One of the two, or none.
	Guideline     string `toml:"guideline"`
	GuidelineFile string `toml:"guideline_file"`
	// Concurrency is how many pairs are graded at once (an http judge's,
	// default 4; a command judge answers one line at a time: 1);
	// Timeout bounds each pair (default 60s); RateLimit caps requests a
	// second (0 = none).
	Concurrency int      `toml:"concurrency"`
	Timeout     Duration `toml:"timeout"`
	RateLimit   float64  `toml:"rate_limit"`

	// Dir is the config file's folder: the command runs there, and
	// GuidelineFile was resolved from it.
	Dir string `toml:"-" json:"-"`
	// Sum is "sha256:" and the hash of the table as written.
	Sum string `toml:"-" json:"-"`
	// Line is the line of the [judge] header, for messages.
	Line int `toml:"-" json:"-"`
}

// judge checks the [judge] table and resolves its paths.
func (c *Config) judge(raw rawConfig, data []byte, dir string) error {
	j := raw.Judge
	if j == nil {
		return nil
	}
	if b, err := json.Marshal(j); err == nil {
		sum := sha256.Sum256(b)
		j.Sum = "sha256:" + hex.EncodeToString(sum[:])
	}
	j.Line = keyLine(data, toml.Key{"judge"})
	bad := func(key string, err error) error {
		line := keyLine(data, toml.Key{"judge", key})
		if line == 0 {
			line = j.Line
		}
		return &gate.InputError{File: c.Path, Line: line, Field: "judge." + key, Err: err}
	}
	if strings.TrimSpace(j.Name) == "" {
		return bad("name", errors.New("required: the judge's name, its grades are the labeller \"judge:<name>\""))
	}
	if _, _, ctl := gate.ControlChar(j.Name); ctl || strings.ContainsAny(j.Name, " :") {
		return bad("name", fmt.Errorf("%q: a name without spaces, colons or control characters", j.Name))
	}
	switch j.Type {
	case "command":
		if len(j.Command) == 0 || j.Command[0] == "" {
			return bad("command", errors.New("required for a command judge: the argv array, e.g. [\"python3\", \"judge.py\"]"))
		}
		for _, k := range []struct{ key, v string }{{"url", j.URL}, {"method", j.Method}, {"body", j.Body}} {
			if k.v != "" {
				return bad(k.key, errors.New("only an http judge takes it"))
			}
		}
	case "http":
		if j.URL == "" {
			return bad("url", errors.New("required for an http judge"))
		}
		if len(j.Command) > 0 {
			return bad("command", errors.New("only a command judge takes it"))
		}
	case "":
		return bad("type", errors.New("required: \"command\" or \"http\""))
	default:
		return bad("type", fmt.Errorf("unknown judge type %q (want command or http)", j.Type))
	}
	if err := checkEnv(j.Env, "judge"); err != nil {
		return bad("env", err)
	}
	if j.Guideline != "" && j.GuidelineFile != "" {
		return bad("guideline_file", errors.New("give the guideline as text or as a file, not both"))
	}
	if j.GuidelineFile != "" {
		j.GuidelineFile = resolve(dir, j.GuidelineFile)
	}
	switch {
	case j.Concurrency < 0:
		return bad("concurrency", errors.New("must not be negative"))
	case j.Concurrency > 1 && j.Type == "command":
		return bad("concurrency", fmt.Errorf("%d: a command judge answers one line at a time over its one pipe (a pair waiting its turn would spend its timeout); leave it out, or use an http judge for pairs at once", j.Concurrency))
	case j.Concurrency == 0 && j.Type == "http":
		j.Concurrency = 4
	case j.Concurrency == 0:
		j.Concurrency = 1
	}
	if j.RateLimit < 0 {
		return bad("rate_limit", errors.New("must not be negative"))
	}
	if j.Retries != nil && *j.Retries < 0 {
		return bad("retries", errors.New("must not be negative"))
	}
	if j.MaxBody < 0 {
		return bad("max_body_bytes", errors.New("must not be negative"))
	}
	if j.Timeout.Duration == 0 {
		j.Timeout.Duration = 60 * time.Second
	}
	j.Dir = dir
	c.Judge = j
	return nil
}

// judgePolicy reads [gate] min_judge_agreement and min_judge_overlap.
func (c *Config) judgePolicy(raw rawConfig, data []byte) error {
	g := raw.Gate
	if v := g.MinJudgeAgreement; v != nil {
		if *v < -1 || *v > 1 || *v != *v {
			return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "min_judge_agreement"}), Field: "gate.min_judge_agreement", Err: fmt.Errorf("a Cohen's kappa within -1 and 1 (relevant or not), e.g. 0.6; got %v", *v)}
		}
		c.Thresholds.MinJudgeAgreement = v
	}
	if v := g.MinJudgeOverlap; v != nil {
		if *v < 1 {
			return &gate.InputError{File: c.Path, Line: keyLine(data, toml.Key{"gate", "min_judge_overlap"}), Field: "gate.min_judge_overlap", Err: fmt.Errorf("must be at least 1 document graded by both people and the judge, got %d", *v)}
		}
		c.Thresholds.MinJudgeOverlap = *v
	}
	return nil
}
