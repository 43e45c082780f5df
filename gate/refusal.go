package gate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The refusal check judges a pipeline's decision to answer or to refuse,
// apart from the document scores: on the set's unanswerable queries an
// answer is a false answer (the model may invent one), on the answerable
// ones a refusal is a false refusal. The decision comes from the answer's
// own "abstain" signal or, for answers without one, from the side's
// [refusal] min_score rule (refuse when the top hit's score is under it).

// Rule names of the refusal check, spelled as their [gate] keys.
const (
	RuleFalseAnswers  = "max_false_answers_increase"
	RuleFalseRefusals = "max_false_refusals_increase"
)

// Metric keys of the refusal rules.
const (
	MetricFalseAnswers  = "false_answers"
	MetricFalseRefusals = "false_refusals"
)

// Signal kinds of one side (RefusalSide.Signal).
const (
	// SignalAbstain: every counted answer carried "abstain".
	SignalAbstain = "abstain"
	// SignalMinScore: the side's [refusal] min_score decided every answer.
	SignalMinScore = "min_score"
	// SignalBoth: answers carrying "abstain" were taken at their word,
	// the others were decided by min_score.
	SignalBoth = "abstain+min_score"
	// SignalPartial: some counted answers carried "abstain", others
	// carried no signal and no min_score was set.
	SignalPartial = "partial"
	// SignalNone: no answer carried a refusal signal and no min_score was set.
	SignalNone = "none"
)

// Refusal is one side's own refusal rule ([refusal] min_score): nil
// MinScore means the side has none.
type Refusal struct {
	// MinScore makes the side refuse when its top hit's score is under it
	// (and when it returned no hits).
	MinScore *float64
}

// String shows the rule as reports do: "min_score 0.42" or "none".
func (r Refusal) String() string {
	if r.MinScore == nil {
		return "none"
	}
	return "min_score " + strconv.FormatFloat(*r.MinScore, 'f', -1, 64)
}

// AnswerSignal is what one answer says about refusing: its "abstain"
// field, and what a min_score rule reads (the hits and the top score).
type AnswerSignal struct {
	// Abstain is the answer's own signal, nil when it carried none.
	Abstain *bool
	// Hits is how many hits the answer had.
	Hits int
	// TopScore is the first hit's score.
	TopScore float64
	// Scored is true when some hit carried a score: the run format
	// leaves a score of 0 out, so 0 counts as none.
	Scored bool
}

// signalOf reads the refusal signal of one result.
func signalOf(r Result) AnswerSignal {
	s := AnswerSignal{Abstain: r.Abstain, Hits: len(r.Hits)}
	if len(r.Hits) > 0 {
		s.TopScore = r.Hits[0].Score
	}
	for _, h := range r.Hits {
		if h.Score != 0 {
			s.Scored = true
			break
		}
	}
	return s
}

// How a RefusalDecision was reached.
const (
	ByAbstain  = "abstain"
	ByMinScore = "min_score"
	ByNoHits   = "no hits"
)

// RefusalDecision is one side's decision on one query.
type RefusalDecision struct {
	// Decided is false when the answer carried no signal and the side has
	// no min_score: nothing is known.
	Decided bool
	// Refused is the decision: the pipeline would refuse to answer.
	Refused bool
	// By is ByAbstain, ByMinScore or ByNoHits.
	By string
	// TopScore is the top hit's score, when By is ByMinScore.
	TopScore float64
}

// decideRefusal applies a side's rule to one answer. The answer's own
// "abstain" is the pipeline's word and wins; min_score decides the others,
// and then the answer must carry scores: without them it is an
// *InfraError naming the query (the retriever answered something the
// pipeline's rule cannot read).
func decideRefusal(id string, s AnswerSignal, r Refusal) (RefusalDecision, error) {
	switch {
	case s.Abstain != nil:
		return RefusalDecision{Decided: true, Refused: *s.Abstain, By: ByAbstain}, nil
	case r.MinScore == nil:
		return RefusalDecision{}, nil
	case s.Hits == 0:
		return RefusalDecision{Decided: true, Refused: true, By: ByNoHits}, nil
	case !s.Scored:
		return RefusalDecision{}, &InfraError{QueryID: id, Err: fmt.Errorf("[refusal] %s needs the retriever's scores, and this answer's %d %s carry none (a score of 0 counts as none)", r, s.Hits, Plural(s.Hits, "hit", "hits"))}
	}
	return RefusalDecision{Decided: true, Refused: s.TopScore < *r.MinScore, By: ByMinScore, TopScore: s.TopScore}, nil
}

