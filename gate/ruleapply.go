package gate

import (
	"fmt"
	"slices"
	"strings"
)

// applyLimits evaluates every rule of l over the scope, in the rule
// registry's order, each as its kind holds its metric. The refusal rules
// are refusalRules'.
func (c *Comparison) applyLimits(s ruleScope, l Limits) []RuleResult {
	var out []RuleResult
	for _, r := range rules {
		switch {
		case r.frac != nil && *r.frac(&l) != nil:
			limit := **r.frac(&l)
			switch {
			case r.Kind == KindFloor:
				out = append(out, c.floorRule(s, r.Key, r.Metric, limit))
			case r.Metric.context:
				out = append(out, c.contextDropRule(s, r.Key, r.Metric, r.Metric.evidence, limit))
			default:
				out = append(out, c.dropRule(s, r.Key, r.Metric, limit))
			}
		case r.count != nil && *r.count(&l) != nil && r.counted != nil:
			if res, ok := r.counted(c, s, **r.count(&l)); ok {
				out = append(out, res)
			}
		}
	}
	return out
}

// in prefixes a reason with the segment it is about.
func (s ruleScope) in() string {
	if s.label == "" {
		return ""
	}
	return "segment " + s.label + ": "
}

// dropRule holds the drop of a metric's mean (head − base, waived losses
// counted as 0) against its limit. Beyond the limit it fails unless fewer
// than min_flipped queries moved, significance is required and missing, or
// (at the context depth) the drop is all in queries whose head window holds
// documents nobody judged: then it is inconclusive.
func (c *Comparison) dropRule(s ruleScope, name string, m *Metric, limit float64) RuleResult {
	metric, label, depth := m.Key, m.Label(c.Depth), m.Depth.Of(c.Depth)
	// The rule holds its seat in Holm's family whether or not it has a
	// query to measure: a change that gives it one must not grow the family.
	r := RuleResult{Name: name, Metric: metric, Depth: depth, Segment: s.label, Queries: len(s.queries), Limit: limit, Outcome: RulePass, family: c.Thresholds.RequireSignificance}
	if len(s.queries) == 0 {
		return r
	}
	deltas := make([]float64, len(s.queries))
	// ifRelevant are the deltas had every document nobody judged in the
	// head's top k been relevant (on both sides): the drop the range of
	// the head's score still confirms.
	ifRelevant := make([]float64, len(s.queries))
	var unjudged []string
	docs := 0
	for i, p := range s.queries {
		b, h := m.Of(&p.Base), m.Of(&p.Head)
		r.Base += b
		r.Head += h
		d := h - b
		if d < 0 && c.waivedFor(p, name) {
			d = 0
		}
		if d < -epsilon {
			r.Flipped++
		}
		deltas[i] = d
		ifRelevant[i] = d
		if u := p.HeadUnjudged; u.AtK > 0 && (metric == MetricPrecision || metric == MetricNDCG) {
			bu, hu := p.BaseUnjudged.Precision, u.Precision
			if metric == MetricNDCG {
				bu, hu = p.BaseUnjudged.NDCG, u.NDCG
			}
			ifRelevant[i] = hu - bu
			if ifRelevant[i] < 0 && c.waivedFor(p, name) {
				ifRelevant[i] = 0
			}
			if d < -epsilon {
				unjudged = append(unjudged, p.Query.ID)
				docs += u.AtK
			}
		}
	}
	n := float64(len(s.queries))
	r.Base /= n
	r.Head /= n
	r.Value = 0 - mean(deltas) // 0 - x, not -x: no negative zero when nothing moved
	if r.Value <= limit+epsilon {
		return r
	}
	r.Why = fmt.Sprintf("%smean %s dropped by %s (limit %.3f, %s)", s.in(), label, FixedApart(r.Value, limit, 3), limit, name)
	minFlipped := max(c.Thresholds.MinFlipped, 1)
	switch {
	case len(unjudged) > 0 && c.Thresholds.UnjudgedMode() == UnjudgedRangeMode && -mean(ifRelevant) <= limit+epsilon:
		r.Outcome = RuleInconclusive
		r.Note = fmt.Sprintf("%sthe range of the head's %s cannot confirm the drop: were the %d unjudged %s in the head's top %d of the %d %s whose %s dropped (%s) relevant, the mean %s would %s; judge them (recallgate label --from-report) and run again",
			s.in(), label, docs, Plural(docs, "document", "documents"), c.Depth.Context, len(unjudged), Plural(len(unjudged), "query", "queries"), label, JoinFirst(unjudged, 10), label, driftWords(-mean(ifRelevant), limit))
	case r.Flipped < minFlipped:
		r.Outcome = RuleInconclusive
		r.Note = fmt.Sprintf("%sonly %d %s moved %s the wrong way (min_flipped %d), so it does not fail the gate", s.in(), r.Flipped, Plural(r.Flipped, "query", "queries"), label, minFlipped)
	case c.Thresholds.RequireSignificance:
		// Decided with the other tests in holm, once every rule is in.
		r.tested(Paired(deltas), fmt.Sprintf("%sthe %s drop", s.in(), label))
		if c.Thresholds.UnjudgedMode() == UnjudgedNonRelevant {
			r.sureWhy = unjudgedFailNote(docs, c.Depth.Context)
		}
	default:
		r.Outcome = RuleFail
		if c.Thresholds.UnjudgedMode() == UnjudgedNonRelevant {
			r.Why += unjudgedFailNote(docs, c.Depth.Context)
		}
	}
	return r
}

