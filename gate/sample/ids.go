package sample

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// IDFields are the keys (JSONL) or columns (CSV) a log's own query id is
// looked for under when Options.IDField is not given, in this order.
var IDFields = []string{"id", "_id", "query_id", "qid"}

// jsonID is the log line's own id: the IDField's value, or the first of
// IDFields the object has; a string, or a whole number written as one.
// "" when there is none or it is neither (the draft then hashes).
func (o Options) jsonID(obj map[string]any) string {
	if o.HashIDs {
		return ""
	}
	fields := IDFields
	if o.IDField != "" {
		fields = []string{o.IDField}
	}
	for _, f := range fields {
		v, ok := obj[f]
		if !ok || f == o.Field {
			continue
		}
		switch v := v.(type) {
		case string:
			return v
		case float64:
			if v == float64(int64(v)) {
				return strconv.FormatInt(int64(v), 10)
			}
		}
		return ""
	}
	return ""
}

// csvIDColumn is the header's column of the log's own ids (IDField, or
// the first of IDFields there), -1 for none; an IDField the header lacks
// is an error naming the columns it has.
func (o Options) csvIDColumn(head []string) (int, error) {
	if o.HashIDs {
		return -1, nil
	}
	names := make([]string, len(head))
	for i, h := range head {
		names[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
	}
	fields := IDFields
	if o.IDField != "" {
		fields = []string{strings.ToLower(o.IDField)}
	}
	for _, f := range fields {
		for i, n := range names {
			if n == f && n != strings.ToLower(o.Column) {
				return i, nil
			}
		}
	}
	if o.IDField != "" {
		return -1, fmt.Errorf("the CSV header has no id column %q (it has %s)", o.IDField, strings.Join(head, ", "))
	}
	return -1, nil
}

// IDs says what became of the log's ids in a draft: how many drafts kept
// theirs, and which were hashed instead (Unsafe: an id a set refuses;
// Taken: an id an earlier draft already holds, or one that reads the same).
type IDs struct {
	Kept, Hashed  int
	Unsafe, Taken []string
	used          map[string]bool // ids given, folded (gate.FoldName)
}

// Assign is the id of the next draft: the log's own (source) when a set
// can hold it (at most gate.MaxRunIDBytes, no control or invisible
// character, not blank) and no earlier draft's reads the same, else the
// hash of its text (ID; "-2", "-3" … after it in the rare case that is
// taken too).
func (d *IDs) Assign(source, key string) string {
	if d.used == nil {
		d.used = map[string]bool{}
	}
	switch {
	case source == "":
	case !SafeID(source):
		d.Unsafe = append(d.Unsafe, strconv.Quote(gate.ClipID(source)))
	case d.used[gate.FoldName(source)]:
		d.Taken = append(d.Taken, strconv.Quote(gate.ClipID(source)))
	default:
		d.used[gate.FoldName(source)] = true
		d.Kept++
		return source
	}
	id := ID(key)
	for n := 2; d.used[gate.FoldName(id)]; n++ {
		id = fmt.Sprintf("%s-%d", ID(key), n)
	}
	d.used[gate.FoldName(id)] = true
	if source != "" {
		d.Hashed++
	}
	return id
}

// SafeID reports whether a log's id can be a set's query id as it is:
// not blank, at most gate.MaxRunIDBytes, no control or invisible
// character (the set's reader refuses those), no space at either end.
func SafeID(id string) bool {
	if strings.TrimSpace(id) != id || id == "" || len(id) > gate.MaxRunIDBytes {
		return false
	}
	if _, _, bad := gate.ControlChar(id); bad {
		return false
	}
	_, _, bad := gate.InvisibleChar(id)
	return !bad
}

// String says it in a line ("" when no draft had an id of the log's).
func (d IDs) String() string {
	if d.Kept+d.Hashed == 0 {
		return ""
	}
	s := fmt.Sprintf("kept the log's own query ids for %d %s", d.Kept, gate.Plural(d.Kept, "query", "queries"))
	if len(d.Unsafe) > 0 {
		s += fmt.Sprintf("; hashed %d a set cannot hold (blank, too long, or a control or invisible character): %s", len(d.Unsafe), strings.Join(first(d.Unsafe, 5), ", "))
	}
	if len(d.Taken) > 0 {
		s += fmt.Sprintf("; hashed %d already given to another query: %s", len(d.Taken), strings.Join(first(d.Taken, 5), ", "))
	}
	return s
}

// first is at most n of s.
func first(s []string, n int) []string { return s[:min(len(s), n)] }
