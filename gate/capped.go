package gate

import "fmt"

// checkCapped says when a side answered most queries with fewer distinct
// documents than the N candidates asked for, more than half of them
// stopping at the same count (a service's size limit, "size": 20, caps
// every answer; a stricter match returns fewer on some queries, not the
// same few on most), while the other side returned more than that on most
// queries: the capped side's gold past that rank reads as a retrieval
// miss. A corpus no larger than the cap explains it and says nothing.
// "" when it is not so.
func checkCapped(side string, c, other *Scorecard, corpus map[string]bool) string {
	n := c.Depth.Candidates
	short, most := 0, 0
	for _, q := range c.Queries {
		if q.Returned < n {
			short++
			most = max(most, q.Returned)
		}
	}
	atMost, beyond := 0, 0
	for _, q := range c.Queries {
		if q.Returned == most {
			atMost++
		}
	}
	for _, q := range other.Queries {
		if q.Returned > most {
			beyond++
		}
	}
	half := len(c.Queries)
	if 2*short <= half || 2*atMost <= half || 2*beyond <= len(other.Queries) || most == 0 || (corpus != nil && len(corpus) <= most) {
		return ""
	}
	return fmt.Sprintf("%s returned at most %d %s on %d of %d queries; N = %d: does it cap its answers below the candidates asked (a size limit of the service)? Its gold past rank %d reads as a retrieval miss",
		side, most, Plural(most, "document", "documents"), short, len(c.Queries), n, most)
}
