package gate

import (
	"fmt"
	"strings"
)

// CauseContext is the attribution cause of a fact the head's model no
// longer reads although its gold document ranked inside the top k: the
// passage that reached the model does not hold it (dropped by dedup, cut
// by the budget, or the wrong passage of the right document).
const CauseContext = "context-miss"

// FactMove is one required fact found in one side's final context and not
// in the other's.
type FactMove struct {
	// Fact is the fact's text; Doc and Passage are the document and the
	// passage that held it on the side that had it.
	Fact, Doc, Passage string
	// Instead says what the other side's context held in its place: the
	// passages of Doc that went, or that none did and what the context
	// held.
	Instead string
}

// factMoves lists the facts of from's context that to's lacks.
func factMoves(from, to *ContextStage) []FactMove {
	var out []FactMove
	for _, f := range from.Facts {
		if !f.Found {
			continue
		}
		if g := to.Fact(f.Text); g != nil && g.Found {
			continue
		}
		out = append(out, FactMove{Fact: f.Text, Doc: f.In, Passage: f.Passage, Instead: instead(to, f.In)})
	}
	return out
}

// instead describes what a context held in place of doc's passage that
// held a fact: doc's passages that went, or none and the context's first.
func instead(c *ContextStage, doc string) string {
	var own []string
	for i, p := range c.Passages {
		if p.Doc == doc {
			own = append(own, c.PassageLabel(i))
		}
	}
	if len(own) > 0 {
		return JoinFirst(own, 3)
	}
	if len(c.Passages) == 0 {
		return "nothing: the context is empty"
	}
	labels := make([]string, 0, 3)
	for i := range c.Passages {
		if i == 3 {
			break
		}
		labels = append(labels, c.PassageLabel(i))
	}
	more := ""
	if len(c.Passages) > 3 {
		more = fmt.Sprintf(" … (%d passages)", len(c.Passages))
	}
	return fmt.Sprintf("no passage of %s; the context: %s%s", doc, strings.Join(labels, ", "), more)
}

// contextMoves pairs the two final contexts of a query: the facts each
// side found that the other did not, and a context miss for every fact
// the head lost whose gold document ranked inside the head's top k.
func contextMoves(q *Query, b, h *QueryScore, d Depth) (lost, gained []FactMove, misses []GoldMove) {
	if b.Context == nil || h.Context == nil || len(q.Evidence) == 0 {
		return nil, nil, nil
	}
	lost, gained = factMoves(b.Context, h.Context), factMoves(h.Context, b.Context)
	for _, f := range lost {
		hr := h.GoldRanks[f.Doc]
		if q.Gold[f.Doc] <= 0 || hr == 0 || hr > d.Context {
			continue // out of the window: the document moves explain it
		}
		misses = append(misses, GoldMove{Doc: f.Doc, Grade: q.Gold[f.Doc], BaseRank: b.GoldRanks[f.Doc], HeadRank: hr,
			Cause: CauseContext, TookItsPlace: f.Instead, Fact: f.Fact, Passage: f.Passage})
	}
	return lost, gained, misses
}

// hasEvidence reports whether any query of the set lists required facts.
func (s *Set) hasEvidence() bool {
	for _, q := range s.Queries {
		if len(q.Evidence) > 0 {
			return true
		}
	}
	return false
}

// withContext keeps the queries of a scope whose two sides both have a
// final context (and, with evidence, required facts).
func (s ruleScope) withContext(evidence bool) ruleScope {
	out := ruleScope{label: s.label}
	for _, p := range s.queries {
		if p.Base.Context != nil && p.Head.Context != nil && (!evidence || len(p.Query.Evidence) > 0) {
			out.queries = append(out.queries, p)
		}
	}
	return out
}

// droppedContext lists the queries of a scope (with evidence, when
// evidence) whose head dropped the final context the base has: none at
// all (its answer carries no "context" and its hits no text), or only
// recallgate's packing of its hits where the base's answer carried the
// pipeline's own. A query waived for rule aside: the rule cannot read the
// head's model input there, and those queries must not pass it.
func (c *Comparison) droppedContext(s ruleScope, rule string, evidence bool) []string {
	var out []string
	for _, p := range s.queries {
		b, h := p.Base.Context, p.Head.Context
		dropped := b != nil && (h == nil || (b.Source == ContextOwn && h.Source != ContextOwn))
		if dropped && (!evidence || len(p.Query.Evidence) > 0) && !c.waivedFor(p, rule) {
			out = append(out, p.Query.ID)
		}
	}
	return out
}

