package gate

import (
	"math"
	"sort"
)

// Unjudged counts unjudged documents at the two depths.
type Unjudged struct {
	// AtK and AtN count unjudged documents in the top k and top N.
	AtK, AtN int
	// ReturnedK is how many documents the top k held (the Judged@k denominator).
	ReturnedK int
	// Precision and NDCG are this side's precision@k and nDCG@k had every
	// document nobody judged in the head's top k been relevant at the
	// set's top grade (see ifRelevant); the same documents on both sides.
	Precision, NDCG float64
}

// UnjudgedRange bounds the head's mean precision@k and nDCG@k by the
// documents nobody judged in its top k: [0] counts them non-relevant (the
// score), [1] relevant at the set's top grade. For precision [1] ≥ [0];
// nDCG's ideal grows with them too, so its [1] may be the lower.
type UnjudgedRange struct {
	// Docs and Queries count the unjudged documents in the head's top k
	// and the queries that hold them.
	Docs, Queries int
	// Precision and NDCG are the head's mean precision@k and nDCG@k,
	// [0] with them non-relevant, [1] relevant.
	Precision, NDCG [2]float64
}

// ifRelevant is precision@k and nDCG@k of docs (a side's ranking) with
// every document of u counted relevant at grade top, and the ideal
// ranking holding those len(u) documents besides the gold.
func ifRelevant(q *Query, docs []string, u map[string]bool, k, top int) (prec, ndcg float64) {
	dcg, rel := 0.0, 0
	for i, d := range docs {
		if i >= k {
			break
		}
		g := q.Gold[d]
		if u[d] {
			g = top
		}
		if g > 0 {
			rel++
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	grades := make([]int, 0, len(q.Gold)+len(u))
	for _, g := range q.Gold {
		grades = append(grades, g)
	}
	for range u {
		grades = append(grades, top)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	ideal := 0.0
	for i, g := range grades {
		if i >= k {
			break
		}
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal > 0 {
		ndcg = min(1, dcg/ideal)
	}
	return float64(rel) / float64(k), ndcg
}

// headRange is the head's UnjudgedRange over the queries of the summary
// (the non-synthetic ones), nil when no unjudged document reaches its top k.
// scored is the head as trec_eval scores it (the comparison's own head,
// unless it reads condensed lists): the range's non-relevant end is its.
func (c *Comparison) headRange(scored *Scorecard) *UnjudgedRange {
	r := &UnjudgedRange{Precision: [2]float64{scored.Summary.Precision, scored.Summary.Precision}, NDCG: [2]float64{scored.Summary.NDCG, scored.Summary.NDCG}}
	n := 0
	var dp, dn float64
	for i := range c.Queries {
		p := &c.Queries[i]
		if p.Synthetic {
			continue
		}
		n++
		if u := p.HeadUnjudged; u.AtK > 0 {
			r.Docs += u.AtK
			r.Queries++
			dp += u.Precision - scored.Queries[i].Precision
			dn += u.NDCG - scored.Queries[i].NDCG
		}
	}
	if r.Docs == 0 {
		return nil
	}
	r.Precision[1] += dp / float64(n)
	r.NDCG[1] += dn / float64(n)
	return r
}

// topGrade is the highest gold grade of the set (at least 1).
func (s *Set) topGrade() int {
	top := 1
	for _, q := range s.Queries {
		for _, g := range q.Gold {
			top = max(top, g)
		}
	}
	return top
}

// unjudgedDoc reports whether doc is one nobody judged for q: not in its
// judgements, and, when the corpus is known, a document the corpus holds.
// An id the corpus lacks is no document: it is judged non-relevant, in
// neither end of the unjudged range and no label debt.
func unjudgedDoc(q *Query, doc string, corpus map[string]bool) bool {
	return !q.Judged(doc) && (corpus == nil || held(corpus, doc))
}

// unjudged counts the documents of docs nobody judged for q (unjudgedDoc),
// in the top k and the top N; with base given, it also lists those in the
// top k that were not in base's top k.
func unjudged(q *Query, docs []string, d Depth, base []string, corpus map[string]bool) (Unjudged, []string) {
	var u Unjudged
	var fresh []string
	inBase := map[string]bool{}
	for i, doc := range base {
		if i >= d.Context {
			break
		}
		inBase[doc] = true
	}
	for i, doc := range docs {
		if i < d.Context {
			u.ReturnedK++
		}
		if !unjudgedDoc(q, doc, corpus) {
			continue
		}
		if i < d.Candidates {
			u.AtN++
		}
		if i < d.Context {
			u.AtK++
			if base != nil && !inBase[doc] {
				fresh = append(fresh, doc)
			}
		}
	}
	return u, fresh
}

// NotInCorpus counts, per side (base, head), the returned ids the corpus
// does not hold, when the corpus is known.
type NotInCorpus struct {
	// Count is how many (query, id) pairs of each side's kept top
	// max(N, k) name no document of the corpus.
	Count [2]int
	// Queries is how many queries of each side returned one.
	Queries [2]int
	// First lists up to MaxNotInCorpusShown distinct such ids per side,
	// in the order they were met (set order, then rank).
	First [2][]string
}

// MaxNotInCorpusShown is how many ids the corpus lacks a report names per side.
const MaxNotInCorpusShown = 10

// notInCorpus counts the ids of each side's answerable queries the corpus
// lacks; nil when the corpus is not known.
func notInCorpus(base, head *Scorecard, corpus map[string]bool) *NotInCorpus {
	if corpus == nil {
		return nil
	}
	out := &NotInCorpus{}
	for side, card := range []*Scorecard{base, head} {
		seen := map[string]bool{}
		for i := range card.Queries {
			hit := false
			for _, d := range card.Queries[i].Docs {
				if held(corpus, d) {
					continue
				}
				out.Count[side]++
				hit = true
				if !seen[d] && len(out.First[side]) < MaxNotInCorpusShown {
					out.First[side] = append(out.First[side], d)
				}
				seen[d] = true
			}
			if hit {
				out.Queries[side]++
			}
		}
	}
	return out
}

// Replaced is a view of the set in which each query is replace's (q
// itself to keep it; a changed query is a copy, given back prepared with
// Query.Prepare): the set itself is left as it was.
func (s *Set) Replaced(replace func(q *Query) *Query) *Set {
	view := &Set{Path: s.Path, Format: s.Format, Fingerprint: s.Fingerprint, Warnings: s.Warnings, byID: map[string]*Query{}}
	for _, q := range s.Queries {
		view.add(replace(q))
	}
	return view
}
