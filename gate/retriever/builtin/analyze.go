package builtin

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// stopWords is Lucene's English stop-word list, the one Anserini and
// Elasticsearch's "english" analyzer use.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with") {
		stopWords[w] = true
	}
}

// Analysis configures how text becomes terms.
type Analysis struct {
	// Stem applies the English Snowball (Porter2) stemmer.
	Stem bool
	// StopWords drops English stop words.
	StopWords bool
}

// terms splits text into lower-cased terms: runs of letters and digits.
func (a Analysis) terms(text string, out []string) []string {
	return a.termsCached(text, out, nil)
}

// termsCached is terms with a stem cache, for single-goroutine indexing.
func (a Analysis) termsCached(text string, out []string, cache map[string]string) []string {
	out = out[:0]
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(text[start:end])
		start = -1
		if a.StopWords && stopWords[w] {
			return
		}
		if a.Stem {
			if s, ok := cache[w]; ok {
				w = s
			} else {
				s = english.Stem(w, false)
				if cache != nil {
					cache[w] = s
				}
				w = s
			}
		}
		if w != "" {
			out = append(out, w)
		}
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}
