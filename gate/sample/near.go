package sample

import (
	"math"
	"sort"
	"strings"
)

// mergeNear merges near-duplicate queries (see similar) into the most asked
// of them. Candidate pairs come from prefix filtering over each query's
// rarest words and their one-letter deletions, so the work stays near
// linear for short queries.
func mergeNear(qs []Query, threshold float64) ([]Query, int) {
	if threshold >= 1 || len(qs) < 2 {
		return qs, 0
	}
	toks := make([][]string, len(qs))
	negs := make([]string, len(qs))
	freq := map[string]int{}
	for i, q := range qs {
		toks[i] = uniq(strings.Fields(q.Key))
		negs[i] = negationKey(toks[i])
		for _, t := range toks[i] {
			freq[t]++
		}
	}
	// Each query is indexed by the deletion keys of all its words and
	// looks up those of its rarest few (prefix filtering: a query that
	// shares at least threshold of its words with an earlier one shares
	// one of any len-ceil(threshold*len)+1 of them, typos included, so
	// no pair is missed; rare words first keeps the lookups short).
	all := make([][]string, len(qs))
	look := make([][]string, len(qs))
	for i, ts := range toks {
		r := append([]string(nil), ts...)
		sort.Slice(r, func(a, b int) bool {
			if freq[r[a]] != freq[r[b]] {
				return freq[r[a]] < freq[r[b]]
			}
			return r[a] < r[b]
		})
		n := min(max(len(r)-int(math.Ceil(threshold*float64(len(r))))+1, 1), len(r))
		seen := map[string]bool{}
		for w, t := range r {
			for _, k := range deletionKeys(t) {
				if !seen[k] {
					seen[k] = true
					all[i] = append(all[i], k)
					if w < n {
						look[i] = append(look[i], k)
					}
				}
			}
		}
	}
	parent := make([]int, len(qs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	index := map[string][]int{}
	stamp := make([]int, len(qs)) // stamp[j] == i+1: j is already a candidate of i
	var cand []int
	for i := range qs {
		cand = cand[:0]
		for _, k := range look[i] {
			for _, j := range index[k] {
				if stamp[j] != i+1 {
					stamp[j] = i + 1
					cand = append(cand, j)
				}
			}
		}
		for _, k := range all[i] {
			index[k] = append(index[k], i)
		}
		for _, j := range cand {
			if nearTwin(toks[i], toks[j], negs[i], negs[j], threshold) {
				a, b := find(i), find(j)
				if a != b {
					// Keep the more asked (then earlier) query as the root.
					if qs[a].Count < qs[b].Count || (qs[a].Count == qs[b].Count && a > b) {
						a, b = b, a
					}
					parent[b] = a
				}
			}
		}
	}
	out := make([]Query, 0, len(qs))
	pos := map[int]int{}
	merged := 0
	for i := range qs {
		r := find(i)
		if r == i {
			pos[i] = len(out)
			out = append(out, qs[i])
		}
	}
	for i := range qs {
		if r := find(i); r != i {
			p := &out[pos[r]]
			p.Count += qs[i].Count
			p.Line = min(p.Line, qs[i].Line)
			if p.SourceID == "" {
				p.SourceID = qs[i].SourceID
			}
			merged++
		}
	}
	return out, merged
}

// deletionKeys are a token and, for tokens of four letters or more, the
// token itself and with each one letter deleted, in a space of their own:
// two such words one edit apart (a typo, a swapped pair of letters) share
// one of them. Shorter words must match exactly ("day" is not "dry").
func deletionKeys(t string) []string {
	keys := []string{t}
	r := []rune(t)
	if len(r) < 4 || !typoable(t) {
		return keys
	}
	// The whole word is a deletion key too: a word with one letter more
	// deletes down to it.
	keys = append(keys, "\x00"+t)
	for i := range r {
		keys = append(keys, "\x00"+string(r[:i])+string(r[i+1:]))
	}
	return keys
}

// negations are the words that turn a claim around: two queries that
// differ in them are different queries however much else they share.
var negations = map[string]bool{"not": true, "no": true, "never": true, "without": true, "nor": true, "none": true, "cannot": true, "t": true, "isnt": true, "dont": true, "doesnt": true, "cant": true, "wont": true, "arent": true}

// negationKey is the negation words of a query, sorted.
func negationKey(ts []string) string {
	var n []string
	for _, t := range ts {
		if negations[t] {
			n = append(n, t)
		}
	}
	sort.Strings(n)
	return strings.Join(n, " ")
}

// nearTwin reports whether two queries (distinct tokens in order, and
// their negationKey) are near duplicates: the same negation words, sizes
// that can reach the threshold, and similar.
func nearTwin(ta, tb []string, na, nb string, threshold float64) bool {
	short, long := min(len(ta), len(tb)), max(len(ta), len(tb))
	return na == nb && float64(short) >= threshold*float64(long) && similar(ta, tb, threshold)
}

// similar decides whether two queries (their distinct tokens in order)
// with the same negation words (negationKey; the caller checks) are one:
// their token sets overlap by at least threshold (Jaccard), a word one
// edit from its match counting as the same word (a typo), and the shared
// content words come in the same order ("arterioles larger than venules"
// is not "venules larger than arterioles").
func similar(ua, ub []string, threshold float64) bool {
	// Exact matches first; a pair that cannot pass even if every word
	// left over on the shorter side were a typo of one on the other is
	// out before any edit distance is computed.
	var mbuf [32]int
	var ubuf [32]bool
	match := mbuf[:0] // position in ub, or -1
	if len(ua) > len(mbuf) {
		match = make([]int, 0, len(ua))
	}
	match = match[:len(ua)]
	used := ubuf[:0]
	if len(ub) > len(ubuf) {
		used = make([]bool, 0, len(ub))
	}
	used = used[:len(ub)]
	exact, fuzzyA, fuzzyB := 0, 0, 0
	for i, t := range ua {
		match[i] = -1
		for j, u := range ub {
			if !used[j] && u == t {
				match[i], used[j] = j, true
				exact++
				break
			}
		}
		if match[i] < 0 && typoable(t) {
			fuzzyA++
		}
	}
	for j, u := range ub {
		if !used[j] && typoable(u) {
			fuzzyB++
		}
	}
	if !passes(exact+min(fuzzyA, fuzzyB), len(ua), len(ub), threshold) {
		return false
	}
	matched := exact
	for i, t := range ua {
		if match[i] >= 0 || !typoable(t) {
			continue
		}
		for j, u := range ub {
			if !used[j] && oneEdit(t, u) {
				match[i], used[j] = j, true
				matched++
				break
			}
		}
	}
	if !passes(matched, len(ua), len(ub), threshold) {
		return false
	}
	// A content word on each side that matches nothing on the other is a
	// word substituted ("increase" for "reduce"): another question, as a
	// negation is, however much else the two share. Only typos, stop
	// words and words added on one side merge.
	if unmatchedContent(ua, func(i int) bool { return match[i] >= 0 }) && unmatchedContent(ub, func(j int) bool { return used[j] }) {
		return false
	}
	last := -1
	for i, t := range ua {
		if match[i] < 0 || stopWord(t) {
			continue
		}
		if match[i] < last {
			return false
		}
		last = match[i]
	}
	return true
}

// unmatchedContent reports whether a content word (not a stopWord) of
// ts is left unmatched (matched(i) false).
func unmatchedContent(ts []string, matched func(int) bool) bool {
	for i, t := range ts {
		if !matched(i) && !stopWord(t) {
			return true
		}
	}
	return false
}

// passes reports whether matched words of two queries of na and nb
// distinct words reach the Jaccard threshold.
func passes(matched, na, nb int, threshold float64) bool {
	union := na + nb - matched
	return union > 0 && float64(matched)/float64(union) >= threshold
}

// typoable reports whether a word may be a typo of another: four letters
// or more and no digits (codes and numbers differ in earnest).
func typoable(t string) bool {
	if len(t) < 4 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			return false
		}
	}
	return true
}

