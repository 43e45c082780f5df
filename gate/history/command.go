package history

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/cli"
)

// Options are the flags of `recallgate history add|render`.
type Options struct {
	// History is the JSONL file; Report the JSON report to add.
	History, Report string
	// Time is the run's time for add (RFC 3339), "" for the clock's.
	Time string
	// Format and Out are render's: html, markdown or json, to Out or stdout.
	Format, Out string
}

// Flags registers the history command's flags on fs; the function it
// returns runs the subcommand its args name (add or render; the flags may
// come before or after it). now is the clock add stamps an entry with when
// --time is not given (the report carries no time); it says so on stderr.
func Flags(fs *flag.FlagSet) func(args []string, now func() time.Time, stdout, stderr io.Writer) error {
	var o Options
	fs.StringVar(&o.History, "history", "", "the history file, JSONL, one run a line (required; add creates it)")
	fs.StringVar(&o.Report, "report", "", "add: the JSON report of compare, gate, the action or ci (an error report too)")
	fs.StringVar(&o.Time, "time", "", "add: when the run was, RFC 3339 (e.g. the commit's date: git show -s --format=%cI); default now, said on stderr")
	fs.StringVar(&o.Format, "format", string(Renderers.Default()), "render: "+Renderers.List())
	fs.StringVar(&o.Out, "out", "", "render: write to this file instead of stdout")
	return func(args []string, now func() time.Time, stdout, stderr io.Writer) error {
		if len(args) == 0 {
			return cli.Usagef("history needs a subcommand: add or render")
		}
		sub := args[0]
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return cli.Usagef("%v", err)
		}
		if fs.NArg() > 0 {
			return cli.Usagef("unexpected argument %q", fs.Arg(0))
		}
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if o.History == "" {
			return cli.Usagef("--history is required")
		}
		switch sub {
		case "add":
			if given["format"] || given["out"] {
				return cli.Usagef("--format and --out are for history render")
			}
			return o.add(now, stdout, stderr)
		case "render":
			if given["report"] || given["time"] {
				return cli.Usagef("--report and --time are for history add")
			}
			return o.render(stdout, stderr)
		}
		return cli.Usagef("unknown history subcommand %q (want add or render)", sub)
	}
}

// add adds the report's run to the history and says what it did.
func (o Options) add(now func() time.Time, stdout, stderr io.Writer) error {
	if o.Report == "" {
		return cli.Usagef("--report is required")
	}
	var t time.Time
	if o.Time != "" {
		var err error
		if t, err = time.Parse(time.RFC3339, o.Time); err != nil {
			return cli.Usagef("--time %q: want RFC 3339, like 2026-12-01T02:00:00Z", o.Time)
		}
	} else {
		if now == nil {
			now = time.Now
		}
		t = now()
		fmt.Fprintf(stderr, "history: a report carries no time: the entry is stamped now, %s (--time sets it)\n", t.UTC().Format(TimeLayout))
	}
	a, err := AddReport(o.History, o.Report, t)
	if err != nil {
		return err
	}
	e := a.Entry
	what := fmt.Sprintf("%s %s, commit %s", e.stamp(), e.verdictText(), e.shortCommit())
	if a.Duplicate {
		fmt.Fprintf(stdout, "history: %s already holds this run (%s): not added again\n", o.History, gate.Visible(what))
		return nil
	}
	if a.TooOld {
		fmt.Fprintf(stdout, "history: %s not added to %s: older than every entry of a full history (a history keeps %d entries)\n", gate.Visible(what), o.History, MaxEntries)
		return nil
	}
	fmt.Fprintf(stdout, "history: added %s to %s (%d %s)\n", gate.Visible(what), o.History, a.Entries, plural(a.Entries, "entry", "entries"))
	if a.Dropped > 0 {
		fmt.Fprintf(stdout, "history: the oldest %d dropped: a history keeps %d entries\n", a.Dropped, MaxEntries)
	}
	return nil
}

// render draws the history in the format asked, to --out or stdout.
func (o Options) render(stdout, stderr io.Writer) error {
	f, err := ParseFormat(o.Format)
	if err != nil {
		return cli.Usagef("--format: %v", err)
	}
	if o.Out != "" && filepath.Clean(o.Out) == filepath.Clean(o.History) {
		return cli.Usagef("--out is the --history file: give another")
	}
	if _, err := os.Lstat(o.History); err != nil {
		return &gate.InputError{File: o.History, Err: fmt.Errorf("open history: %w", err)}
	}
	entries, err := Read(o.History)
	if err != nil {
		return err
	}
	if o.Out == "" {
		return Render(stdout, entries, f)
	}
	return atomicfile.Streams{Stdout: stdout, Stderr: stderr}.Write(o.Out, 0o644, func(w io.Writer) error { return Render(w, entries, f) })
}
