package gate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultContextTokens is the default budget of the packed final context.
const DefaultContextTokens = 2000

// Evidence is the fact check of one query's final context (see
// ContextStage, which it summarises for queries with evidence).
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
	// Found is true when a passage of the final context contains the
	// fact; In is the document of the first such passage and Passage its
	// label (ContextStage.PassageLabel).
	Found   bool
	In      string
	Passage string
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

// NormalizeText is s as facts are matched and duplicate query texts found
// (gate/sethealth): normalize's answer.
func NormalizeText(s string) string { return normalize(s) }

// normalize lower-cases and folds runs of white space and punctuation
// other than digits' separators, so "Settings → Keys" matches "settings -> keys".
func normalize(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return normalizeUnicode(s)
		}
	}
	b := make([]byte, 0, len(s))
	space := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
			fallthrough
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
			space = false
		case !space:
			b = append(b, ' ')
			space = true
		}
	}
	if n := len(b); n > 0 && b[n-1] == ' ' {
		b = b[:n-1]
	}
	return string(b)
}

// normalizeUnicode is normalize for text beyond ASCII.
func normalizeUnicode(s string) string {
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

// The two sources of a final context (ContextStage.Source).
const (
	// ContextOwn: the pipeline's own, from its answer's "context".
	ContextOwn = "own"
	// ContextPacked: packed by recallgate from the hits' text, in rank
	// order, under the context_tokens budget.
	ContextPacked = "packed"
)

// ContextStage is the final-context stage of one query on one side, kept
// apart from the document scores: the passages the model read (the
// pipeline's own, or packed by recallgate from the hits), the relevant gold
// documents among them and the required facts found in them.
type ContextStage struct {
	// Source is ContextOwn or ContextPacked; Budget is the packing budget
	// in words (packed only).
	Source string
	Budget int
	// Passages are the final context, in order.
	Passages []ContextPassage
	// Tokens is the context's size: the pipeline's own counts where it
	// gave them, else recallgate's (whitespace-separated words).
	Tokens int
	// Relevant is the query's number of relevant gold documents (the
	// context recall denominator); GoldInContext lists those with a
	// passage in the context, in context order.
	Relevant      int
	GoldInContext []string
	// Facts are the required facts with what was found: nil when the
	// query has no evidence (coverage does not apply).
	Facts []Fact
	// Size, GoldFound, FactCount and FactsFound are the counts of
	// Passages, GoldInContext, Facts and the facts found: kept when a
	// spilled score drops the lists.
	Size, GoldFound, FactCount, FactsFound int
}

// numbers is the stage without its lists, for a spilled score.
func (c *ContextStage) numbers() *ContextStage {
	if c == nil {
		return nil
	}
	n := *c
	n.Passages, n.GoldInContext, n.Facts = nil, nil, nil
	return &n
}

// ContextPassage is one passage of a final context, without its text.
type ContextPassage struct {
	// Doc and Chunk are as in Passage; Tokens is its size.
	Doc, Chunk string
	Tokens     int
	// Opening is the passage's first words, kept only when it has no
	// chunk id, so a label can still tell two passages of a document apart.
	Opening string
}

// openingWords is how many words of a passage without a chunk id its
// label quotes.
const openingWords = 6

// opening is the first openingWords words of text, "…" when cut.
func opening(text string) string {
	f := strings.Fields(text)
	if len(f) > openingWords {
		return strings.Join(f[:openingWords], " ") + "…"
	}
	return strings.Join(f, " ")
}

// PassageLabel names passage i (0-based) of a context: its chunk id, or
// its document and place ("keys, passage 2") when the pipeline gave none.
func (c *ContextStage) PassageLabel(i int) string {
	p := c.Passages[i]
	switch {
	case p.Chunk != "":
		return p.Chunk
	case p.Opening != "":
		return fmt.Sprintf("%s, passage %d (%q)", p.Doc, i+1, p.Opening)
	}
	return fmt.Sprintf("%s, passage %d", p.Doc, i+1)
}

// Recall is the context document recall: relevant gold documents with a
// passage in the context / relevant gold documents (0 when none).
func (c *ContextStage) Recall() float64 {
	if c.Relevant == 0 {
		return 0
	}
	return float64(c.GoldFound) / float64(c.Relevant)
}

// HasEvidence reports whether the query has required facts, so coverage applies.
func (c *ContextStage) HasEvidence() bool { return c.FactCount > 0 }

// Coverage is the evidence coverage, facts found / facts; ok is false for
// a query without evidence (not applicable, never 1.0).
func (c *ContextStage) Coverage() (v float64, ok bool) {
	if c.FactCount == 0 {
		return 0, false
	}
	return float64(c.FactsFound) / float64(c.FactCount), true
}

// Fact returns the fact with the given text, or nil.
func (c *ContextStage) Fact(text string) *Fact {
	for i := range c.Facts {
		if c.Facts[i].Text == text {
			return &c.Facts[i]
		}
	}
	return nil
}

// words counts the whitespace-separated words of s as strings.Fields
// splits them, without allocating.
func words(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		var sp bool
		if c < utf8.RuneSelf {
			sp = asciiSpace[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			sp = unicode.IsSpace(r)
			i += size
		}
		if !sp && !in {
			n++
		}
		in = !sp
	}
	return n
}

// packContext packs hits (already in rank order) as recallgate's own
// final context: passages with text, each chunk once, in rank order, until
// the next would pass budget words. Nil when no hit carries text: there is
// no context to score.
func packContext(q *Query, hits []Hit, budget int) *ContextStage {
	if budget <= 0 {
		budget = DefaultContextTokens
	}
	var texts []string
	var used []Hit
	c := &ContextStage{Source: ContextPacked, Budget: budget, Passages: []ContextPassage{}}
	hasText := packHits(hits, budget, func(h Hit, n int) {
		used = append(used, h)
		c.Tokens += n
		cp := ContextPassage{Doc: strings.Clone(h.Doc), Chunk: strings.Clone(h.Chunk), Tokens: n}
		if cp.Chunk == "" {
			cp.Opening = opening(h.Text)
		}
		c.Passages = append(c.Passages, cp)
		if len(q.Evidence) > 0 {
			texts = append(texts, h.Text)
		}
	})
	if !hasText {
		return nil
	}
	c.finish(q, texts, used)
	return c
}

// packHits walks hits by recallgate's packing rule: passages with text,
// each chunk once (a hit without a chunk id keyed by its document and
// text), in rank order, until the next would pass budget words (budget >
// 0). fn gets each packed hit with its word count; hasText reports
// whether any hit carried text at all, packed or not.
func packHits(hits []Hit, budget int, fn func(h Hit, words int)) (hasText bool) {
	seen := map[string]bool{}
	used := 0
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
		n := words(h.Text)
		if used+n > budget {
			break
		}
		used += n
		fn(h, n)
	}
	return hasText
}

