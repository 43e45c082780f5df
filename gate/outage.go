package gate

import (
	"fmt"
)

// EmptyShareWarning is the share of queries answered with nothing at which
// the report warns (the boundary included: 8 of 40 warns).
const EmptyShareWarning = 0.2

// checkOutage refuses a side that looks like a broken index rather than a
// retriever: no hits for any query, or (with the corpus known) only
// documents the corpus does not hold. Both are infrastructure errors: a
// gate that scored them would compare two outages and pass. It returns a
// warning when the side answered nothing for EmptyShareWarning of the
// queries or more.
func checkOutage(side string, c *Scorecard, corpus map[string]bool) (string, error) {
	total, empty, known := 0, 0, 0
	for _, q := range c.Queries {
		total++
		if q.Returned == 0 {
			empty++
		}
		for _, d := range q.Docs {
			if corpus == nil || held(corpus, d) {
				known++
			}
		}
	}
	for _, u := range c.Unanswerable {
		total++
		if u.Returned == 0 {
			empty++
		}
	}
	if total == 0 {
		return "", nil
	}
	if empty == total {
		return "", &InfraError{Err: fmt.Errorf("%s: every one of the %d queries came back with no hits: the index looks empty or unreachable (a broken ingestion job?), so nothing is scored", side, total)}
	}
	if corpus != nil && known == 0 {
		return "", &InfraError{Err: fmt.Errorf("%s: no query returned a document the corpus holds: the retriever answers from another index (or its doc ids are mapped wrong), so nothing is scored", side)}
	}
	if float64(empty) >= EmptyShareWarning*float64(total) {
		return fmt.Sprintf("%s answered %d of %d queries with no hits (%.0f%% or more): is its index complete?", side, empty, total, EmptyShareWarning*100), nil
	}
	return "", nil
}
