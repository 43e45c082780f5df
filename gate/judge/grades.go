package judge

import (
	"sort"

	"github.com/recallgate/recallgate/gate"
)

// WithGrades is a view of the set in which the grades extra gives (query
// id → document → grade, a judge program's, under a policy that lets them
// count) are gold where no person judged the document: those documents
// are judged from then on, for the unjudged counts, the range and the
// label debt as for the scores. A query marked unanswerable takes none
// (its people found no answer); the queries it changes are copies, the
// set itself is left as it was. applied lists what was taken.
func WithGrades(s *gate.Set, extra map[string]map[string]int) (view *gate.Set, applied map[string][]string) {
	applied = map[string][]string{}
	view = s.Replaced(func(q *gate.Query) *gate.Query {
		grades := extra[q.ID]
		if len(grades) == 0 || q.Unanswerable {
			return q
		}
		c := *q
		c.Gold = make(map[string]int, len(q.Gold)+len(grades))
		for d, g := range q.Gold {
			c.Gold[d] = g
		}
		for d, g := range grades {
			if !q.Judged(d) && g >= 0 && g <= gate.MaxGrade {
				c.Gold[d] = g
				applied[q.ID] = append(applied[q.ID], d)
			}
		}
		sort.Strings(applied[q.ID])
		c.Prepare()
		return &c
	})
	return view, applied
}