// RefusalQuery is one query of the refusal check, both sides' decisions.
type RefusalQuery struct {
	Query *Query
	// Answerable is false for a query the set marks unanswerable.
	Answerable bool
	Base, Head RefusalDecision
	// Synthetic and Unstable queries are shown but never counted.
	Synthetic, Unstable bool
}

// counted reports whether the query takes part in the refusal rules.
func (q *RefusalQuery) counted() bool { return !q.Synthetic && !q.Unstable }

// falseOn reports whether the side's decision is wrong for the query: an
// answer to an unanswerable query, a refusal of an answerable one.
func (q *RefusalQuery) falseOn(d RefusalDecision) bool {
	return d.Decided && d.Refused == q.Answerable
}

// RefusalSide is one side's refusal check over the counted queries.
type RefusalSide struct {
	// Signal is SignalAbstain, SignalMinScore, SignalBoth, SignalPartial
	// or SignalNone.
	Signal string
	// Rule is the side's [refusal] rule.
	Rule Refusal
	// Undecided lists the counted queries whose answer carried no signal
	// (SignalPartial), in set order.
	Undecided []string
	// Answerable and Unanswerable count the decided counted queries of
	// each kind: the denominators of FalseRefusals and FalseAnswers.
	Answerable, Unanswerable int
	// FalseAnswers lists the unanswerable queries the side would answer;
	// FalseRefusals the answerable ones it would refuse. In set order.
	FalseAnswers, FalseRefusals []string
}

// HasSignal reports whether every counted query of the side was decided.
func (s *RefusalSide) HasSignal() bool {
	return s.Signal != SignalNone && s.Signal != SignalPartial
}

// RefusalCheck is the refusal check of a comparison.
type RefusalCheck struct {
	// Sides are base and head.
	Sides [2]RefusalSide
	// Queries are every query of the set, in set order.
	Queries []RefusalQuery
	// NewFalseAnswers and NewFalseRefusals list the counted, unwaived
	// queries false on the head and not on the base, in set order.
	NewFalseAnswers, NewFalseRefusals []string
}

// buildRefusal decides every query of the set on both sides.
func (c *Comparison) buildRefusal(base, head *Scorecard, rules [2]Refusal, pol Policy) error {
	rc := &RefusalCheck{}
	signals := func(card *Scorecard) map[string]AnswerSignal {
		m := make(map[string]AnswerSignal, len(card.Queries)+len(card.Unanswerable))
		for _, q := range card.Queries {
			m[q.ID] = q.Signal
		}
		for _, u := range card.Unanswerable {
			m[u.ID] = u.Signal
		}
		return m
	}
	sig := [2]map[string]AnswerSignal{signals(base), signals(head)}
	usedAbstain := [2]bool{}
	for _, q := range c.Set.Queries {
		rq := RefusalQuery{Query: q, Answerable: !q.Unanswerable, Synthetic: q.Source == "synthetic", Unstable: pol.Unstable[q.ID]}
		for side := range 2 {
			d, err := decideRefusal(q.ID, sig[side][q.ID], rules[side])
			if err != nil {
				return fmt.Errorf("%s: %w", []string{"base", "head"}[side], err)
			}
			if side == 0 {
				rq.Base = d
			} else {
				rq.Head = d
			}
			s := &rc.Sides[side]
			if !rq.counted() {
				continue
			}
			switch {
			case !d.Decided:
				s.Undecided = append(s.Undecided, q.ID)
				continue
			case d.By == ByAbstain:
				usedAbstain[side] = true
			}
			if rq.Answerable {
				s.Answerable++
			} else {
				s.Unanswerable++
			}
			if rq.falseOn(d) {
				if rq.Answerable {
					s.FalseRefusals = append(s.FalseRefusals, q.ID)
				} else {
					s.FalseAnswers = append(s.FalseAnswers, q.ID)
				}
			}
		}
		rc.Queries = append(rc.Queries, rq)
	}
	for side := range 2 {
		s := &rc.Sides[side]
		s.Rule = rules[side]
		decided := s.Answerable + s.Unanswerable
		switch {
		case rules[side].MinScore != nil && usedAbstain[side]:
			s.Signal = SignalBoth
		case rules[side].MinScore != nil:
			s.Signal = SignalMinScore
		case decided == 0:
			s.Signal, s.Undecided = SignalNone, nil
		case len(s.Undecided) > 0:
			s.Signal = SignalPartial
		default:
			s.Signal = SignalAbstain
		}
	}
	for i := range rc.Queries {
		q := &rc.Queries[i]
		if !q.counted() || !q.falseOn(q.Head) || q.falseOn(q.Base) {
			continue
		}
		if q.Answerable && !c.waivedForID(q.Query.ID, RuleFalseRefusals) {
			rc.NewFalseRefusals = append(rc.NewFalseRefusals, q.Query.ID)
		}
		if !q.Answerable && !c.waivedForID(q.Query.ID, RuleFalseAnswers) {
			rc.NewFalseAnswers = append(rc.NewFalseAnswers, q.Query.ID)
		}
	}
	c.Refusal = rc
	return nil
}

