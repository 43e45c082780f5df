package sample

import (
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

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
