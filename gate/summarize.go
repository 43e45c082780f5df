package gate

// Summarize recomputes the card's summaries from its queries, after a
// caller replaced some of them (gate/repeats' worst-of-repeats card).
func (c *Scorecard) Summarize() { c.summarize() }