// waivedForID reports whether a waiver of the query covers the rule.
func (c *Comparison) waivedForID(id, rule string) bool {
	w := c.waivers[id]
	return w != nil && (len(w.Rules) == 0 || slices.Contains(w.Rules, rule))
}

// signalText says what a side's signal is, for a rule's reason.
func (s *RefusalSide) signalText(side string) string {
	switch s.Signal {
	case SignalPartial:
		return fmt.Sprintf("the %s's answers carry no refusal signal for %d %s (%s) and it sets no [refusal] min_score", side, len(s.Undecided), Plural(len(s.Undecided), "query", "queries"), JoinFirst(s.Undecided, 10))
	case SignalNone:
		return fmt.Sprintf("no refusal signal on the %s (no answer carries \"abstain\" and no [refusal] min_score is set)", side)
	}
	return ""
}

// refusalRules evaluates both refusal rules over a scope: the whole set
// (label "") or a segment. answers and refusals are the limits, nil for a
// rule the scope does not set.
func (c *Comparison) refusalRules(label string, members []*RefusalQuery, answers, refusals *int) []RuleResult {
	var out []RuleResult
	scope := ruleScope{label: label}
	b, h := &c.Refusal.Sides[0], &c.Refusal.Sides[1]
	first := true
	for _, rule := range []struct {
		name, metric string
		answerable   bool
		limit        *int
		what         string
	}{
		{RuleFalseAnswers, MetricFalseAnswers, false, answers, "unanswerable queries the pipeline would answer"},
		{RuleFalseRefusals, MetricFalseRefusals, true, refusals, "answerable queries the pipeline would refuse"},
	} {
		if rule.limit == nil {
			continue
		}
		r := RuleResult{Name: rule.name, Metric: rule.metric, Segment: label, Limit: float64(*rule.limit), Outcome: RulePass}
		var qs []*RefusalQuery
		for _, q := range members {
			if q.counted() && q.Answerable == rule.answerable {
				qs = append(qs, q)
			}
		}
		r.Queries = len(qs)
		why := ""
		switch {
		case b.HasSignal() && !h.HasSignal():
			why = fmt.Sprintf("%s%s while the base has one (%s): %s and %s were not evaluated, and a head that drops its refusal signal cannot pass", scope.in(), h.signalText("head"), b.Signal, RuleFalseAnswers, RuleFalseRefusals)
			r.Outcome = RuleInconclusive
		case b.Signal == SignalNone && h.Signal == SignalNone:
			why = fmt.Sprintf("%snot evaluated: no refusal signal on either side (no answer carries \"abstain\" and no [refusal] min_score is set)", scope.in())
			r.Outcome = RuleSkipped
			first = false // said on the rows and in the refusal block, not in the verdict
		case !b.HasSignal() || !h.HasSignal():
			var parts []string
			for i, s := range []*RefusalSide{b, h} {
				if t := s.signalText([]string{"base", "head"}[i]); t != "" {
					parts = append(parts, t)
				}
			}
			why = fmt.Sprintf("%snot evaluated: %s", scope.in(), strings.Join(parts, "; "))
			r.Outcome = RuleSkipped
		case len(qs) == 0:
			r.Outcome = RuleSkipped
			// Both sides signal: the rule is the policy's, so it holds its
			// seat in Holm's family though the set has no query for it (a
			// change that adds one must not grow the family).
			r.family = c.Thresholds.RequireSignificance
			r.Note = fmt.Sprintf("%s%s not applied: no %s", scope.in(), rule.name, map[bool]string{false: "unanswerable queries (mark some \"unanswerable\": true to measure false answers)", true: "answerable queries"}[rule.answerable])
			out = append(out, r)
			continue
		}
		if why != "" {
			// One reason line for the pair: the first rule carries it, the
			// second shows it on its row only.
			r.Why = why
			if first && r.Outcome == RuleSkipped {
				r.Note = why
			}
			if !first {
				r.Outcome = RuleSkipped
			}
			first = false
			out = append(out, r)
			continue
		}
		r.family = c.Thresholds.RequireSignificance && len(qs) > 0
		var entered []string
		deltas := make([]float64, len(qs))
		for i, q := range qs {
			bf, hf := q.falseOn(q.Base), q.falseOn(q.Head)
			if hf && !bf && c.waivedForID(q.Query.ID, rule.name) {
				hf = false
			}
			if bf {
				r.Base++
				deltas[i]--
			}
			if hf {
				r.Head++
				deltas[i]++
			}
			if hf && !bf {
				entered = append(entered, q.Query.ID)
				r.Flipped++
			}
		}
		r.Value = r.Head - r.Base
		if r.Value <= r.Limit {
			out = append(out, r)
			continue
		}
		r.Why = fmt.Sprintf("%s%d → %d %s (+%d, limit +%d, %s); new: %s", scope.in(), int(r.Base), int(r.Head), rule.what, int(r.Value), *rule.limit, rule.name, JoinFirst(entered, 10))
		minFlipped := max(c.Thresholds.MinFlipped, 1)
		switch {
		case r.Flipped < minFlipped:
			r.Outcome = RuleInconclusive
			r.Note = fmt.Sprintf("%sonly %d %s moved the wrong way on %s (min_flipped %d), so it does not fail the gate", scope.in(), r.Flipped, Plural(r.Flipped, "query", "queries"), rule.name, minFlipped)
		case c.Thresholds.RequireSignificance:
			r.tested(Paired(deltas), fmt.Sprintf("%sthe rise of %s", scope.in(), rule.metric))
		default:
			r.Outcome = RuleFail
		}
		out = append(out, r)
	}
	return out
}

// refusalMembers are the refusal check's queries in a segment rule's group.
func (c *Comparison) refusalMembers(name string) []*RefusalQuery {
	kind, bare, ok := segmentKind(c.Set, name)
	if !ok {
		return nil
	}
	var out []*RefusalQuery
	for i := range c.Refusal.Queries {
		q := &c.Refusal.Queries[i]
		var in bool
		switch kind {
		case "segment":
			in = slices.Contains(q.Query.Segments, bare)
		case "auto":
			in = q.Query.Text != "" && slices.Contains(autoSegments(q.Query.Text), bare)
		case "source":
			in = q.Query.Source == bare
		}
		if in && !q.Synthetic {
			out = append(out, q)
		}
	}
	return out
}

// allRefusal are every query of the refusal check.
func (c *Comparison) allRefusal() []*RefusalQuery {
	out := make([]*RefusalQuery, len(c.Refusal.Queries))
	for i := range c.Refusal.Queries {
		out[i] = &c.Refusal.Queries[i]
	}
	return out
}