// driftWords says in words where a mean would move by drop (a rise when
// negative), against the drop limit: "drop by 0.012, within the limit
// 0.050", "rise by 0.030 instead", "stay as it is".
func driftWords(drop, limit float64) string {
	switch {
	case drop > epsilon:
		return fmt.Sprintf("drop by %.3f, within the limit %.3f", drop, limit)
	case drop < -epsilon:
		return fmt.Sprintf("rise by %.3f instead of dropping", -drop)
	}
	return "stay as it is instead of dropping"
}

// tested records a significance test of the rule: its p-value now, its
// outcome in holm.
func (r *RuleResult) tested(st PairedStats, what string) {
	p := st.PValue
	r.PValue, r.sigWhat, r.sigN = &p, what, st.N
	r.Outcome = RuleFail
}

// holm decides the rules tested for significance together. The family is
// fixed by the policy, not by the damage: every rule of a significance-
// tested kind the comparison applied under require_significance (the
// mean-drop rules and the refusal rises, whole set and segments), breached
// or not. A rule that was not tested (within its limit, short of
// min_flipped, left unconfirmed by the unjudged range) holds its place in
// the family with p = 1, so a head that breaches more rules never makes
// the correction milder: each tested rule's p is adjusted by Holm's method
// over the whole family, and it fails only when its adjusted p is under
// Alpha; otherwise it is inconclusive, and its note gives both p-values
// when the family holds more than one rule.
func (c *Comparison) holm() {
	var idx []int
	var ps []float64
	m := 0
	for i, r := range c.Rules {
		if r.family || r.PValue != nil {
			m++
		}
		m += r.seats
		if r.PValue != nil {
			idx = append(idx, i)
			ps = append(ps, *r.PValue)
		}
	}
	c.HolmFamily = m
	family := slices.Clone(ps)
	for len(family) < m {
		family = append(family, 1)
	}
	adjusted := Holm(family)
	for j := range ps {
		a := adjusted[j]
		r := &c.Rules[idx[j]]
		r.AdjustedP = &a
		if a < Alpha {
			r.Outcome = RuleFail
			r.Why += r.sureWhy
			continue
		}
		r.Outcome = RuleInconclusive
		if r.unsureWhy != "" {
			r.Why, r.Note = r.unsureWhy, ""
			continue
		}
		if m == 1 {
			r.Note = fmt.Sprintf("%s is not significant (sign-flip p = %.3f ≥ %.2f over %d queries), so, with significance required, it does not fail the gate", r.sigWhat, *r.PValue, Alpha, r.sigN)
			continue
		}
		r.Note = fmt.Sprintf("%s is not significant after Holm's correction over the %d rules significance is required of (sign-flip p = %.3f, adjusted p = %.3f ≥ %.2f over %d queries), so, with significance required, it does not fail the gate", r.sigWhat, m, *r.PValue, a, Alpha, r.sigN)
	}
}

// belowRule holds the rise in the number of queries under the `below`
// recall against its limit; a waived query counts as it did on the base.
func (c *Comparison) belowRule(s ruleScope, limit int) RuleResult {
	below := c.Depth.below()
	r := RuleResult{Name: RuleBelowIncrease, Metric: MetricBelow, Depth: c.Depth.Candidates, Segment: s.label, Queries: len(s.queries), Limit: float64(limit), Outcome: RulePass}
	var entered []string
	for _, p := range s.queries {
		b, h := p.Base.Recall < below, p.Head.Recall < below
		if h && !b && c.waivedFor(p, RuleBelowIncrease) {
			h = false
		}
		if b {
			r.Base++
		}
		if h {
			r.Head++
		}
		if h && !b {
			entered = append(entered, p.Query.ID)
			r.Flipped++
		}
	}
	r.Value = r.Head - r.Base
	if r.Value > float64(limit) {
		r.Outcome = RuleFail
		r.Why = fmt.Sprintf("%s%d → %d queries with recall@%d under %.2f (+%d, limit +%d, %s); new: %s", s.in(), int(r.Base), int(r.Head), c.Depth.Candidates, below, int(r.Value), limit, RuleBelowIncrease, JoinFirst(entered, 10))
	}
	return r
}

