package sethealth

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// Options say what the health check can know.
type Options struct {
	// Corpus holds the known document ids; nil skips the corpus check.
	Corpus map[string]bool
	// Now and MaxLabelAge flag labels verified longer ago; 0 skips it.
	Now         time.Time
	MaxLabelAge time.Duration
}

// Check lists what weakens the eval set as an instrument, most serious
// first. An empty list means nothing was found.
func Check(s *gate.Set, o Options) []string {
	var out []string
	n := s.Answerable()
	switch {
	case n < gate.SetSizeLarge:
		out = append(out, fmt.Sprintf("only %d answerable %s: one query flipping moves mean recall by %.3f; %s", n, gate.Plural(n, "query", "queries"), 1/float64(max(n, 1)), gate.SetSizeAdvice))
	case n < gate.SetSizeSmall:
		out = append(out, fmt.Sprintf("%d answerable queries catch large drops; fifty to two hundred catch the small ones", n))
	}
	if o.Corpus != nil {
		missing := MissingGold(s, o.Corpus)
		ids := make([]string, 0, len(missing))
		for id := range missing {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return s.Query(ids[i]).Line < s.Query(ids[j]).Line })
		for _, id := range ids {
			out = append(out, fmt.Sprintf("query %s (line %d): gold not in the corpus: %s (a data-quality bug, not a retrieval failure)", gate.ClipID(id), s.Query(id).Line, strings.Join(missing[id], ", ")))
		}
	}
	known := 0
	for _, q := range s.Queries {
		for _, seg := range q.Segments {
			if seg == "known-failure" {
				known++
				break
			}
		}
	}
	if share := float64(known) / float64(len(s.Queries)); known == 0 {
		out = append(out, "no query has the segment \"known-failure\": mark the complaint-driven ones, aim for about half")
	} else if share < 0.3 || share > 0.7 {
		out = append(out, fmt.Sprintf("%d of %d queries (%.0f%%) are known failures: aim for about half, or regressions on working queries (or fixes) are under-weighted", known, len(s.Queries), 100*share))
	}
	if o.MaxLabelAge > 0 && !o.Now.IsZero() {
		var stale, undated []string
		for _, q := range s.Queries {
			switch {
			case q.Verified.IsZero():
				undated = append(undated, q.ID)
			case o.Now.Sub(q.Verified) > o.MaxLabelAge:
				stale = append(stale, q.ID)
			}
		}
		if len(stale) > 0 {
			out = append(out, fmt.Sprintf("%d %s labels verified more than %d days ago: %s", len(stale), gate.Plural(len(stale), "query has", "queries have"), int(o.MaxLabelAge.Hours()/24), gate.JoinFirst(stale, 10)))
		}
		if len(undated) > 0 {
			out = append(out, fmt.Sprintf("%d %s no \"verified\" date: %s", len(undated), gate.Plural(len(undated), "query has", "queries have"), gate.JoinFirst(undated, 10)))
		}
	}
	texts := map[string][]string{}
	var order []string
	for _, q := range s.Queries {
		k := gate.NormalizeText(q.Text)
		if k == "" {
			continue
		}
		if len(texts[k]) == 0 {
			order = append(order, k)
		}
		texts[k] = append(texts[k], q.ID)
	}
	for _, k := range order {
		if ids := texts[k]; len(ids) > 1 {
			out = append(out, fmt.Sprintf("queries %s have the same text", strings.Join(ids, ", ")))
		}
	}
	return out
}

// MissingGold lists, per query id in set order, the gold documents (any
// grade) that are not in the corpus, and the gold sections whose document
// is not or lacks the anchor (a renamed or removed heading, known once the
// set's sections are placed: Set.PlaceSections): a data-quality bug, not
// a retrieval failure.
func MissingGold(s *gate.Set, ids map[string]bool) map[string][]string {
	out := map[string][]string{}
	for _, q := range s.Queries {
		for d := range q.Gold {
			if q.GoldMissing(d, ids) {
				out[q.ID] = append(out[q.ID], d)
			}
		}
		sort.Strings(out[q.ID])
		if len(out[q.ID]) == 0 {
			delete(out, q.ID)
		}
	}
	return out
}
