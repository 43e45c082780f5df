package cijob

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// Inputs are the gate's choices for a CI job that takes recallgate's own
// inputs (GitLab's, any CI but GitHub's action), validated: each is a
// flag of `recallgate ci` or, when the flag is not given, the RECALLGATE_*
// variable named in Vars.
type Inputs struct {
	Config, BaseResults, HeadResults, Baseline, WorkDir, Name string
	// History is the history file a drift run adds its run to ("": none).
	History string
	// Comment is always, on-change or never; Mode pr, drift or auto.
	Comment, Mode    string
	FailOnRegression bool
	AllowIdentical   bool
	// AcceptChangedInputs is read and does nothing: a drift run compares
	// across changed inputs and names them (kept so workflows that set it run).
	AcceptChangedInputs bool
	// JUnit is the JUnit report's path for artifacts:reports:junit.
	JUnit string
}

// Vars are the inputs' variables, in the order the README lists them, with
// their defaults.
var Vars = []struct{ Name, Flag, Default, Doc string }{
	{"RECALLGATE_CONFIG", "config", "recallgate.toml", "the gate's config"},
	{"RECALLGATE_MODE", "mode", "auto", "pr, drift or auto (schedule pipelines: drift; others: pr)"},
	{"RECALLGATE_COMMENT", "comment", "always", "the merge request note: always, on-change or never"},
	{"RECALLGATE_NAME", "name", "", "the gate's name: keys its note when one project runs several gates"},
	{"RECALLGATE_BASELINE", "baseline", "", "drift mode: the run recallgate gate --write-baseline wrote"},
	{"RECALLGATE_HISTORY", "history", "", "drift mode: the history file to add the run to (see recallgate history)"},
	{"RECALLGATE_BASE_RESULTS", "base-results", "", "a run file for the base side (with head-results: no retrieval)"},
	{"RECALLGATE_HEAD_RESULTS", "head-results", "", "a run file for the head side"},
	{"RECALLGATE_FAIL_ON_REGRESSION", "fail-on-regression", "true", "a failing verdict fails the job (exit 1)"},
	{"RECALLGATE_ALLOW_IDENTICAL", "allow-identical", "false", "run a gate whose two sides are the same configuration"},
	{"RECALLGATE_ACCEPT_CHANGED_INPUTS", "accept-changed-inputs", "false", "no longer needed, does nothing: a drift run compares across changed inputs and names them"},
	{"RECALLGATE_WORKING_DIRECTORY", "working-directory", "", "where relative paths start (the project directory when empty)"},
	{"RECALLGATE_JUNIT", "junit", "recallgate-junit.xml", "the JUnit report for artifacts:reports:junit, relative to the project directory (--junit \"\" for none)"},
}

// Flags registers the inputs' flags on fs; the function it returns reads
// the inputs (the variables through getenv) once the flags are parsed: a flag given wins over its
// variable, a variable over the default.
func Flags(fs *flag.FlagSet) func(getenv func(string) string) (Inputs, error) {
	vals := make([]*string, len(Vars))
	for i, v := range Vars {
		vals[i] = fs.String(v.Flag, "", fmt.Sprintf("%s (default from %s, else %q)", v.Doc, v.Name, v.Default))
	}
	return func(getenv func(string) string) (Inputs, error) {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		get := map[string]string{}
		for i, v := range Vars {
			val, ok := *vals[i], set[v.Flag]
			if !ok {
				val, ok = getenv(v.Name), getenv(v.Name) != ""
			}
			if !ok {
				val = v.Default
			}
			get[v.Flag] = strings.TrimSpace(val)
		}
		return readInputs(get)
	}
}

// ReadInputs reads the inputs from the RECALLGATE_* variables alone.
func ReadInputs(getenv func(string) string) (Inputs, error) {
	return Flags(flag.NewFlagSet("ci", flag.ContinueOnError))(getenv)
}

// InvalidInputError is an input with a value recallgate does not take.
type InvalidInputError struct{ Msg string }

// Error implements error.
func (e *InvalidInputError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &InvalidInputError{Msg: fmt.Sprintf(format, args...)}
}

func readInputs(get map[string]string) (Inputs, error) {
	in := Inputs{
		Config: get["config"], BaseResults: get["base-results"], HeadResults: get["head-results"], Baseline: get["baseline"],
		WorkDir: get["working-directory"], Name: get["name"], Comment: strings.ToLower(get["comment"]), Mode: strings.ToLower(get["mode"]),
		JUnit: get["junit"], History: get["history"],
	}
	if in.Config == "" {
		in.Config = "recallgate.toml"
	}
	switch in.Comment {
	case "always", "on-change", "never":
	default:
		return in, invalid("RECALLGATE_COMMENT (--comment) must be always, on-change or never, got %q", in.Comment)
	}
	switch in.Mode {
	case "pr", "drift", "auto":
	default:
		return in, invalid("RECALLGATE_MODE (--mode) must be pr, drift or auto, got %q", in.Mode)
	}
	var err error
	for _, b := range []struct {
		name string
		to   *bool
	}{{"fail-on-regression", &in.FailOnRegression}, {"allow-identical", &in.AllowIdentical}, {"accept-changed-inputs", &in.AcceptChangedInputs}} {
		if *b.to, err = strconv.ParseBool(get[b.name]); err != nil {
			return in, invalid("RECALLGATE_%s (--%s) must be true or false, got %q", strings.ToUpper(strings.ReplaceAll(b.name, "-", "_")), b.name, get[b.name])
		}
	}
	if in.Name != "" {
		if err := gate.CheckGateName(in.Name); err != nil {
			return in, invalid("RECALLGATE_NAME (--name): %v", err)
		}
	}
	if (in.BaseResults == "") != (in.HeadResults == "") {
		return in, invalid("RECALLGATE_BASE_RESULTS and RECALLGATE_HEAD_RESULTS (--base-results, --head-results) go together: one is missing")
	}
	return in, nil
}

// Path resolves an input path against the working directory.
func (in Inputs) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || in.WorkDir == "" {
		return p
	}
	return filepath.Join(in.WorkDir, p)
}
