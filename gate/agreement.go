package gate

import "sort"

// Agreement is how far two labellers agree on the documents both judged.
type Agreement struct {
	// A and B are the two labellers compared (the two who judged most).
	A, B string
	// Pairs counts the (query, document) pairs both judged.
	Pairs int
	// Observed is the share of those pairs with the same grade.
	Observed float64
	// Kappa is Cohen's kappa: (observed − expected) / (1 − expected), the
	// expected agreement from each labeller's own grade frequencies. 1 is
	// perfect agreement, 0 what chance gives.
	Kappa float64
}

// LabellerAgreement compares the two labellers who judged the most
// (query, document) pairs of the set, on the pairs both judged. ok is false
// when the set has fewer than two labellers or they share no pair.
func LabellerAgreement(s *Set) (Agreement, bool) {
	count := map[string]int{}
	for _, q := range s.Queries {
		for who, g := range q.Judgments {
			count[who] += len(g)
		}
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) < 2 {
		return Agreement{}, false
	}
	a := Agreement{A: names[0], B: names[1]}
	var ga, gb []int
	for _, q := range s.Queries {
		ja, jb := q.Judgments[a.A], q.Judgments[a.B]
		for doc, x := range ja {
			if y, ok := jb[doc]; ok {
				ga, gb = append(ga, x), append(gb, y)
			}
		}
	}
	if len(ga) == 0 {
		return a, false
	}
	a.Pairs = len(ga)
	a.Observed, a.Kappa = cohenKappa(ga, gb)
	return a, true
}

// cohenKappa returns the observed agreement and Cohen's kappa of two
// equally long lists of grades. When chance alone would agree fully (both
// gave one and the same grade throughout) kappa is 1 if they agree.
func cohenKappa(a, b []int) (observed, kappa float64) {
	n := float64(len(a))
	var fa, fb [MaxGrade + 1]float64
	agree := 0.0
	for i := range a {
		fa[a[i]]++
		fb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	observed = agree / n
	expected := 0.0
	for g := range fa {
		expected += (fa[g] / n) * (fb[g] / n)
	}
	if expected == 1 {
		return observed, 1
	}
	return observed, (observed - expected) / (1 - expected)
}
