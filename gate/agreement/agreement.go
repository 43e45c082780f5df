package agreement

import (
	"sort"

	"github.com/recallgate/recallgate/gate"
)

// Result is how far two labellers agree on the documents both judged.
type Result struct {
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
	// Weighted is the quadratic-weighted kappa, for graded labels: a 3
	// against a 2 counts as a near miss, a 3 against a 0 as a full miss.
	Weighted float64
	// Binary is Cohen's kappa on relevant (grade > 0) against not.
	Binary float64
}

// Labellers compares the two labellers who judged the most
// (query, document) pairs of the set, on the pairs both judged. ok is false
// when the set has fewer than two labellers or they share no pair.
func Labellers(s *gate.Set) (Result, bool) {
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
		return Result{}, false
	}
	a := Result{A: names[0], B: names[1]}
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
	g := Grades(ga, gb)
	g.A, g.B = a.A, a.B
	return g, true
}

// Grades is the agreement of two equally long, non-empty lists of
// grades 0–gate.MaxGrade, pair by pair (A and B left empty): the judge's
// calibration against people speaks it too.
func Grades(ga, gb []int) Result {
	a := Result{Pairs: len(ga)}
	a.Observed, a.Kappa = cohenKappa(ga, gb)
	a.Weighted = weightedKappa(ga, gb)
	ba, bb := make([]int, len(ga)), make([]int, len(gb))
	for i := range ga {
		ba[i], bb[i] = min(ga[i], 1), min(gb[i], 1)
	}
	_, a.Binary = cohenKappa(ba, bb)
	return a
}

// weightedKappa is Cohen's kappa with quadratic weights over the grades
// 0–gate.MaxGrade: 1 − Σ w·observed / Σ w·expected, w = (i − j)² / gate.MaxGrade².
// It is 1 when the expected disagreement is 0 (one grade throughout).
func weightedKappa(a, b []int) float64 {
	n := float64(len(a))
	var fa, fb [gate.MaxGrade + 1]float64
	var obs [gate.MaxGrade + 1][gate.MaxGrade + 1]float64
	for i := range a {
		fa[a[i]]++
		fb[b[i]]++
		obs[a[i]][b[i]]++
	}
	num, den := 0.0, 0.0
	for i := 0; i <= gate.MaxGrade; i++ {
		for j := 0; j <= gate.MaxGrade; j++ {
			w := float64((i-j)*(i-j)) / float64(gate.MaxGrade*gate.MaxGrade)
			num += w * obs[i][j] / n
			den += w * (fa[i] / n) * (fb[j] / n)
		}
	}
	if den == 0 {
		return 1
	}
	return 1 - num/den
}

// cohenKappa returns the observed agreement and Cohen's kappa of two
// equally long lists of grades. When chance alone would agree fully (both
// gave one and the same grade throughout) kappa is 1 if they agree.
func cohenKappa(a, b []int) (observed, kappa float64) {
	n := float64(len(a))
	var fa, fb [gate.MaxGrade + 1]float64
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
