package pipeline

import (
	"errors"
	"fmt"

	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/sample"
)

// SampleOptions say how to draw a draft set from a query log.
type SampleOptions struct {
	// Log is the query log; KnownBad, when given, the queries known to
	// fail (read in the format its name says); Format the log's format ("" =
	// by its name).
	Log, KnownBad, Format string
	// Read are the reader's options (JSONL field, CSV column, longest line).
	Read sample.Options
	// Size and Seed are the draw's.
	Size int
	Seed uint64
	// Out is the draft to write; Append adds to it, Force replaces it.
	Out           string
	Append, Force bool
}

// Sample reads the log and the known failures (warning about each skipped
// line), draws the draft and writes it, and says what it did on Stderr. A
// format it cannot read and a draft that exists (without Append or Force)
// are usage errors naming the flag that clears them.
func Sample(e *Env, o SampleOptions) error {
	err := drawSample(e, o)
	switch {
	case errors.Is(err, sample.ErrFormat):
		return cli.Usagef("--format: %v", err)
	case errors.Is(err, sample.ErrExists):
		return cli.Usagef("%s exists: --append adds new queries to it and keeps its labels, --force replaces it", o.Out)
	}
	return err
}

// drawSample is Sample before its usage errors.
func drawSample(e *Env, o SampleOptions) error {
	read := func(path, format string) ([]sample.Query, sample.Stats, error) {
		qs, st, err := sample.ReadFile(path, format, o.Read)
		for _, w := range st.Warnings(path) {
			e.Warn("%s", w)
		}
		return qs, st, err
	}
	qs, st, err := read(o.Log, o.Format)
	if err != nil {
		return err
	}
	var bad []sample.Query
	if o.KnownBad != "" {
		if bad, _, err = read(o.KnownBad, ""); err != nil {
			return err
		}
	}
	qs, bad = sample.MergeKnown(qs, bad, o.Read)
	drafts, ids := sample.DraftIDs(sample.Draw(qs, bad, o.Size, o.Seed))
	res, err := sample.WriteDraft(o.Out, drafts, o.Append, o.Force)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "recallgate: %s: %s\n", o.Log, st)
	if s := ids.String(); s != "" {
		fmt.Fprintf(e.Stderr, "recallgate: %s: %s\n", o.Log, s)
	}
	verb := "wrote"
	if res.Appended {
		verb = "appended"
	}
	fmt.Fprintf(e.Stderr, "recallgate: %s %d queries (%d %s, %d %s) to %s\n", verb, len(res.Written),
		res.Counts[sample.KnownFailure], sample.KnownFailure, res.Counts[sample.Ordinary], sample.Ordinary, o.Out)
	if !res.Appended && len(res.Written) < o.Size {
		e.Warn("the log and the known failures hold only %d distinct queries, fewer than --size %d", len(res.Written), o.Size)
	}
	fmt.Fprintf(e.Stderr, "recallgate: next, label them: recallgate label --config recallgate.toml --set %s\n", o.Out)
	return nil
}
