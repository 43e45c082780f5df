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
	"strings"
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