// floorRule holds the head's mean of a metric against an absolute floor.
func (c *Comparison) floorRule(s ruleScope, name string, m *Metric, limit float64) RuleResult {
	label := m.Label(c.Depth)
	r := RuleResult{Name: name, Metric: m.Key, Depth: m.Depth.Of(c.Depth), Segment: s.label, Queries: len(s.queries), Limit: limit, Outcome: RulePass}
	if len(s.queries) == 0 {
		return r
	}
	for _, p := range s.queries {
		r.Base += m.Of(&p.Base)
		r.Head += m.Of(&p.Head)
	}
	r.Base /= float64(len(s.queries))
	r.Head /= float64(len(s.queries))
	r.Value = r.Head
	if r.Head < limit-epsilon {
		r.Outcome = RuleFail
		r.Why = fmt.Sprintf("%shead mean %s is %s, under the floor %.3f (%s)", s.in(), label, FixedApart(r.Head, limit, 3), limit, name)
	}
	return r
}

// latencyRule holds head p95 / base p95 against its limit.
func (c *Comparison) latencyRule(limit float64) RuleResult {
	r := RuleResult{Name: RuleLatencyRatio, Metric: MetricLatency, Limit: limit, Outcome: RulePass}
	b, h := c.Latency[0], c.Latency[1]
	if b == nil || h == nil || b.Calls == 0 || h.Calls == 0 || b.P95 <= 0 {
		r.Outcome = RuleSkipped
		r.Note = fmt.Sprintf("latency was not measured on both sides (a cached or stored run), so %s was not applied", RuleLatencyRatio)
		return r
	}
	r.Queries = h.Calls
	r.Base, r.Head = b.P95.Seconds()*1000, h.P95.Seconds()*1000
	r.Value = r.Head / r.Base
	if r.Value > limit+epsilon {
		r.Outcome = RuleFail
		r.Why = fmt.Sprintf("head p95 latency %.1f ms is %s× the base's %.1f ms (limit %.2f×, %s)", r.Head, FixedApart(r.Value, limit, 2), r.Base, limit, RuleLatencyRatio)
	}
	return r
}

// baselineRule holds the head's mean recall@N against the reviewed
// baseline run's, both over the answerable, non-synthetic queries of the
// set the baseline holds (a query kept apart as data quality excluded);
// a waived query's loss counts as 0. The queries the baseline lacks are
// left out of both means and named in BaselineDistance. A baseline that
// holds none of them is an *InputError naming it; no baseline read (the
// comparison has none to read, as a drift run) skips the rule, saying so.
func (c *Comparison) baselineRule(limit float64) (RuleResult, error) {
	n := c.Depth.Candidates
	r := RuleResult{Name: RuleBaselineDrop, Metric: MetricRecall, Depth: n, Limit: limit, Outcome: RulePass}
	b := c.reviewed
	if b == nil || b.Recall == nil {
		r.Outcome = RuleSkipped
		r.Note = fmt.Sprintf("no reviewed baseline run was read for this comparison, so %s was not applied", RuleBaselineDrop)
		if b != nil && b.Skipped != "" {
			r.Note = fmt.Sprintf("%s, so %s was not applied", b.Skipped, RuleBaselineDrop)
		}
		return r, nil
	}
	d := &BaselineDistance{Name: b.Name, Limit: limit}
	var deltas []float64
	for i := range c.Queries {
		p := &c.Queries[i]
		if p.Synthetic || p.DataQuality {
			continue
		}
		br, ok := b.Recall[p.Query.ID]
		if !ok {
			d.Missing = append(d.Missing, p.Query.ID)
			continue
		}
		r.Base += br
		r.Head += p.Head.Recall
		delta := p.Head.Recall - br
		if delta < 0 && c.waivedFor(p, RuleBaselineDrop) {
			delta = 0
		}
		if delta < -epsilon {
			r.Flipped++
		}
		deltas = append(deltas, delta)
	}
	if len(deltas) == 0 {
		return r, &InputError{File: b.Name, Field: "baseline", Err: fmt.Errorf("the baseline run holds none of the %d queries of %s that %s compares: it cannot measure this gate (write it again from the set the gate reads: recallgate gate --write-baseline)", len(d.Missing), c.Set.Path, RuleBaselineDrop)}
	}
	r.Queries = len(deltas)
	r.Base /= float64(len(deltas))
	r.Head /= float64(len(deltas))
	r.Value = 0 - mean(deltas)
	d.Queries, d.Baseline, d.Head, d.Drop = r.Queries, r.Base, r.Head, r.Value
	c.BaselineDistance = d
	if r.Value > limit+epsilon {
		r.Outcome = RuleFail
		r.Why = fmt.Sprintf("head mean recall@%d %.3f is %s below the reviewed baseline's %.3f (%s, %d %s; limit %.3f, %s)", n, r.Head, FixedApart(r.Value, limit, 3), r.Base, b.Name, r.Queries, Plural(r.Queries, "query", "queries"), limit, RuleBaselineDrop)
	}
	return r, nil
}

