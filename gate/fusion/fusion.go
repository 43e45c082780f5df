// Package fusion fuses the ranked lists of two or more retrievers into one
// (reciprocal rank fusion and the score combinations CombSUM, CombMNZ,
// CombMAX and a weighted sum, over normalised scores) and chooses among
// fusion settings honestly: a swept fusion (a list of k or a grid of
// weights) is scored by leave-one-query-out cross-validation, beside its
// in-sample best and the gap between them (Sweep). It makes no retrieval:
// the experiment room hands it the inputs' runs.
package fusion

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// The fusion methods.
const (
	// RRF is reciprocal rank fusion: Σ wᵢ / (k + rankᵢ) over the inputs
	// that hold the document (weights 1 unless given).
	RRF = "rrf"
	// CombSUM is Σ sᵢ over the normalised scores.
	CombSUM = "combsum"
	// CombMNZ is CombSUM times the number of inputs that hold the document.
	CombMNZ = "combmnz"
	// CombMAX is the largest normalised score.
	CombMAX = "combmax"
	// WSum is Σ wᵢ·sᵢ over the normalised scores.
	WSum = "wsum"
)

// Methods are the fusion methods, in the order the docs give them.
var Methods = []string{RRF, CombSUM, CombMNZ, CombMAX, WSum}

// The score normalisations, applied to each input's list (cut to N
// documents) before a score method combines them.
const (
	// MinMax maps the list's scores to (s − min) / (max − min); a list
	// whose scores are all equal gets 1 for each.
	MinMax = "minmax"
	// ZMUV maps them to (s − mean) / standard deviation (population); a
	// list whose scores are all equal gets 0 for each.
	ZMUV = "zmuv"
	// Rank replaces the score by (L − r + 1) / L for the document at rank
	// r of a list of L documents: 1 for the first, 1/L for the last.
	Rank = "rank"
	// None keeps the retriever's scores.
	None = "none"
)

// Norms are the normalisations, the default first.
var Norms = []string{MinMax, ZMUV, Rank, None}

// DefaultK is rrf's constant when the config gives none.
const DefaultK = 60

// MaxCandidates is how many fused candidates one experiment may hold in
// all: a fusion with a list of k or a grid of weights counts each point.
const MaxCandidates = 64

// Setting is one fusion: its method, normalisation, rrf constant and
// weights (nil: each input weighs 1).
type Setting struct {
	Method, Norm string
	K            float64
	Weights      []float64
}

// String is the setting as a reader names it: "k=60", "w=0.7/0.3", or
// both for a weighted rrf.
func (s Setting) String() string {
	var parts []string
	if s.Method == RRF {
		parts = append(parts, "k="+num(s.K))
	}
	if s.Weights != nil {
		w := make([]string, len(s.Weights))
		for i, x := range s.Weights {
			w[i] = num(x)
		}
		parts = append(parts, "w="+strings.Join(w, "/"))
	}
	if len(parts) == 0 {
		return s.Method
	}
	return strings.Join(parts, " ")
}

// num writes a setting's number as short as it reads: 60, 0.7.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// Table is the setting as a [fusion.NAME] table a user can paste into a
// config: of, method, norm, and k or weights when the method reads them.
func (s Setting) Table(name string, of []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[fusion.%s]\n", strconv.Quote(name))
	q := make([]string, len(of))
	for i, o := range of {
		q[i] = strconv.Quote(o)
	}
	fmt.Fprintf(&b, "of = [%s]\n", strings.Join(q, ", "))
	fmt.Fprintf(&b, "method = %q\n", s.Method)
	if s.Method != RRF {
		fmt.Fprintf(&b, "norm = %q\n", s.Norm)
	}
	if s.Method == RRF {
		fmt.Fprintf(&b, "k = %s\n", num(s.K))
	}
	if s.Weights != nil {
		w := make([]string, len(s.Weights))
		for i, x := range s.Weights {
			w[i] = num(x)
		}
		fmt.Fprintf(&b, "weights = [%s]\n", strings.Join(w, ", "))
	}
	return b.String()
}

// entry is one document of one input list: its first hit's rank among
// the list's documents (1-based) and its normalised score.
type entry struct {
	rank  int
	score float64
	hit   gate.Hit
}

// collapse cuts hits to their first n distinct documents (the first hit
// of each, as scoring collapses chunks), keyed by document.
func collapse(hits []gate.Hit, n int) ([]gate.Hit, map[string]int) {
	seen := map[string]int{}
	var docs []gate.Hit
	for _, h := range hits {
		if len(docs) == n {
			break
		}
		if _, ok := seen[h.Doc]; ok {
			continue
		}
		seen[h.Doc] = len(docs)
		docs = append(docs, h)
	}
	return docs, seen
}

