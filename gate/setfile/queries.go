package setfile

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

// LoadQueryTexts gives the queries of a qrels set s their text, from a JSONL
// file of {"id","text"} lines (the BEIR queries format; "query" is accepted
// for "text"). Lines for ids outside the set are ignored; a set query left
// without text is an error, since it could not be retrieved.
func LoadQueryTexts(s *gate.Set, path string) error {
	f, err := input.Open(path)
	if err != nil {
		return &gate.InputError{File: path, Err: fmt.Errorf("open queries: %w", err)}
	}
	defer f.Close()
	err = input.EachLine(f, path, input.MaxSetLineBytes, func(line []byte, n int) error {
		var raw struct {
			ID       string          `json:"id"`
			Text     string          `json:"text"`
			Query    string          `json:"query"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := input.DecodeStrict(line, &raw); err != nil {
			return input.JSONLineError(path, n, err)
		}
		if q := s.Query(raw.ID); q != nil {
			q.Text = raw.Text
			if q.Text == "" {
				q.Text = raw.Query
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, q := range s.Queries {
		if strings.TrimSpace(q.Text) == "" {
			return input.Errf(path, 0, "", "query %q of set %s has no text here", input.ClipID(q.ID), s.Path)
		}
	}
	return nil
}
