package report

import "github.com/recallgate/recallgate/gate"

// ContextInfo is one query's final context on one side: where it came
// from, the context scores and the passages (without their text).
type ContextInfo struct {
	// Source is "own" (the pipeline's) or "packed" (by recallgate from the
	// hits, under ContextTokens words).
	Source           string        `json:"source"`
	ContextTokens    int           `json:"context_tokens,omitempty"`
	ContextRecall    float64       `json:"context_recall"`
	GoldInContext    []string      `json:"gold_in_context"`
	EvidenceCoverage Coverage      `json:"evidence_coverage"`
	FactsFound       int           `json:"facts_found"`
	FactsTotal       int           `json:"facts_total"`
	Passages         int           `json:"passages"`
	Tokens           int           `json:"tokens"`
	Final            []PassageInfo `json:"final_context,omitempty"`
}

// PassageInfo is one passage of a final context.
type PassageInfo struct {
	Label  string `json:"label"`
	Doc    string `json:"doc"`
	Chunk  string `json:"chunk,omitempty"`
	Tokens int    `json:"tokens"`
}

// ContextSummaryInfo is one side's final-context stage: where its
// contexts came from (as every report says it) and the means.
type ContextSummaryInfo struct {
	Source           string   `json:"source"`
	Queries          int      `json:"queries"`
	Own              int      `json:"own"`
	Packed           int      `json:"packed"`
	ContextRecall    float64  `json:"context_recall"`
	EvidenceQueries  int      `json:"evidence_queries"`
	EvidenceCoverage Coverage `json:"evidence_coverage"`
	FactsFound       int      `json:"facts_found"`
	FactsTotal       int      `json:"facts_total"`
	Passages         float64  `json:"passages"`
	Tokens           float64  `json:"tokens"`
}

// FactMoveInfo is a required fact one side's final context held and the
// other's did not.
type FactMoveInfo struct {
	Fact    string `json:"fact"`
	Doc     string `json:"doc"`
	Passage string `json:"passage"`
	Instead string `json:"instead"`
}

func contextInfo(c *gate.ContextStage) *ContextInfo {
	if c == nil {
		return nil
	}
	cov, ok := c.Coverage()
	out := &ContextInfo{Source: c.Source, ContextRecall: c.Recall(), GoldInContext: list(c.GoldInContext), EvidenceCoverage: Coverage{cov, ok},
		FactsFound: c.FactsFound, FactsTotal: c.FactCount, Passages: c.Size, Tokens: c.Tokens}
	if c.Source == gate.ContextPacked {
		out.ContextTokens = c.Budget
	}
	for i, p := range c.Passages {
		out.Final = append(out.Final, PassageInfo{Label: c.PassageLabel(i), Doc: p.Doc, Chunk: p.Chunk, Tokens: p.Tokens})
	}
	return out
}

func contextSummaryInfo(c *gate.ContextSummary) *ContextSummaryInfo {
	if c == nil {
		return nil
	}
	return &ContextSummaryInfo{Source: c.Source(), Queries: c.Queries, Own: c.Own, Packed: c.Packed, ContextRecall: c.Recall,
		EvidenceQueries: c.EvidenceQueries, EvidenceCoverage: Coverage{c.Coverage, c.EvidenceQueries > 0},
		FactsFound: c.FactsFound, FactsTotal: c.Facts, Passages: c.Passages, Tokens: c.Tokens}
}

func factMoves(ms []gate.FactMove) []FactMoveInfo {
	var out []FactMoveInfo
	for _, m := range ms {
		out = append(out, FactMoveInfo{Fact: m.Fact, Doc: m.Doc, Passage: m.Passage, Instead: m.Instead})
	}
	return out
}