// unreadContext makes a final-context rule that did not fail inconclusive
// when the head dropped the final context of queries the base has one
// for: a head that drops its final context cannot pass.
func unreadContext(r RuleResult, s ruleScope, dropped []string) RuleResult {
	if len(dropped) == 0 || (r.Outcome == RuleFail && r.PValue == nil) {
		return r
	}
	why := fmt.Sprintf("%sthe head's answers carry no \"context\" for %d %s the base's pipeline gave one for (%s): the head's model input is not known there (at most recallgate's packing of its hits), %s was not evaluated on %s, and a head that drops its final context cannot pass",
		s.in(), len(dropped), Plural(len(dropped), "query", "queries"), JoinFirst(dropped, 10), r.Name, Plural(len(dropped), "it", "them"))
	if r.PValue != nil {
		// Tested: a significant drop fails; otherwise holm says this.
		r.unsureWhy = why
		return r
	}
	r.Outcome, r.Note, r.Why = RuleInconclusive, "", why
	return r
}

// skippedContext is a final-context rule with no query to read.
func skippedContext(s ruleScope, name, metric string, limit float64, evidence bool) RuleResult {
	what := "a final context on both sides (the runs carry no passage text and no context)"
	if evidence {
		what = "required facts (evidence) and a final context on both sides"
	}
	return RuleResult{Name: name, Metric: metric, Segment: s.label, Limit: limit, Outcome: RuleSkipped,
		Note: fmt.Sprintf("%sno query has %s, so %s was not applied", s.in(), what, name)}
}

// contextDropRule is dropRule over the queries with a final context on
// both sides (and evidence, for coverage); skipped when there are none.
func (c *Comparison) contextDropRule(s ruleScope, name string, m *Metric, evidence bool, limit float64) RuleResult {
	in := s.withContext(evidence)
	dropped := c.droppedContext(s, name, evidence)
	if len(in.queries) == 0 {
		// The policy's rule holds its seat in Holm's family though no
		// query has what it reads: a change that gives its set the first
		// evidence, or its head a context, must not grow the family.
		r := skippedContext(s, name, m.Key, limit, evidence)
		r.family = c.Thresholds.RequireSignificance
		return unreadContext(r, s, dropped)
	}
	return unreadContext(c.dropRule(in, name, m, limit), s, dropped)
}

// factsRule holds the number of required facts found in the base's final
// context and not in the head's against its limit. A waived query's losses
// do not count; min_flipped and significance do not apply (a count, like
// new misses: a fact the model no longer reads is a regression).
func (c *Comparison) factsRule(s ruleScope, limit int) RuleResult {
	in := s.withContext(true)
	dropped := c.droppedContext(s, RuleFactsLost, true)
	if len(in.queries) == 0 {
		return unreadContext(skippedContext(s, RuleFactsLost, MetricFactsLost, float64(limit), true), s, dropped)
	}
	r := RuleResult{Name: RuleFactsLost, Metric: MetricFactsLost, Segment: s.label, Queries: len(in.queries), Limit: float64(limit), Outcome: RulePass}
	var lost []string
	for _, p := range in.queries {
		r.Base += float64(p.Base.Context.FactsFound)
		r.Head += float64(p.Head.Context.FactsFound)
		if len(p.FactsLost) == 0 || c.waivedFor(p, RuleFactsLost) {
			continue
		}
		r.Value += float64(len(p.FactsLost))
		r.Flipped++
		for _, f := range p.FactsLost {
			lost = append(lost, fmt.Sprintf("%s %q (base: %s; head: %s)", p.Query.ID, f.Fact, f.Passage, f.Instead))
		}
	}
	if r.Value > float64(limit) {
		r.Outcome = RuleFail
		r.Why = fmt.Sprintf("%s%d required %s found in the base's final context %s not in the head's (limit %d, %s): %s",
			s.in(), int(r.Value), Plural(int(r.Value), "fact", "facts"), Plural(int(r.Value), "is", "are"), limit, RuleFactsLost, JoinFirst(lost, 5))
	}
	return unreadContext(r, s, dropped)
}
