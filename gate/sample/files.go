package sample

import (
	"bytes"
	"errors"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
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

// NewQueries keeps the drafts that the set at path does not hold yet (by
// id or by normalised text).
func NewQueries(path string, drafts []*gate.Query) ([]*gate.Query, error) {
	set, err := gate.LoadDraft(path)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, q := range set.Queries {
		have[q.ID] = true
		have["text:"+Normalize(q.Text)] = true
	}
	var out []*gate.Query
	for _, q := range drafts {
		if !have[q.ID] && !have["text:"+Normalize(q.Text)] {
			out = append(out, q)
		}
	}
	return out, nil
}
