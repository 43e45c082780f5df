package gate

import "strings"

// FinalPassages is the final context of one result with its text: the
// pipeline's own (r.Context, source ContextOwn) when the answer carried
// one, else packed by recallgate from the hits (source ContextPacked) by
// the rule packContext applies: passages with text, each chunk once, in
// rank order, until the next would pass budget words (0 means
// DefaultContextTokens).
func FinalPassages(r Result, budget int) (passages []Passage, source string) {
	if r.Context != nil {
		return r.Context, ContextOwn
	}
	if budget <= 0 {
		budget = DefaultContextTokens
	}
	seen := map[string]bool{}
	used := 0
	passages = []Passage{}
	for _, h := range r.Hits {
		if h.Text == "" {
			continue
		}
		key := h.Chunk
		if key == "" {
			key = h.Doc + "\x00" + h.Text
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		n := words(h.Text)
		if used+n > budget {
			break
		}
		used += n
		passages = append(passages, Passage{Doc: strings.Clone(h.Doc), Chunk: strings.Clone(h.Chunk), Text: strings.Clone(h.Text)})
	}
	return passages, ContextPacked
}