// missingGoldRule holds the relevant gold documents the corpus no longer
// holds, over the non-synthetic queries, against the limit: on a drift run
// a query all of whose losses are such documents is kept out of the recall
// rules (a data-quality problem, not a retrieval miss), so this rule is
// what fails on them. The reason names the documents and, for each, its
// queries, then which queries are kept out and which still count.
func (c *Comparison) missingGoldRule(limit int) RuleResult {
	r := RuleResult{Name: RuleMissingGold, Metric: MetricMissingGold, Limit: float64(limit), Outcome: RulePass}
	byDoc := map[string][]string{}
	var docs, keptOut, counted []string
	for i := range c.Queries {
		p := &c.Queries[i]
		if p.Synthetic || c.waivedFor(p, RuleMissingGold) {
			continue
		}
		r.Queries++
		if len(p.MissingGold) > 0 && p.DataQuality {
			keptOut = append(keptOut, p.Query.ID)
		} else if len(p.MissingGold) > 0 {
			counted = append(counted, p.Query.ID)
		}
		for _, d := range p.MissingGold {
			if byDoc[d] == nil {
				docs = append(docs, d)
			}
			byDoc[d] = append(byDoc[d], p.Query.ID)
		}
	}
	slices.Sort(docs)
	r.Value, r.Head, r.Flipped = float64(len(docs)), float64(len(docs)), len(docs)
	if len(docs) <= limit {
		return r
	}
	r.Outcome = RuleFail
	parts := make([]string, 0, min(len(docs), 10))
	for _, d := range docs[:min(len(docs), 10)] {
		parts = append(parts, fmt.Sprintf("%s (%s %s)", d, Plural(len(byDoc[d]), "query", "queries"), JoinFirst(byDoc[d], 5)))
	}
	more := ""
	if len(docs) > 10 {
		more = fmt.Sprintf(" and %d more", len(docs)-10)
	}
	r.Why = fmt.Sprintf("%d gold %s left the corpus (limit %d, %s): %s%s; %s: restore the %s or relabel the queries",
		len(docs), Plural(len(docs), "document", "documents"), limit, RuleMissingGold, strings.Join(parts, "; "), more, missingGoldCounts(keptOut, counted), Plural(len(docs), "document", "documents"))
	return r
}

// missingGoldCounts says which of the queries whose gold left the corpus
// the recall rules keep out (all they lost is gone) and which they still
// count (they lost gold the corpus holds too, or lost nothing).
func missingGoldCounts(keptOut, counted []string) string {
	var parts []string
	if len(keptOut) > 0 {
		parts = append(parts, fmt.Sprintf("kept out of the recall rules: %s %s", Plural(len(keptOut), "query", "queries"), JoinFirst(keptOut, 10)))
	}
	if len(counted) > 0 {
		parts = append(parts, fmt.Sprintf("still counted: %s %s (each also lost gold the corpus holds, or lost nothing)", Plural(len(counted), "query", "queries"), JoinFirst(counted, 10)))
	}
	return strings.Join(parts, "; ")
}

