package report

import (
	"fmt"

	"github.com/recallgate/recallgate/gate"
)

// condensedClause is what the set line adds when precision and nDCG were
// scored on condensed lists; "" in the other readings.
func condensedClause(mode string) string {
	if mode != gate.UnjudgedCondensed {
		return ""
	}
	return ", condensed (precision and nDCG over each side's list with the documents nobody judged removed before the cut, both sides)"
}

// untilJudged says what the scores made of the label debt's documents.
func untilJudged(mode string) string {
	if mode == gate.UnjudgedCondensed {
		return "they are left out of precision and nDCG (condensed lists)"
	}
	return "they count as non-relevant"
}

// rangeReading says, after the range line, what the rules made of the
// range: under "range" a breach its relevant end clears is inconclusive;
// otherwise the range is shown and decides nothing.
func rangeReading(mode string) string {
	switch mode {
	case gate.UnjudgedRangeMode:
		return " A context rule's breach the relevant end clears is inconclusive ([gate] unjudged = \"range\")."
	case gate.UnjudgedCondensed:
		return " The range reads them as trec_eval does; the rules read condensed lists ([gate] unjudged = \"condensed\")."
	case gate.UnjudgedNonRelevant:
		return " The rules count them non-relevant ([gate] unjudged = \"nonrelevant\", trec_eval's reading): judge them to clear a failure."
	}
	return ""
}

// MaxDebtLines is how many queries the label-debt block of the text and
// Markdown reports lists; the JSON lists them all.
const MaxDebtLines = 10

// debtShown is the label debt's queries a report lists (at most
// MaxDebtLines) and the line for the rest ("" when none is left out).
func debtShown(u UnjudgedInfo) ([]UnjudgedQuery, string) {
	if len(u.New) <= MaxDebtLines {
		return u.New, ""
	}
	more := len(u.New) - MaxDebtLines
	return u.New[:MaxDebtLines], fmt.Sprintf("…and %d more %s (the JSON lists them all)", more, plural(more, "query", "queries"))
}
