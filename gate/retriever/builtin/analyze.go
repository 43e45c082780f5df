package builtin

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// stopWords is Lucene's English stop-word list, the one Anserini and
// Elasticsearch's "english" analyzer use.
var stopWords = map[string]bool{}

// wordByte marks the ASCII bytes that are letters or digits.
var wordByte [utf8.RuneSelf]bool

func init() {
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		stopWords[w] = true
	}
	for c := range wordByte {
		wordByte[c] = unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
	}
}

// Analysis configures how text becomes terms.
type Analysis struct {
	// Stem applies the English Snowball (Porter2) stemmer.
	Stem bool
	// StopWords drops English stop words.
	StopWords bool
}

// nextToken finds text's first token at or after byte i: a run of
// letters and digits (Unicode's), from start to end. start is -1 when
// there is none. A byte that is not valid UTF-8 separates tokens.
func nextToken(text string, i int) (start, end int) {
	start = -1
	for i < len(text) {
		c, w := text[i], 1
		var word bool
		if c < utf8.RuneSelf {
			word = wordByte[c]
		} else {
			var r rune
			r, w = utf8.DecodeRuneInString(text[i:])
			word = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if word {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			return start, i
		}
		i += w
	}
	if start >= 0 {
		return start, len(text)
	}
	return -1, len(text)
}

// term is the term a token becomes: lower-cased, then dropped when it is
// a stop word (ok false), else stemmed.
func (a Analysis) term(token string) (string, bool) {
	w := strings.ToLower(token)
	if a.StopWords && stopWords[w] {
		return "", false
	}
	if a.Stem {
		w = english.Stem(w, false)
	}
	return w, w != ""
}

// terms splits text into its terms, in order, appended to out[:0].
func (a Analysis) terms(text string, out []string) []string {
	out = out[:0]
	for i := 0; ; {
		s, e := nextToken(text, i)
		if s < 0 {
			return out
		}
		i = e
		if w, ok := a.term(text[s:e]); ok {
			out = append(out, w)
		}
	}
}

// noTerm is the local id of a token that gives no term (a stop word).
const noTerm = -1

// analyser turns chunks into counted terms on one goroutine. It numbers
// the terms it meets itself (local ids, in the order it first meets
// them) and remembers what each token, as written, becomes, so a token
// seen before costs one map lookup.
type analyser struct {
	opts   Options
	tokens map[string]int32 // a token as written → its term's local id, or noTerm
	ids    map[string]int32 // a term → its local id
	fresh  []string         // the terms numbered since the last take
	counts []int32          // per local id: its count in the text being counted
}

func newAnalyser(o Options) *analyser {
	return &analyser{opts: o, tokens: map[string]int32{}, ids: map[string]int32{}}
}

// local is token's term's local id, or noTerm.
func (a *analyser) local(token string) int32 {
	if id, ok := a.tokens[token]; ok {
		return id
	}
	id := int32(noTerm)
	if w, ok := a.opts.Analysis.term(token); ok {
		if id, ok = a.ids[w]; !ok {
			w = strings.Clone(w)
			id = int32(len(a.ids))
			a.ids[w] = id
			a.fresh = append(a.fresh, w)
			a.counts = append(a.counts, 0)
		}
	}
	a.tokens[strings.Clone(token)] = id
	return id
}

// takeFresh returns the terms numbered since the last call, in local-id
// order.
func (a *analyser) takeFresh() []string {
	f := a.fresh
	a.fresh = nil
	return f
}

// count appends the distinct terms of texts (read as one text, each
// separated from the next) to out with their counts, in the order each
// first occurs, and says how many terms they have.
func (a *analyser) count(out []termCount, texts ...string) ([]termCount, int) {
	first, n := len(out), 0
	for _, text := range texts {
		for i := 0; ; {
			s, e := nextToken(text, i)
			if s < 0 {
				break
			}
			i = e
			id := a.local(text[s:e])
			if id == noTerm {
				continue
			}
			n++
			if a.counts[id] == 0 {
				out = append(out, termCount{term: id})
			}
			a.counts[id]++
		}
	}
	for j := first; j < len(out); j++ {
		out[j].count = a.counts[out[j].term]
		a.counts[out[j].term] = 0
	}
	return out, n
}
