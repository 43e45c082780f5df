package label

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// sortedKeys are a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// order shuffles the pool by a hash of query and document: stable across
// restarts, the same for every labeller, and blind to which retriever
// found a document or at what rank.
func order(qid string, pool []Candidate) []Candidate {
	out := append([]Candidate(nil), pool...)
	key := func(doc string) string { return hash([]byte(qid + "\x00" + doc)) }
	sort.Slice(out, func(i, j int) bool { return key(out[i].Doc) < key(out[j].Doc) })
	return out
}

// bestPassage picks the window of about 40 words, among all the texts,
// that holds the most distinct query terms, and marks them.
func bestPassage(query string, texts []string) []Span {
	terms := map[string]bool{}
	for _, t := range words(query) {
		if len([]rune(t)) > 2 && !functionWords[t] {
			terms[t] = true
		}
	}
	best, bestScore := "", -1
	for _, text := range texts {
		fields := strings.Fields(text)
		for start := 0; start < len(fields) || start == 0; start += 20 {
			end := min(start+40, len(fields))
			window := strings.Join(fields[start:end], " ")
			seen := map[string]bool{}
			for _, w := range words(window) {
				if terms[w] {
					seen[w] = true
				}
			}
			if len(seen) > bestScore {
				best, bestScore = window, len(seen)
			}
			if end == len(fields) {
				break
			}
		}
	}
	return mark(best, terms)
}

// functionWords are English words that say nothing about a query's
// topic; they are neither marked nor counted when a passage is picked.
var functionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about after all also and any are because been before but can cannot could did does doing done each for from get got had has have her here his how into its just more most not now off once only other our out over own same she should some such than that the their them then there these they this those through too under until very was were what when where which while who whom why will with would you your`) {
		functionWords[w] = true
	}
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// mark splits text into spans, marking the words that are query terms.
func mark(text string, terms map[string]bool) []Span {
	var out []Span
	var cur strings.Builder
	flush := func(m bool) {
		if cur.Len() > 0 {
			if n := len(out); n > 0 && out[n-1].Mark == m {
				out[n-1].Text += cur.String()
			} else {
				out = append(out, Span{Text: cur.String(), Mark: m})
			}
			cur.Reset()
		}
	}
	runes := []rune(text)
	for i := 0; i < len(runes); {
		if !unicode.IsLetter(runes[i]) && !unicode.IsDigit(runes[i]) {
			cur.WriteRune(runes[i])
			i++
			continue
		}
		j := i
		for j < len(runes) && (unicode.IsLetter(runes[j]) || unicode.IsDigit(runes[j])) {
			j++
		}
		w := string(runes[i:j])
		if terms[strings.ToLower(w)] {
			flush(false)
			cur.WriteString(w)
			flush(true)
		} else {
			cur.WriteString(w)
		}
		i = j
	}
	flush(false)
	if out == nil {
		out = []Span{}
	}
	return out
}
