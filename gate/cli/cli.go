// Package cli is the shape every recallgate subcommand has: a name, a
// one-line summary, a usage line and examples, and a setup that registers
// its flags and returns the function that runs once they are parsed. It
// parses a command line into that function and renders the --help page
// (--name VALUE for each flag, with its default), and types the mistakes
// made on a command line, so the one place that maps errors to exit codes
// can tell them apart.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
)

// Command is one subcommand; E is what it may touch of the world.
type Command[E any] struct {
	Name, Summary, Usage, Examples string
	// Setup registers the flags on fs and returns the runner.
	Setup func(fs *flag.FlagSet) func(ctx context.Context, e E, args []string) error
}

// UsageError is a mistake on the command line.
type UsageError struct{ Msg string }

// Error implements error.
func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// IsUsage reports whether err is (or wraps) a *UsageError.
func IsUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue)
}

// Parse registers the command's flags and parses args; it returns the
// runner and the positional arguments. --help gives flag.ErrHelp; a bad
// flag, a *UsageError.
func (c Command[E]) Parse(args []string) (func(context.Context, E, []string) error, []string, error) {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runner := c.Setup(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		return nil, nil, Usagef("%v", err)
	}
	return runner, fs.Args(), nil
}

// Help is the command's --help page; metavars name the value a flag takes
// ("config" → "FILE"), else the flag's own kind is used.
func (c Command[E]) Help(metavars map[string]string) string {
	return fmt.Sprintf("%s\n\nUsage:\n  %s\n\n%s\nExamples:\n%s", c.Summary, c.Usage, c.flagHelp(metavars), c.Examples)
}

// flagHelp lists the command's flags, --name VALUE, with their defaults.
func (c Command[E]) flagHelp(metavars map[string]string) string {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	c.Setup(fs)
	var b strings.Builder
	n := 0
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		n++
		name := "--" + f.Name
		if mv, ok := metavars[f.Name]; ok {
			name += " " + mv
		} else if kind, _ := flag.UnquoteUsage(f); kind != "" {
			name += " " + strings.ToUpper(kind)
		}
		text := f.Usage
		if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(text, "(required") && !strings.Contains(text, "(default") {
			text += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, text)
	})
	tw.Flush()
	if n == 0 {
		return "Flags: none\n"
	}
	return "Flags:\n" + b.String()
}

// NoArgs is the usage mistake of positional arguments given to a command
// that takes none.
func NoArgs(args []string) error {
	if len(args) > 0 {
		return Usagef("unexpected argument %q (flags start with --)", args[0])
	}
	return nil
}

// Find returns the command with the given name.
func Find[E any](cmds []Command[E], name string) (Command[E], bool) {
	for _, c := range cmds {
		if c.Name == name {
			return c, true
		}
	}
	return Command[E]{}, false
}

// MainHelp is the top-level --help page: page with "{{commands}}" replaced
// by one line per command, its name and summary.
func MainHelp[E any](cmds []Command[E], page string) string {
	var b strings.Builder
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-10s %s\n", c.Name, c.Summary)
	}
	return strings.Replace(page, "{{commands}}", b.String(), 1)
}

// Metavars name the value each recallgate flag takes, as the usage lines
// write it (Help's metavars).
var Metavars = map[string]string{
	"config": "FILE", "set": "SET", "out": "FILE", "json-out": "FILE", "write-baseline": "FILE",
	"format": "FORMAT", "results": "RUN", "base": "RUN", "head": "RUN", "save-runs": "DIR", "run": "RUN",
	"corpus": "DIR|FILE", "max-recall-drop": "D", "max-new-misses": "M", "candidates": "N",
	"context": "K", "base-ref": "REF", "base-cache-key": "KEY", "head-cache-key": "KEY",
	"side": "base|head", "shard": "i/n", "report": "FILE", "in": "FILE", "pr": "N", "max-label-age": "AGE",
	"log": "FILE", "known-bad": "FILE", "size": "N", "seed": "S", "field": "NAME", "column": "NAME", "max-chars": "N",
	"labeller": "NAME", "pool-config": "FILE", "depth": "D", "port": "PORT", "sample": "N", "history": "FILE", "time": "TIME",
	"from-report": "FILE", "dir": "DIR", "ci": "github|gitlab", "export": "qrels|jsonl",
}

// SignalContext is cancelled on SIGINT or SIGTERM.
func SignalContext() context.Context {
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return ctx
}

// Program is a command-line program made of commands: its name, version,
// top-level help page (MainHelp's page) and metavars, and the one place
// that maps a command's error to its exit code.
type Program[E any] struct {
	Name, Version, Page string
	Commands            []Command[E]
	Metavars            map[string]string
	// ExitCode maps a command's error to the program's exit code; usage
	// and input is the code of a usage mistake (an unknown command, a bad
	// flag), quiet the one whose error is not printed (the verdict's own).
	ExitCode     func(error) int
	Usage, Quiet int
	// Explain, if set, turns a command's error into the one printed and
	// mapped (a missing input into a usage mistake, say).
	Explain func(error) error
}

// Run runs the command args name with e: help (-h, --help, help [NAME])
// and the version go to stdout with 0; an unknown command or no command
// prints the help page to stderr with Usage; else the command's error is
// printed (a usage mistake with a pointer to --help) and mapped by ExitCode.
func (p Program[E]) Run(ctx context.Context, e E, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, MainHelp(p.Commands, p.Page))
		return p.Usage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if c, ok := Find(p.Commands, strings.Join(args[1:min(len(args), 2)], "")); ok {
			fmt.Fprint(stdout, c.Help(p.Metavars))
		} else {
			fmt.Fprint(stdout, MainHelp(p.Commands, p.Page))
		}
		return 0
	case "-version", "--version", "version":
		fmt.Fprintf(stdout, "%s %s\n", p.Name, p.Version)
		return 0
	}
	c, ok := Find(p.Commands, args[0])
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n%s", p.Name, args[0], MainHelp(p.Commands, p.Page))
		return p.Usage
	}
	runner, rest, err := c.Parse(args[1:])
	if err == nil {
		err = runner(ctx, e, rest)
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, c.Help(p.Metavars))
		return 0
	}
	if p.Explain != nil && err != nil {
		err = p.Explain(err)
	}
	code := p.ExitCode(err)
	switch {
	case err == nil, code == p.Quiet:
	case code == p.Usage && IsUsage(err):
		fmt.Fprintf(stderr, "%s %s: %v\nRun '%s %s --help' for usage.\n", p.Name, c.Name, err, p.Name, c.Name)
	default:
		fmt.Fprintf(stderr, "%s %s: %v\n", p.Name, c.Name, err)
	}
	return code
}
