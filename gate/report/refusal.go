package report

import (
	"fmt"
	"io"

	"github.com/recallgate/recallgate/gate"
)

// RefusalInfo is the refusal check in a report: each side's decision to
// answer or refuse, kept apart from the document metrics.
type RefusalInfo struct {
	// Metrics describe the two counts (unit, denominator, stage).
	Metrics []MetricInfo    `json:"metrics"`
	Base    RefusalSideInfo `json:"base"`
	Head    RefusalSideInfo `json:"head"`
	// NewFalseAnswers and NewFalseRefusals are the counted, unwaived
	// queries false on the head and not on the base.
	NewFalseAnswers  []string `json:"new_false_answers"`
	NewFalseRefusals []string `json:"new_false_refusals"`
	// Queries are the queries some side decided, in set order.
	Queries []RefusalQueryInfo `json:"queries"`
}

// RefusalSideInfo is one side's refusal check.
type RefusalSideInfo struct {
	// Signal is abstain, min_score, abstain+min_score, partial or none.
	Signal string `json:"signal"`
	// MinScore is the side's [refusal] min_score, when it has one.
	MinScore *float64 `json:"min_score,omitempty"`
	// Undecided are the counted queries whose answer carried no signal.
	Undecided     []string     `json:"undecided"`
	FalseAnswers  RefusalCount `json:"false_answers"`
	FalseRefusals RefusalCount `json:"false_refusals"`
}

// RefusalCount is a count of false decisions over its denominator, and
// the queries.
type RefusalCount struct {
	Count   int      `json:"count"`
	Of      int      `json:"of"`
	Queries []string `json:"queries"`
}

// RefusalQueryInfo is one query's decision on both sides.
type RefusalQueryInfo struct {
	ID         string              `json:"id"`
	Answerable bool                `json:"answerable"`
	Counted    bool                `json:"counted"`
	Base       RefusalDecisionInfo `json:"base"`
	Head       RefusalDecisionInfo `json:"head"`
}

// RefusalDecisionInfo is one side's decision: refused or answered, by what
// (abstain, min_score, no hits), and the top score min_score read.
type RefusalDecisionInfo struct {
	Decided  bool     `json:"decided"`
	Refused  bool     `json:"refused"`
	By       string   `json:"by,omitempty"`
	TopScore *float64 `json:"top_score,omitempty"`
}

// RefusalMetrics describe the refusal check's two counts.
func RefusalMetrics() []MetricInfo {
	return []MetricInfo{
		{"false answers", gate.MetricFalseAnswers, 0, "queries", "unanswerable queries the side decided (answer or refuse)", "refusal"},
		{"false refusals", gate.MetricFalseRefusals, 0, "queries", "answerable queries the side decided (answer or refuse)", "refusal"},
	}
}

func refusalInfo(rc *gate.RefusalCheck) *RefusalInfo {
	if rc == nil {
		return nil
	}
	side := func(s gate.RefusalSide) RefusalSideInfo {
		return RefusalSideInfo{Signal: s.Signal, MinScore: s.Rule.MinScore, Undecided: list(s.Undecided),
			FalseAnswers:  RefusalCount{len(s.FalseAnswers), s.Unanswerable, list(s.FalseAnswers)},
			FalseRefusals: RefusalCount{len(s.FalseRefusals), s.Answerable, list(s.FalseRefusals)}}
	}
	dec := func(d gate.RefusalDecision) RefusalDecisionInfo {
		out := RefusalDecisionInfo{Decided: d.Decided, Refused: d.Refused, By: d.By}
		if d.By == gate.ByMinScore {
			v := d.TopScore
			out.TopScore = &v
		}
		return out
	}
	out := &RefusalInfo{Metrics: RefusalMetrics(), Base: side(rc.Sides[0]), Head: side(rc.Sides[1]),
		NewFalseAnswers: list(rc.NewFalseAnswers), NewFalseRefusals: list(rc.NewFalseRefusals), Queries: []RefusalQueryInfo{}}
	for _, q := range rc.Queries {
		if !q.Base.Decided && !q.Head.Decided {
			continue
		}
		out.Queries = append(out.Queries, RefusalQueryInfo{ID: q.Query.ID, Answerable: q.Answerable, Counted: !q.Synthetic && !q.Unstable, Base: dec(q.Base), Head: dec(q.Head)})
	}
	return out
}

