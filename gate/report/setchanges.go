package report

import (
	"errors"
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/proposal"
)

// SetChangesInfo is the set that scored both sides and what the change's
// own set proposes to change in it (lists of query ids).
type SetChangesInfo struct {
	// Source is base-commit (the base commit's set scored) or given (the
	// set given: no base commit, or one without a set).
	Source string `json:"source"`
	// Queries is how many queries the scored set holds.
	Queries int `json:"queries"`
	// The proposal: each a list of query ids (see gate.SetChanges).
	Added       []string `json:"added"`
	Removed     []string `json:"removed"`
	Relabelled  []string `json:"relabelled"`
	Reworded    []string `json:"reworded"`
	Remarked    []string `json:"remarked"`
	JudgeGrades []string `json:"judge_grades"`
}

// setChangesInfo is the JSON form of sc (nil for nil).
func setChangesInfo(sc *gate.SetChanges) *SetChangesInfo {
	if sc == nil {
		return nil
	}
	return &SetChangesInfo{Source: sc.Source, Queries: sc.Queries, Added: list(sc.Added), Removed: list(sc.Removed),
		Relabelled: list(sc.Relabelled), Reworded: list(sc.Reworded), Remarked: list(sc.Remarked), JudgeGrades: list(sc.JudgeGrades)}
}

// changes is s as the proposal package reads it.
func (s *SetChangesInfo) changes() *gate.SetChanges {
	if s == nil {
		return nil
	}
	return &gate.SetChanges{Source: s.Source, Queries: s.Queries, Added: s.Added, Removed: s.Removed,
		Relabelled: s.Relabelled, Reworded: s.Reworded, Remarked: s.Remarked, JudgeGrades: s.JudgeGrades}
}

// maxSetListIDs bounds each list of a set_changes read back.
const maxSetListIDs = 1 << 20

// validate checks set_changes read back: a known source, a count, lists
// present (empty for the given set), and ids with no control character,
// none listed twice.
func (s *SetChangesInfo) validate() error {
	if s == nil {
		return nil
	}
	if s.Source != gate.SetBaseCommit && s.Source != gate.SetGiven {
		return fmt.Errorf("set_changes.source %q: want %s or %s", s.Source, gate.SetBaseCommit, gate.SetGiven)
	}
	if s.Queries < 0 {
		return fmt.Errorf("set_changes.queries %d: want a count", s.Queries)
	}
	for _, l := range []struct {
		name string
		ids  []string
	}{{"added", s.Added}, {"removed", s.Removed}, {"relabelled", s.Relabelled}, {"reworded", s.Reworded}, {"remarked", s.Remarked}, {"judge_grades", s.JudgeGrades}} {
		at := "set_changes." + l.name
		switch {
		case l.ids == nil:
			return fmt.Errorf("%s: missing (want a list of query ids)", at)
		case len(l.ids) > maxSetListIDs:
			return fmt.Errorf("%s: %d ids, more than %d", at, len(l.ids), maxSetListIDs)
		case s.Source == gate.SetGiven && len(l.ids) > 0:
			return errors.New("set_changes: the given set proposes no change")
		}
		seen := map[string]bool{}
		for i, id := range l.ids {
			if err := plain(fmt.Sprintf("%s[%d]", at, i), id); err != nil {
				return err
			}
			if seen[id] {
				return fmt.Errorf("%s[%d] %q is listed twice", at, i, id)
			}
			seen[id] = true
		}
	}
	return nil
}

// setHeadline is the headline's clause on the set ("" for none), see
// proposal.Headline; it holds figures only.
func setHeadline(r *CompareReport) string {
	return proposal.Headline(r.SetChanges.changes(), r.Regressed)
}

// setLines are the proposal's lists, one line each, the ids written by
// id (the format's own escaping).
func setLines(r *CompareReport, id func(string) string) []string {
	return proposal.Lines(r.SetChanges.changes(), r.Regressed, id)
}
