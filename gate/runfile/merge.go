package runfile

import (
	"fmt"
	"sort"

	"github.com/recallgate/recallgate/gate"
)

// MergeShards joins the shard runs of one set, read with ReadRunFile, into
// one run in set order. A query in two shards, a set query in none (a gap:
// a shard job is missing or failed) and a query the set lacks are input
// errors naming the file.
func MergeShards(set *gate.Set, paths []string) ([]gate.Result, error) {
	from := map[string]string{}
	byID := map[string]gate.Result{}
	for _, path := range paths {
		meta, err := ReadRunFile(path, func(r gate.Result) error {
			if prev, dup := from[r.ID]; dup {
				return &gate.InputError{File: path, Line: r.Line, Err: fmt.Errorf("query %s is also in %s: the shards overlap", gate.ClipID(r.ID), prev)}
			}
			from[r.ID] = path
			byID[r.ID] = gate.Result{ID: r.ID, Hits: append([]gate.Hit(nil), r.Hits...), Context: r.Context, Abstain: r.Abstain}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if err := meta.CheckSet(set, path); err != nil {
			return nil, err
		}
	}
	var missing, unknown []string
	results := make([]gate.Result, 0, len(set.Queries))
	for _, q := range set.Queries {
		r, ok := byID[q.ID]
		if !ok {
			missing = append(missing, q.ID)
			continue
		}
		results = append(results, r)
	}
	for id := range byID {
		if set.Query(id) == nil {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(unknown)
	if len(missing) > 0 {
		return nil, &gate.InputError{File: set.Path, Err: fmt.Errorf("%d queries are in no shard (a gap: a shard job is missing or failed): %s", len(missing), gate.JoinFirst(missing, 10))}
	}
	if len(unknown) > 0 {
		return nil, &gate.InputError{File: from[unknown[0]], Err: fmt.Errorf("%d queries are not in the set %s: %s", len(unknown), set.Path, gate.JoinFirst(unknown, 10))}
	}
	return results, nil
}