// signalText shows a side's signal: "abstain", "min_score 0.42",
// "abstain, else min_score 0.42", "partial (2 answers without one)",
// "no refusal signal".
func (s RefusalSideInfo) signalText() string {
	ms := ""
	if s.MinScore != nil {
		ms = gate.Refusal{MinScore: s.MinScore}.String()
	}
	switch s.Signal {
	case gate.SignalAbstain:
		return "abstain"
	case gate.SignalMinScore:
		return ms
	case gate.SignalBoth:
		return "abstain, else " + ms
	case gate.SignalPartial:
		return fmt.Sprintf("partial (%d %s without one)", len(s.Undecided), plural(len(s.Undecided), "answer", "answers"))
	}
	return "no refusal signal"
}

// has reports whether the side decided every counted query.
func (s RefusalSideInfo) has() bool {
	return s.Signal != gate.SignalNone && s.Signal != gate.SignalPartial && s.Signal != ""
}

// count shows "1/3: q9 (new), q12"; new marks the head's new ones; id
// writes each query's id.
func (c RefusalCount) text(news []string, id func(string) string) string {
	out := fmt.Sprintf("%d/%d", c.Count, c.Of)
	if len(c.Queries) == 0 {
		return out
	}
	isNew := map[string]bool{}
	for _, id := range news {
		isNew[id] = true
	}
	var ids []string
	for _, q := range c.Queries {
		s := id(q)
		if isNew[q] {
			s += " (new)"
		}
		ids = append(ids, s)
	}
	return out + ": " + gate.JoinFirst(ids, 20)
}

// refusalLines are the refusal block as lines of plain text: the signal
// of each side, then, when both have one, the two counts per side. esc
// escapes text, id a query's id.
func refusalLines(r *CompareReport, esc, id func(string) string) []string {
	rf := r.Refusal
	if rf == nil {
		return nil
	}
	head := fmt.Sprintf("Refusal check (apart from the document metrics): signal base %s, head %s", esc(rf.Base.signalText()), esc(rf.Head.signalText()))
	if rf.Base.Signal == gate.SignalNone && rf.Head.Signal == gate.SignalNone {
		return []string{fmt.Sprintf("Refusal check: no refusal signal on either side (no answer carries \"abstain\" and no [refusal] min_score is set), so %s and %s were not evaluated", gate.RuleFalseAnswers, gate.RuleFalseRefusals)}
	}
	if !rf.Base.has() || !rf.Head.has() {
		out := []string{head + fmt.Sprintf("; %s and %s not evaluated", gate.RuleFalseAnswers, gate.RuleFalseRefusals)}
		for _, s := range []struct {
			name string
			info RefusalSideInfo
		}{{"base", rf.Base}, {"head", rf.Head}} {
			if s.info.Signal == gate.SignalPartial {
				out = append(out, fmt.Sprintf("%s answers without a refusal signal: %s", s.name, gate.JoinFirst(mapIDs(s.info.Undecided, id), 20)))
			}
		}
		return out
	}
	return []string{head,
		fmt.Sprintf("False answers (unanswerable queries it would answer: a risk of invented answers): base %s; head %s", rf.Base.FalseAnswers.text(nil, id), rf.Head.FalseAnswers.text(rf.NewFalseAnswers, id)),
		fmt.Sprintf("False refusals (answerable queries it would refuse): base %s; head %s", rf.Base.FalseRefusals.text(nil, id), rf.Head.FalseRefusals.text(rf.NewFalseRefusals, id)),
	}
}

// writeRefusalMarkdown writes the refusal block of a Markdown report.
func writeRefusalMarkdown(b io.Writer, r *CompareReport) {
	lines := refusalLines(r, EscapeMarkdown, mdCode)
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**%s**\n", lines[0])
	if len(lines) > 1 {
		b.Write([]byte("\n"))
		for _, l := range lines[1:] {
			fmt.Fprintf(b, "- %s\n", l)
		}
	}
}

// mapIDs writes each id with id.
func mapIDs(ids []string, id func(string) string) []string {
	out := make([]string, len(ids))
	for i, s := range ids {
		out[i] = id(s)
	}
	return out
}
