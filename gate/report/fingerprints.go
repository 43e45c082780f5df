package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/fingerprint"
)

// DataQualityInfo is one query whose relevant gold the corpus no longer
// holds: a data-quality problem, not a retrieval miss.
type DataQualityInfo struct {
	// ID is the query's.
	ID string `json:"id"`
	// Missing are the relevant gold documents the corpus does not hold.
	Missing []string `json:"missing"`
	// KeptOut says everything the query lost is among them, so it is kept
	// out of the flips and the rules.
	KeptOut bool `json:"kept_out"`
}

// InputChangeInfo is one changed input: set, retriever, corpus or policy, with
// the baseline's fingerprint and today's.
type InputChangeInfo struct {
	// Input is one of gate.BaselineInputs: set, retriever, corpus or policy.
	Input string `json:"input"`
	// Baseline is the fingerprint the baseline recorded; Now today's.
	Baseline string `json:"baseline"`
	Now      string `json:"now"`
	// Files are, for the retriever, the files of its table and those its
	// start or command names that commits since the baseline touched,
	// each with the newest such commit (gate.InputChange.Files).
	Files []ChangedFileInfo `json:"files,omitempty"`
}

// ChangedFileInfo is one file commits since the baseline touched: its
// path in the repository and the newest such commit.
type ChangedFileInfo struct {
	Path    string `json:"path"`
	SHA     string `json:"sha"`
	Subject string `json:"subject"`
}

func dataQualityInfo(c *gate.Comparison) []DataQualityInfo {
	var out []DataQualityInfo
	for _, id := range c.DataQuality {
		p := c.Query(id)
		out = append(out, DataQualityInfo{ID: id, Missing: list(p.MissingGold), KeptOut: p.DataQuality})
	}
	return out
}

// fingerprintsLine is every fingerprint on one line, short:
// "fingerprints: corpus 1a2b3c4d5e6f, set …"; "" when there are none.
func fingerprintsLine(r *CompareReport) string {
	if len(r.Fingerprints) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(r.Fingerprints) {
		parts = append(parts, strings.ReplaceAll(k, "_", " ")+" "+fingerprint.Short(r.Fingerprints[k]))
	}
	return "fingerprints: " + strings.Join(parts, ", ")
}

// dataQualityLines says, per query, which relevant gold the corpus lost
// and whether the query still counts; id renders a query or document id
// for the format (a code span in Markdown).
func dataQualityLines(r *CompareReport, id func(string) string) []string {
	byID := r.byID()
	var out []string
	for _, d := range r.DataQuality {
		line, lost, gone := 0, 0, true
		if q := byID[d.ID]; q != nil {
			line, lost = q.Line, len(q.Lost)
			for _, doc := range q.Lost {
				gone = gone && slices.Contains(d.Missing, doc)
			}
		}
		// A drift run's corpus changed under the set since the reviewed
		// baseline; a pull request's is the head's, the change under review.
		s := fmt.Sprintf("%s (line %d): gold not in the head's corpus: %s — the compared change deleted or renamed it; ", id(d.ID), line, strings.Join(mapIDs(d.Missing, id), ", "))
		if d.KeptOut {
			s = fmt.Sprintf("%s (line %d): gold not in the corpus: %s — deleted or renamed since it was labelled; ", id(d.ID), line, strings.Join(mapIDs(d.Missing, id), ", "))
		}
		switch {
		case d.KeptOut:
			s += "not a retrieval miss: kept out of the flips and the rules until it is relabelled"
		case lost > 0 && gone:
			s += "its loss counts, for the corpus changed in what was compared: restore the document, or relabel the query in the same change"
		case lost > 0:
			s += "relabel it; the query still counts, for it also lost gold the corpus holds"
		default:
			s += "relabel it; the query still counts (neither side could find it)"
		}
		out = append(out, s)
	}
	return out
}

// keptOutHeadline is the headline's clause when a drift run keeps
// queries whose gold left the corpus out of the rules: the means
// max_recall_drop held, over the queries it counted, beside the means
// over every query ("" when none is kept out).
func keptOutHeadline(r *CompareReport) string {
	kept := 0
	for _, d := range r.DataQuality {
		if d.KeptOut {
			kept++
		}
	}
	if kept == 0 {
		return ""
	}
	for _, ru := range r.Rules {
		if ru.Name == gate.RuleRecallDrop && ru.Segment == "" && ru.Outcome != gate.RuleSkipped {
			return fmt.Sprintf(" over every query, %s → %s over the %d the rules count (%d kept out: gold left the corpus)", f3(ru.Base), f3(ru.Head), ru.Queries, kept)
		}
	}
	return ""
}

// dataQualityTitle is the data-quality heading's words.
func dataQualityTitle(r *CompareReport) string {
	n := len(r.DataQuality)
	return fmt.Sprintf("data quality: %d %s with gold the corpus does not hold", n, plural(n, "query", "queries"))
}

func writeDataQualityText(b io.Writer, r *CompareReport) {
	if len(r.DataQuality) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", dataQualityTitle(r))
	for _, l := range dataQualityLines(r, termID) {
		fmt.Fprintf(b, "  %s\n", l)
	}
}

func writeDataQualityMarkdown(b io.Writer, r *CompareReport) {
	if len(r.DataQuality) == 0 {
		return
	}
	t := dataQualityTitle(r)
	fmt.Fprintf(b, "**%s**\n\n", strings.ToUpper(t[:1])+t[1:])
	for _, l := range dataQualityLines(r, mdCode) {
		fmt.Fprintf(b, "- %s\n", l)
	}
}

// validateInputs checks the fingerprints, the data-quality list and the
// baseline block of a report read back; known is the report's query ids.
func (r *CompareReport) validateInputs(known map[string]bool) error {
	for k, v := range r.Fingerprints {
		if !slices.Contains(fingerprintNames, k) {
			return fmt.Errorf("fingerprints: unknown input %q (want one of %v)", k, fingerprintNames)
		}
		if !fingerprintForm.MatchString(v) {
			return fmt.Errorf("fingerprints.%s %q is not a sha256 hash", k, v)
		}
	}
	for i, d := range r.DataQuality {
		at := fmt.Sprintf("data_quality[%d]", i)
		if err := plainAll(at, append([]string{d.ID}, d.Missing...)...); err != nil {
			return err
		}
		if !known[d.ID] {
			return fmt.Errorf("%s names query %q, which the report does not hold", at, gate.ClipID(d.ID))
		}
	}
	return r.Baseline.validate()
}