// ownContext is the pipeline's own final context, as its answer gave it.
func ownContext(q *Query, ctx []Passage) *ContextStage {
	c := &ContextStage{Source: ContextOwn, Passages: make([]ContextPassage, 0, len(ctx))}
	var texts []string
	used := make([]Hit, 0, len(ctx))
	for _, p := range ctx {
		used = append(used, Hit{Doc: p.Doc, Chunk: p.Chunk, Text: p.Text})
		n := 0
		if p.Tokens != nil {
			n = *p.Tokens
		} else {
			n = words(p.Text)
		}
		c.Tokens += n
		cp := ContextPassage{Doc: p.Doc, Chunk: p.Chunk, Tokens: n}
		if cp.Chunk == "" {
			cp.Opening = opening(p.Text)
		}
		c.Passages = append(c.Passages, cp)
		if len(q.Evidence) > 0 {
			texts = append(texts, p.Text)
		}
	}
	c.finish(q, texts, used)
	return c
}

// finish finds the gold documents (a section query's gold sections: those
// its passages count for, placed as its hits are) and, for a query with
// evidence, the facts in the context; texts are the passages' texts and
// used their hits, in order.
func (c *ContextStage) finish(q *Query, texts []string, used []Hit) {
	c.Relevant, c.Size = q.relevant, len(c.Passages)
	defer func() { c.GoldFound, c.FactCount = len(c.GoldInContext), len(c.Facts) }()
	gold := map[string]bool{}
	units, _, _ := placed(q, used)
	for _, h := range units {
		if q.Gold[h.Doc] > 0 && !gold[h.Doc] {
			gold[h.Doc] = true
			c.GoldInContext = append(c.GoldInContext, h.Doc)
		}
	}
	if len(q.Evidence) == 0 {
		return
	}
	norm := make([]string, len(texts))
	for i, t := range texts {
		norm[i] = " " + normalize(t) + " "
	}
	for _, f := range q.Evidence {
		fact := Fact{Text: f}
		nf := normalize(f)
		for i, t := range norm {
			if nf != "" && strings.Contains(t, " "+nf+" ") {
				fact.Found, fact.In, fact.Passage = true, c.Passages[i].Doc, c.PassageLabel(i)
				c.FactsFound++
				break
			}
		}
		c.Facts = append(c.Facts, fact)
	}
}

// evidenceOf is the fact check of a final context as Evidence (nil for a
// query without evidence); noText says the run carried no passage text
// (ctx is then nil, and no fact is found).
func evidenceOf(q *Query, ctx *ContextStage) *Evidence {
	if len(q.Evidence) == 0 {
		return nil
	}
	if ctx == nil {
		e := &Evidence{NoText: true}
		for _, f := range q.Evidence {
			e.Facts = append(e.Facts, Fact{Text: f})
		}
		return e
	}
	e := &Evidence{Facts: ctx.Facts, Passages: len(ctx.Passages), Tokens: ctx.Tokens, GoldInContext: ctx.GoldInContext}
	return e
}
