package gate

import "strings"

// FinalPassages is the final context of one result with its text: the
// pipeline's own (r.Context, source ContextOwn) when the answer carried
// one, else packed by recallgate from the hits (source ContextPacked) by
// the rule packHits applies (the same as the context stage's): passages with text, each chunk once, in
// rank order, until the next would pass budget words (0 means
// DefaultContextTokens).
func FinalPassages(r Result, budget int) (passages []Passage, source string) {
	if r.Context != nil {
		return r.Context, ContextOwn
	}
	if budget <= 0 {
		budget = DefaultContextTokens
	}
	passages = []Passage{}
	packHits(r.Hits, budget, func(h Hit, _ int) {
		passages = append(passages, Passage{Doc: strings.Clone(h.Doc), Chunk: strings.Clone(h.Chunk), Text: strings.Clone(h.Text)})
	})
	return passages, ContextPacked
}
