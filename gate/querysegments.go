package gate

import (
	"sort"
	"strings"
)

// Segment aggregates the queries that share a label.
type Segment struct {
	// Kind is "segment" (declared), "source" or "auto".
	Kind, Name          string
	Queries             int
	Base, Head          float64 // mean recall@N
	Regressed, Improved int
	// Also names the other groups that hold exactly the same queries
	// ("auto: keyword"), merged into this row rather than repeated.
	Also []string

	ids []string
}

// Label is the group's name as reports show it: declared segments bare,
// the others with their kind ("source: log", "auto: short").
func (s Segment) Label() string {
	if s.Kind == "segment" {
		return s.Name
	}
	return s.Kind + ": " + s.Name
}

// questionWords start natural-language questions.
var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("how what why when where which who whom whose can could does do did is are was were should would will may might has have am") {
		questionWords[w] = true
	}
}

// functionWords are the words a keyword query does without: articles,
// prepositions, pronouns, auxiliaries and conjunctions.
var functionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the of to in on at for from by with without about into onto over under between through during " +
		"and or but nor not no if than then that this these those it its is are was were be been being am do does did " +
		"has have had can could should would will shall may might must i you he she we they me him her us them my your our their") {
		functionWords[w] = true
	}
}

// ShortQueryWords is the longest query, in words, that counts as short.
const ShortQueryWords = 3

// KeywordQueryWords is the longest query, in words, that can be
// keyword-like; one holding a code (a word with a digit, "_", or an inner
// "-" or "."), e.g. TP-429 or max_tokens, may have up to KeywordCodeWords.
const (
	KeywordQueryWords = 5
	KeywordCodeWords  = 8
)

// autoSegments are the automatic groups of a query: question (a question
// mark or a question word first), keyword (keyword-like: no function word,
// at most a few words, or a few more with a code, and not a sentence
// ending in a full stop), else statement (a sentence that asks nothing,
// such as a claim); and short or long.
func autoSegments(text string) []string {
	words := strings.Fields(strings.ToLower(text))
	kind := "statement"
	switch {
	case strings.HasSuffix(strings.TrimSpace(text), "?") || (len(words) > 0 && questionWords[words[0]]):
		kind = "question"
	case keywordLike(words) && !(len(words) > ShortQueryWords && strings.HasSuffix(strings.TrimSpace(text), ".")):
		kind = "keyword"
	}
	length := "long"
	if len(words) <= ShortQueryWords {
		length = "short"
	}
	return []string{kind, length}
}

// keywordLike: no function word, and at most KeywordQueryWords words
// (KeywordCodeWords with a code among them).
func keywordLike(words []string) bool {
	if len(words) == 0 {
		return false
	}
	code := false
	for _, w := range words {
		if functionWords[strings.Trim(w, ".,;:!\"'()")] {
			return false
		}
		code = code || isCode(w)
	}
	if code {
		return len(words) <= KeywordCodeWords
	}
	return len(words) <= KeywordQueryWords
}

// isCode reports a word that reads as an identifier: it holds a digit or
// "_", or a "-" or "." between letters or digits (TP-429, v2.1, max_tokens).
func isCode(w string) bool {
	w = strings.Trim(w, ".,;:!\"'()")
	for i, r := range w {
		switch {
		case r >= '0' && r <= '9', r == '_':
			return true
		case (r == '-' || r == '.') && i > 0 && i < len(w)-1:
			return true
		}
	}
	return false
}

// segments groups the non-synthetic queries by declared segment, by source
// and automatically; declared first, each kind sorted by name.
func segments(c *Comparison) []Segment {
	type key struct{ kind, name string }
	acc := map[key]*Segment{}
	add := func(kind, name string, p *PairedQuery) {
		k := key{kind, name}
		s := acc[k]
		if s == nil {
			s = &Segment{Kind: kind, Name: name}
			acc[k] = s
		}
		s.Queries++
		s.ids = append(s.ids, p.Query.ID)
		s.Base += p.Base.Recall
		s.Head += p.Head.Recall
		if p.counted() && p.Waiver == nil && p.Change == Regressed {
			s.Regressed++
		}
		if p.counted() && p.Change == Improved {
			s.Improved++
		}
	}
	for i := range c.Queries {
		p := &c.Queries[i]
		if p.Synthetic {
			continue
		}
		for _, seg := range p.Query.Segments {
			add("segment", seg, p)
		}
		if p.Query.Source != "" {
			add("source", p.Query.Source, p)
		}
		if p.Query.Text != "" {
			for _, a := range autoSegments(p.Query.Text) {
				add("auto", a, p)
			}
		}
	}
	order := map[string]int{"segment": 0, "source": 1, "auto": 2}
	out := make([]Segment, 0, len(acc))
	for _, s := range acc {
		s.Base /= float64(s.Queries)
		s.Head /= float64(s.Queries)
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return order[out[i].Kind] < order[out[j].Kind]
		}
		return out[i].Name < out[j].Name
	})
	// Groups of exactly the same queries are one row: the first in order
	// keeps its place and names the others.
	merged := out[:0]
	first := map[string]int{}
	for _, s := range out {
		sig := strings.Join(s.ids, "\x00")
		if i, ok := first[sig]; ok {
			merged[i].Also = append(merged[i].Also, s.Label())
			continue
		}
		first[sig] = len(merged)
		merged = append(merged, s)
	}
	return merged
}
