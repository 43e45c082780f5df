package sample

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/setfile"
)

// ErrExists is WriteDraft's refusal to touch an existing file without
// appending or forcing.
var ErrExists = errors.New("the draft file exists")

// Written is what WriteDraft wrote.
type Written struct {
	// Written are the drafts written (on append, only the new ones).
	Written []*gate.Query
	// Appended says they were added to an existing set.
	Appended bool
	// Counts counts them by their first segment (KnownFailure, Ordinary).
	Counts map[string]int
}

// WriteDraft writes the drafts to path, atomically. An existing file is
// replaced only with force; with appendTo, the drafts it does not hold yet
// are added after its lines, which stay as they are.
func WriteDraft(path string, drafts []*gate.Query, appendTo, force bool) (Written, error) {
	w := Written{Counts: map[string]int{}}
	var existing []byte
	switch data, err := os.ReadFile(path); {
	case errors.Is(err, iofs.ErrNotExist):
	case err != nil:
		return w, &gate.InputError{File: path, Err: err}
	case force:
	case !appendTo:
		return w, ErrExists
	default:
		if drafts, err = NewQueries(path, drafts); err != nil {
			return w, err
		}
		existing = data
		if len(existing) > 0 && existing[len(existing)-1] != '\n' {
			existing = append(existing, '\n')
		}
		w.Appended = len(existing) > 0
	}
	var buf bytes.Buffer
	buf.Write(existing)
	for _, q := range drafts {
		line, err := q.MarshalLine()
		if err != nil {
			return w, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
		w.Counts[q.Segments[0]]++
	}
	if err := atomicfile.Write(path, 0o644, func(out io.Writer) error { _, err := out.Write(buf.Bytes()); return err }); err != nil {
		return w, err
	}
	w.Written = drafts
	return w, nil
}

// ErrFormat is wrapped by Read for a format it does not know.
var ErrFormat = errors.New("log format")

// ReadFile reads a log or known-failure file at path, in format (or the
// one its name says, see FormatFor).
func ReadFile(path, format string, o Options) ([]Query, Stats, error) {
	if _, err := gate.CheckInputFile(path); err != nil {
		return nil, Stats{}, &gate.InputError{File: path, Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Stats{}, &gate.InputError{File: path, Err: err}
	}
	defer f.Close()
	o.Format = FormatFor(path, format)
	return Read(f, path, o)
}

// Warnings are the skipped lines of a read of path, one line each (the
// first ones with their line numbers, then how many more).
func (st Stats) Warnings(path string) []string {
	var out []string
	for _, b := range st.Bad {
		out = append(out, fmt.Sprintf("%s:%d: skipped: %s", path, b.Line, b.Reason))
	}
	if st.Malformed > len(st.Bad) {
		out = append(out, fmt.Sprintf("%s: %d more malformed lines skipped", path, st.Malformed-len(st.Bad)))
	}
	return out
}

// FormatFor is the log format to read path with: format when given, else
// by the file's ending (.jsonl/.ndjson JSONL, .csv CSV, anything else text).
func FormatFor(path, format string) string {
	if format != "" {
		return format
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return JSONL
	case ".csv":
		return CSV
	}
	return Text
}

// LogFormat is the format to read the log at path with, given the
// --format flag and whether --field or --column was given: an explicit
// format wins; else --field means JSONL and --column CSV whatever the file
// is called; else the name decides (FormatFor). A flag that contradicts
// the format is an error naming both.
func LogFormat(path, format string, field, column bool) (string, error) {
	if field && column {
		return "", fmt.Errorf("%w: --field names a JSONL key and --column a CSV column; give the one for %s", ErrFormat, path)
	}
	byName := FormatFor(path, "")
	switch {
	case format == "" && field && byName == CSV:
		return "", fmt.Errorf("%w: %s is CSV by its name, but --field is for JSONL: use --column, or --format jsonl", ErrFormat, path)
	case format == "" && column && byName == JSONL:
		return "", fmt.Errorf("%w: %s is JSONL by its name, but --column is for CSV: use --field, or --format csv", ErrFormat, path)
	case format == "" && field:
		return JSONL, nil
	case format == "" && column:
		return CSV, nil
	case field && format != JSONL:
		return "", fmt.Errorf("%w: --field is for JSONL, but --format is %s", ErrFormat, format)
	case column && format != CSV:
		return "", fmt.Errorf("%w: --column is for CSV, but --format is %s", ErrFormat, format)
	}
	return FormatFor(path, format), nil
}

// NewQueries keeps the drafts that the set at path does not hold yet (by
// normalised text; a draft of the same id is the same query when it keeps
// the hash of its text). A draft that kept the log's own id, which the set
// gives another question, takes the hash of its text instead, so a new
// question is never dropped for its id.
func NewQueries(path string, drafts []*gate.Query) ([]*gate.Query, error) {
	set, err := setfile.LoadDraft(path)
	if err != nil {
		return nil, err
	}
	have, ids := map[string]bool{}, map[string]bool{}
	for _, q := range set.Queries {
		ids[gate.FoldName(q.ID)] = true
		have[Normalize(q.Text)] = true
	}
	var out []*gate.Query
	for _, q := range drafts {
		key := Normalize(q.Text)
		if have[key] || q.ID == ID(key) && ids[gate.FoldName(q.ID)] {
			continue
		}
		if ids[gate.FoldName(q.ID)] {
			id := ID(key)
			for n := 2; ids[gate.FoldName(id)]; n++ {
				id = fmt.Sprintf("%s-%d", ID(key), n)
			}
			q.ID = id
		}
		ids[gate.FoldName(q.ID)] = true
		out = append(out, q)
	}
	return out, nil
}
