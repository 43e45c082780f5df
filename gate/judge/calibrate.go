package judge

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/agreement"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/fingerprint"
)

// Calibrate compares the judge's grades (those under its fingerprint)
// with people's on the documents both graded: people's grade is the
// derived gold (gate.GoldRule, people only), the judge's its own.
// Grades of other judges or fingerprints are counted, not compared.
func Calibrate(set *gate.Set, id Identity) *gate.JudgeReport {
	r := &gate.JudgeReport{Name: id.Name, Fingerprint: id.Fingerprint}
	var people, judge []int
	for _, q := range set.Queries {
		for name, rec := range q.Judges {
			if name != id.Name || rec.Fingerprint != id.Fingerprint {
				r.OtherFingerprint += len(rec.Grades)
				continue
			}
			r.Graded += len(rec.Grades)
			docs := make([]string, 0, len(rec.Grades))
			for d := range rec.Grades {
				docs = append(docs, d)
			}
			sort.Strings(docs)
			for _, d := range docs {
				if !q.Judged(d) {
					continue
				}
				p, j := q.Gold[d], rec.Grades[d]
				people, judge = append(people, p), append(judge, j)
				switch {
				case j > 0 && p == 0:
					r.JudgeRelevant++
				case p > 0 && j == 0:
					r.PeopleRelevant++
				default:
					continue
				}
				r.Disagreements = append(r.Disagreements, gate.JudgeDisagreement{Query: q.ID, Doc: d, People: p, Judge: j, Reason: rec.Reasons[d]})
			}
		}
	}
	r.Overlap = len(people)
	if r.Overlap > 0 {
		a := agreement.Grades(people, judge)
		r.Kappa, r.Weighted = a.Binary, a.Weighted
	}
	return r
}

// kappaSlack absorbs float error when a kappa meets its bar exactly.
const kappaSlack = 1e-9

// Decide says whether th lets the calibrated judge's grades count:
// min_judge_agreement set, at least min_judge_overlap documents both
// graded and the relevant-or-not kappa at or above the agreement. Why
// says what is missing when they do not.
func Decide(r *gate.JudgeReport, th gate.Thresholds) {
	overlap := th.MinJudgeOverlap
	if overlap <= 0 {
		overlap = config.DefaultMinJudgeOverlap
	}
	switch {
	case th.MinJudgeAgreement == nil:
		r.Why = "the policy sets no [gate] min_judge_agreement: judge grades are shown, never used"
	case r.Overlap < overlap:
		r.Why = fmt.Sprintf("%d documents graded by both people and the judge, under min_judge_overlap %d", r.Overlap, overlap)
	case r.Kappa+kappaSlack < *th.MinJudgeAgreement:
		r.Why = fmt.Sprintf("kappa %.2f is under min_judge_agreement %s", r.Kappa, strconv.FormatFloat(*th.MinJudgeAgreement, 'f', -1, 64))
	default:
		r.Used, r.Why = true, ""
	}
}

// Apply calibrates the judge on set, decides by th and, when its grades
// count, returns the view of the set where they are gold for the
// documents no person graded (WithGrades) with what was
// taken; else the set itself and nil.
func Apply(set *gate.Set, id Identity, th gate.Thresholds) (*gate.Set, *gate.JudgeReport, map[string][]string) {
	r := Calibrate(set, id)
	Decide(r, th)
	if !r.Used {
		return set, r, nil
	}
	extra := map[string]map[string]int{}
	for _, q := range set.Queries {
		if rec := q.Judges[id.Name]; rec != nil && rec.Fingerprint == id.Fingerprint {
			extra[q.ID] = rec.Grades
		}
	}
	view, applied := WithGrades(set, extra)
	return view, r, applied
}

// CountUsed counts the documents of applied in the first k distinct
// documents of any of the runs (the verdict's context windows).
func CountUsed(applied map[string][]string, k int, runs ...[]gate.Result) int {
	in := map[[2]string]bool{}
	for _, run := range runs {
		for _, res := range run {
			seen := map[string]bool{}
			for _, h := range res.Hits {
				if len(seen) == k {
					break
				}
				seen[h.Doc] = true
			}
			for d := range seen {
				in[[2]string{res.ID, d}] = true
			}
		}
	}
	n := 0
	for q, docs := range applied {
		for _, d := range docs {
			if in[[2]string{q, d}] {
				n++
			}
		}
	}
	return n
}

// maxDisagreementLines is how many disagreements the health lists.
const maxDisagreementLines = 5

// Health is what a report's health and validate say of the judge: its
// calibration, whether its grades count (with verdict, in a comparison:
// how many documents in the verdict rest on the judge alone), grades of
// other fingerprints, and the first disagreements with the judge's reason
// (quoted: its text is the judge's).
func Health(r *gate.JudgeReport, verdict bool) []string {
	if r == nil {
		return nil
	}
	var out []string
	cal := fmt.Sprintf("judge %s (%s): no document graded by both people and the judge yet: run recallgate judge to calibrate it", r.Name, fingerprint.Short(r.Fingerprint))
	if r.Overlap > 0 {
		cal = fmt.Sprintf("judge %s (%s) against people on %d %s both graded: Cohen's kappa %.2f relevant or not, quadratic-weighted %.2f on 0–%d; judge relevant where people said not: %d, people relevant where the judge said not: %d",
			r.Name, fingerprint.Short(r.Fingerprint), r.Overlap, gate.Plural(r.Overlap, "document", "documents"), r.Kappa, r.Weighted, gate.MaxGrade, r.JudgeRelevant, r.PeopleRelevant)
	}
	switch {
	case r.Used && verdict:
		cal += fmt.Sprintf("; its grades count where no person graded: %d %s in the verdict rest on the judge alone", r.DocumentsUsed, gate.Plural(r.DocumentsUsed, "document", "documents"))
	case r.Used:
		cal += "; by this config's policy its grades count where no person graded (a pull request's gate takes the base commit's)"
	default:
		cal += "; its grades are not used: " + r.Why
	}
	out = append(out, cal)
	if r.OtherFingerprint > 0 {
		out = append(out, fmt.Sprintf("judge grades: %d under another judge or fingerprint (a changed model, prompt or guideline) are kept in the set and not used; run recallgate judge to grade them again", r.OtherFingerprint))
	}
	for i, d := range r.Disagreements {
		if i == maxDisagreementLines {
			out = append(out, fmt.Sprintf("judge %s: %d more disagreements (recallgate label --adjudicate shows them all)", r.Name, len(r.Disagreements)-i))
			break
		}
		out = append(out, fmt.Sprintf("judge %s disagrees on %s", r.Name, d))
	}
	return out
}