// normalise is each document's normalised score, in list order.
func normalise(docs []gate.Hit, norm string) []float64 {
	out := make([]float64, len(docs))
	if len(docs) == 0 {
		return out
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, h := range docs {
		lo, hi, sum = math.Min(lo, h.Score), math.Max(hi, h.Score), sum+h.Score
	}
	mean := sum / float64(len(docs))
	sd := 0.0
	for _, h := range docs {
		sd += (h.Score - mean) * (h.Score - mean)
	}
	sd = math.Sqrt(sd / float64(len(docs)))
	for i, h := range docs {
		switch norm {
		case MinMax:
			out[i] = 1
			if hi > lo {
				out[i] = (h.Score - lo) / (hi - lo)
			}
		case ZMUV:
			if sd > 0 {
				out[i] = (h.Score - mean) / sd
			}
		case Rank:
			out[i] = float64(len(docs)-i) / float64(len(docs))
		default:
			out[i] = h.Score
		}
	}
	return out
}

// Fuse fuses the inputs' ranked hits for one query into one list of at
// most n documents. Each input is first collapsed to its documents (the
// first hit of each) and cut to n. A document missing from an input gets
// that input's lowest normalised score under a score method, and nothing
// from it under rrf. Ties are broken by document id. Each fused hit is
// the document's first hit in the first input that holds it, with the
// fused score.
func Fuse(s Setting, inputs [][]gate.Hit, n int) []gate.Hit {
	lists := make([][]gate.Hit, len(inputs))
	index := make([]map[string]int, len(inputs))
	norms := make([][]float64, len(inputs))
	floor := make([]float64, len(inputs))
	var order []string
	first := map[string]gate.Hit{}
	for i, hits := range inputs {
		lists[i], index[i] = collapse(hits, n)
		if s.Method != RRF {
			norms[i] = normalise(lists[i], s.Norm)
			if len(norms[i]) > 0 {
				floor[i] = slices.Min(norms[i])
			}
		}
		for _, h := range lists[i] {
			if _, ok := first[h.Doc]; !ok {
				first[h.Doc] = h
				order = append(order, h.Doc)
			}
		}
	}
	weight := func(i int) float64 {
		if s.Weights == nil {
			return 1
		}
		return s.Weights[i]
	}
	scores := make(map[string]float64, len(order))
	for _, doc := range order {
		v, held := 0.0, 0
		for i := range lists {
			r, ok := index[i][doc]
			if ok {
				held++
			}
			if s.Method == RRF {
				if ok {
					v += weight(i) / (s.K + float64(r+1))
				}
				continue
			}
			x := floor[i]
			if ok {
				x = norms[i][r]
			}
			switch s.Method {
			case CombMAX:
				if i == 0 || x > v {
					v = x
				}
			case WSum:
				v += weight(i) * x
			default:
				v += x
			}
		}
		if s.Method == CombMNZ {
			v *= float64(held)
		}
		scores[doc] = v
	}
	slices.SortFunc(order, func(a, b string) int {
		if scores[a] != scores[b] {
			if scores[a] > scores[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(order) > n {
		order = order[:n]
	}
	out := make([]gate.Hit, len(order))
	for i, doc := range order {
		h := first[doc]
		h.Score = scores[doc]
		out[i] = h
	}
	return out
}

// Grid is every weight vector of dims inputs whose weights are multiples
// of step and sum to 1, in lexicographic order of the weights (the first
// input's smallest first). step must divide 1 (0.1, 0.25, 0.5); the
// caller bounds GridSize first.
func Grid(dims int, step float64) ([][]float64, error) {
	if dims < 2 {
		return nil, fmt.Errorf("a grid needs two or more inputs, got %d", dims)
	}
	units := int(math.Round(1 / step))
	if step <= 0 || step > 1 || math.Abs(float64(units)*step-1) > 1e-9 {
		return nil, fmt.Errorf("grid step %v does not divide 1 (use 0.1, 0.2, 0.25 or 0.5)", step)
	}
	var out [][]float64
	cur := make([]int, dims)
	var walk func(i, left int)
	walk = func(i, left int) {
		if i == dims-1 {
			cur[i] = left
			w := make([]float64, dims)
			for j, u := range cur {
				w[j] = math.Round(float64(u)*step*1e9) / 1e9
			}
			out = append(out, w)
			return
		}
		for u := 0; u <= left; u++ {
			cur[i] = u
			walk(i+1, left-u)
		}
	}
	walk(0, units)
	return out, nil
}

// GridSize is how many points Grid(dims, step) holds: C(units+dims−1,
// dims−1) for units = 1/step, without making them.
func GridSize(dims int, step float64) int {
	units := int(math.Round(1 / step))
	n := 1.0
	for i := 1; i < dims; i++ {
		n = n * float64(units+i) / float64(i)
	}
	return int(math.Round(n))
}
