package gate

import (
	"strings"
	"unicode"
)

// DefaultContextTokens is the default budget of the packed final context.
const DefaultContextTokens = 2000

// Evidence is the context-level check of one query, kept apart from the
// document scores: it packs the run's passages in rank order under the
// token budget and looks for each required fact in them.
type Evidence struct {
	// Facts are the query's required facts with what was found.
	Facts []Fact
	// Passages and Tokens describe the packed context.
	Passages, Tokens int
	// NoText is true when the run carried no passage text to check.
	NoText bool
	// GoldInContext lists the relevant gold documents with a passage in the
	// packed context.
	GoldInContext []string
}

// Fact is one required fact.
type Fact struct {
	Text string
	// Found is true when a packed passage contains the fact; In is the
	// document of the first such passage.
	Found bool
	In    string
}

// Covered counts the facts found.
func (e *Evidence) Covered() int {
	n := 0
	for _, f := range e.Facts {
		if f.Found {
			n++
		}
	}
	return n
}

// normalize lower-cases and folds runs of white space and punctuation
// other than digits' separators, so "Settings → Keys" matches "settings -> keys".
func normalize(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// checkEvidence packs hits (already in rank order) and checks q's facts.
func checkEvidence(q *Query, hits []Hit, budget int) *Evidence {
	if len(q.Evidence) == 0 {
		return nil
	}
	if budget <= 0 {
		budget = DefaultContextTokens
	}
	e := &Evidence{}
	type passage struct{ doc, text string }
	var packed []passage
	seen := map[string]bool{}
	hasText := false
	for _, h := range hits {
		if h.Text == "" {
			continue
		}
		hasText = true
		key := h.Chunk
		if key == "" {
			key = h.Doc + "\x00" + h.Text
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		n := len(strings.Fields(h.Text))
		if e.Tokens+n > budget {
			break
		}
		e.Tokens += n
		packed = append(packed, passage{strings.Clone(h.Doc), normalize(h.Text)})
	}
	e.Passages = len(packed)
	e.NoText = !hasText
	gold := map[string]bool{}
	for _, p := range packed {
		if q.Gold[p.doc] > 0 && !gold[p.doc] {
			gold[p.doc] = true
			e.GoldInContext = append(e.GoldInContext, p.doc)
		}
	}
	for _, f := range q.Evidence {
		fact := Fact{Text: f}
		nf := normalize(f)
		for _, p := range packed {
			if nf != "" && strings.Contains(" "+p.text+" ", " "+nf+" ") {
				fact.Found, fact.In = true, p.doc
				break
			}
		}
		e.Facts = append(e.Facts, fact)
	}
	return e
}