// uniq keeps the first occurrence of each token, in order.
func uniq(ts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// stopWord is a function word, which a query's meaning does not hang on.
func stopWord(t string) bool {
	switch t {
	case "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "was", "were", "be", "do", "does", "did", "how", "what", "i", "my", "me", "it", "with", "at", "by", "from", "than", "that", "this", "can", "should":
		return true
	}
	return false
}

// oneEdit reports whether two words of four letters or more are one edit
// apart: one letter changed, added, dropped, or two neighbours swapped.
// Words with digits are codes and numbers, never typos of each other.
func oneEdit(a, b string) bool {
	if a == b || len(a)-len(b) > 2 || len(b)-len(a) > 2 || !typoable(a) || !typoable(b) {
		return false
	}
	if isASCII(a) && isASCII(b) {
		return oneEditOf([]byte(a), []byte(b))
	}
	return oneEditOf([]rune(a), []rune(b))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// oneEditOf is oneEdit over letters (bytes of ASCII words, else runes).
func oneEditOf[T byte | rune](ra, rb []T) bool {
	if len(ra) < 4 || len(rb) < 4 {
		return false
	}
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	switch len(rb) - len(ra) {
	case 0:
		first, second := -1, -1
		for i := range ra {
			if ra[i] != rb[i] {
				switch {
				case first < 0:
					first = i
				case second < 0:
					second = i
				default:
					return false
				}
			}
		}
		switch {
		case first >= 0 && second < 0:
			return true
		case second >= 0:
			return second == first+1 && ra[first] == rb[second] && ra[second] == rb[first]
		}
		return false
	case 1:
		i := 0
		for i < len(ra) && ra[i] == rb[i] {
			i++
		}
		for ; i < len(ra); i++ {
			if ra[i] != rb[i+1] {
				return false
			}
		}
		return true
	}
	return false
}