// mean is the arithmetic mean of xs (0 for none).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// applyRules evaluates every rule of the thresholds. It fails with an
// *InputError when a segment rule names no group of the set.
func (c *Comparison) applyRules() error {
	t := c.Thresholds
	var all []*PairedQuery
	for i := range c.Queries {
		if c.Queries[i].counted() {
			all = append(all, &c.Queries[i])
		}
	}
	whole := ruleScope{queries: all}
	// The recall rule and the new-miss rule keep their historic form: the
	// recall drop is the one the paired statistics describe.
	c.Rules = append(c.Rules, c.dropRule(whole, RuleRecallDrop, LookupRule(RuleRecallDrop).Metric, t.MaxRecallDrop))
	miss := RuleResult{Name: RuleNewMisses, Metric: MetricZero, Depth: c.Depth.Candidates, Queries: len(all), Limit: float64(t.MaxNewMisses), Outcome: RulePass,
		Base: float64(len(c.Base.ZeroRecall)), Head: float64(len(c.Head.ZeroRecall)), Value: float64(len(c.NewMisses)), Flipped: len(c.NewMisses)}
	if len(c.NewMisses) > t.MaxNewMisses {
		miss.Outcome = RuleFail
		miss.Why = fmt.Sprintf("%d %s newly at zero recall (limit %d, %s): %s", len(c.NewMisses), Plural(len(c.NewMisses), "query", "queries"), t.MaxNewMisses, RuleNewMisses, JoinFirst(c.NewMisses, 10))
		var flaky []string
		for _, id := range c.NewMisses {
			if c.Query(id).HeadUnstable {
				flaky = append(flaky, id)
			}
		}
		if len(flaky) > 0 {
			miss.Why += fmt.Sprintf(" (head unstable, at its worst repeat: %s)", JoinFirst(flaky, 10))
		}
	}
	c.Rules = append(c.Rules, miss)
	c.Rules = append(c.Rules, c.applyLimits(whole, t.limits())...)
	if t.MaxBaselineDrop != nil {
		r, err := c.baselineRule(*t.MaxBaselineDrop)
		if err != nil {
			return err
		}
		c.Rules = append(c.Rules, r)
	}
	fa, fr := t.MaxFalseAnswersIncrease, t.MaxFalseRefusalsIncrease
	c.Rules = append(c.Rules, c.refusalRules("", c.allRefusal(), &fa, &fr)...)
	if t.MaxLatencyRatio > 0 {
		c.Rules = append(c.Rules, c.latencyRule(t.MaxLatencyRatio))
	}
	if c.staleGoldApart && c.CorpusKnown {
		c.Rules = append(c.Rules, c.missingGoldRule(t.MaxMissingGold))
	}
	minSize := t.MinSegmentQueries
	if minSize <= 0 {
		minSize = DefaultMinSegmentQueries
	}
	if err := t.CheckSegments(c.Set); err != nil {
		return err
	}
	for _, sr := range t.Segments {
		label, members, _ := resolveSegment(c, sr.Name)
		var counted []*PairedQuery
		for _, p := range members {
			if p.counted() {
				counted = append(counted, p)
			}
		}
		if sr.Limits.refusal() {
			// The refusal rules count the segment's unanswerable queries too.
			rm := c.refusalMembers(sr.Name)
			n := 0
			for _, q := range rm {
				if q.counted() {
					n++
				}
			}
			if n < minSize {
				seats := familySeats(c.refusalRules(label, rm, sr.MaxFalseAnswersIncrease, sr.MaxFalseRefusalsIncrease))
				if !sr.Limits.documentLimits().none() {
					seats += familySeats(c.applyLimits(ruleScope{label: label, queries: counted}, sr.Limits.documentLimits()))
				}
				c.Rules = append(c.Rules, RuleResult{Name: "segment", Segment: label, Queries: n, Limit: float64(minSize), Outcome: RuleSkipped, seats: seats,
					Note: fmt.Sprintf("segment %s has %d %s, fewer than min_segment_queries (%d): too small to gate, its rules were not applied", label, n, Plural(n, "query", "queries"), minSize)})
				continue
			}
			c.Rules = append(c.Rules, c.refusalRules(label, rm, sr.MaxFalseAnswersIncrease, sr.MaxFalseRefusalsIncrease)...)
			if sr.Limits.documentLimits().none() {
				continue
			}
		}
		if len(counted) < minSize {
			c.Rules = append(c.Rules, RuleResult{Name: "segment", Segment: label, Queries: len(counted), Limit: float64(minSize), Outcome: RuleSkipped,
				seats: familySeats(c.applyLimits(ruleScope{label: label, queries: counted}, sr.Limits.documentLimits())),
				Note:  fmt.Sprintf("segment %s has %d %s, fewer than min_segment_queries (%d): too small to gate, its rules were not applied", label, len(counted), Plural(len(counted), "query", "queries"), minSize)})
			continue
		}
		c.Rules = append(c.Rules, c.applyLimits(ruleScope{label: label, queries: counted}, sr.Limits.documentLimits())...)
	}
	return nil
}

// orNone joins names, or says "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// declaredSegments lists the segment names the set's queries declare, sorted.
func (s *Set) declaredSegments() []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range s.Queries {
		for _, g := range q.Segments {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	slices.Sort(out)
	return out
}
