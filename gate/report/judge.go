package report

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/fingerprint"
)

// JudgeInfo is the judge program's calibration against people and
// whether the policy let its grades count (gate.JudgeReport).
type JudgeInfo struct {
	// Name and Fingerprint identify the judge the config names.
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	// Kappa is Cohen's kappa on relevant or not, WeightedKappa the
	// quadratic-weighted kappa on 0–3, over the Overlap documents both
	// people and the judge graded.
	Kappa         float64 `json:"kappa"`
	WeightedKappa float64 `json:"weighted_kappa"`
	Overlap       int     `json:"overlap"`
	// JudgeRelevant counts the judge relevant where people said not,
	// PeopleRelevant the reverse.
	JudgeRelevant  int `json:"judge_relevant_people_not"`
	PeopleRelevant int `json:"people_relevant_judge_not"`
	// Used says its grades counted where no person graded; DocumentsUsed
	// counts the documents in the verdict resting on the judge alone; Why
	// says why they did not count.
	Used          bool   `json:"used"`
	DocumentsUsed int    `json:"documents_used"`
	Why           string `json:"why,omitempty"`
	// GradesUsed counts the judge's grades taken as gold where no person
	// graded, in the verdict or not (they change recall@N's denominators
	// too); VerdictWithout is the verdict without them: pass, fail or
	// inconclusive when Used, else "".
	GradesUsed     int    `json:"grades_used"`
	VerdictWithout string `json:"verdict_without,omitempty"`
	// OtherFingerprint counts grades under another judge or fingerprint:
	// kept in the set, not used.
	OtherFingerprint int `json:"other_fingerprint"`
	// Disagreements are the first documents the judge reads apart from
	// people (relevant against not), with its reason: the judge's text.
	Disagreements []JudgeDisagreementInfo `json:"disagreements"`
}

// JudgeDisagreementInfo is one document the judge reads apart from people.
type JudgeDisagreementInfo struct {
	Query  string `json:"query"`
	Doc    string `json:"doc"`
	People int    `json:"people"`
	Judge  int    `json:"judge"`
	Reason string `json:"reason,omitempty"`
}

// MaxJudgeDisagreements is how many disagreements a report lists.
const MaxJudgeDisagreements = 20

// line is the disagreement as one line of text, the reason quoted.
func (d JudgeDisagreementInfo) line() string {
	return gate.JudgeDisagreement{Query: d.Query, Doc: d.Doc, People: d.People, Judge: d.Judge, Reason: d.Reason}.String()
}

// summary is the judge's calibration on one line.
func (j *JudgeInfo) summary() string {
	s := fmt.Sprintf("%s (%s): kappa %.2f relevant or not, weighted %.2f, on %d documents both graded; used: %v", j.Name, fingerprint.Short(j.Fingerprint), j.Kappa, j.WeightedKappa, j.Overlap, j.Used)
	if j.Used {
		return s + fmt.Sprintf(", %d documents rest on the judge alone", j.DocumentsUsed)
	}
	return s + " (" + j.Why + ")"
}

// judgeInfo is the report's judge object, nil without a judge.
func judgeInfo(j *gate.JudgeReport) *JudgeInfo {
	if j == nil {
		return nil
	}
	out := &JudgeInfo{Name: j.Name, Fingerprint: j.Fingerprint, Kappa: round4(j.Kappa), WeightedKappa: round4(j.Weighted), Overlap: j.Overlap,
		JudgeRelevant: j.JudgeRelevant, PeopleRelevant: j.PeopleRelevant, Used: j.Used, DocumentsUsed: j.DocumentsUsed, Why: j.Why, OtherFingerprint: j.OtherFingerprint,
		GradesUsed: j.GradesUsed, VerdictWithout: string(j.VerdictWithout),
		Disagreements: []JudgeDisagreementInfo{}}
	for i, d := range j.Disagreements {
		if i == MaxJudgeDisagreements {
			break
		}
		out.Disagreements = append(out.Disagreements, JudgeDisagreementInfo{Query: d.Query, Doc: d.Doc, People: d.People, Judge: d.Judge, Reason: d.Reason})
	}
	return out
}

// judgedVerdicts are the verdicts a comparison without the judge's
// grades can give.
var judgedVerdicts = []string{string(gate.Pass), string(gate.Fail), string(gate.Inconclusive)}

// judgeHeadline is the headline's clause when the judge's grades count:
// how many, the judge, its kappa, and the verdict without them, "" when
// they do not. esc escapes the judge's name (the config's text).
func judgeHeadline(r *CompareReport, esc func(string) string) string {
	j := r.Judge
	if j == nil || !j.Used {
		return ""
	}
	without := j.VerdictWithout
	if without == r.Verdict {
		without = "also " + without
	}
	return fmt.Sprintf("rests on %d %s of judge %s (kappa %.2f); without them: %s", j.GradesUsed, plural(j.GradesUsed, "grade", "grades"), esc(j.Name), j.Kappa, without)
}

// round4 keeps four decimals: a kappa read back is the one written.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// validate checks the judge object read back.
func (j *JudgeInfo) validate() error {
	if j == nil {
		return nil
	}
	if err := plainAll("judge", j.Name, j.Why); err != nil {
		return err
	}
	switch {
	case j.Name == "":
		return errors.New("judge.name is empty")
	case !fingerprint.Valid(j.Fingerprint):
		return fmt.Errorf("judge.fingerprint %q: want sha256: and 64 hex digits", j.Fingerprint)
	case j.Kappa < -1 || j.Kappa > 1 || j.WeightedKappa < -1 || j.WeightedKappa > 1:
		return fmt.Errorf("judge.kappa %v, weighted_kappa %v: a kappa is within -1 and 1", j.Kappa, j.WeightedKappa)
	case j.Overlap < 0 || j.JudgeRelevant < 0 || j.PeopleRelevant < 0 || j.DocumentsUsed < 0 || j.OtherFingerprint < 0:
		return errors.New("judge: a count is negative")
	case j.JudgeRelevant+j.PeopleRelevant > j.Overlap:
		return fmt.Errorf("judge: %d disagreements among %d documents both graded", j.JudgeRelevant+j.PeopleRelevant, j.Overlap)
	case !j.Used && j.DocumentsUsed > 0:
		return fmt.Errorf("judge.documents_used %d with used false", j.DocumentsUsed)
	case j.Used && j.Why != "":
		return errors.New("judge.why is set with used true")
	case !j.Used && (j.GradesUsed > 0 || j.VerdictWithout != ""):
		return fmt.Errorf("judge.grades_used %d, verdict_without %q with used false", j.GradesUsed, j.VerdictWithout)
	case j.Used && !slices.Contains(judgedVerdicts, j.VerdictWithout):
		return fmt.Errorf("judge.verdict_without %q: want one of %v", j.VerdictWithout, judgedVerdicts)
	case j.DocumentsUsed > j.GradesUsed && j.Used:
		return fmt.Errorf("judge.documents_used %d of %d grades used", j.DocumentsUsed, j.GradesUsed)
	case len(j.Disagreements) > min(MaxJudgeDisagreements, j.JudgeRelevant+j.PeopleRelevant):
		return fmt.Errorf("judge.disagreements lists %d of %d disagreements", len(j.Disagreements), j.JudgeRelevant+j.PeopleRelevant)
	}
	for i, d := range j.Disagreements {
		if err := plainAll(fmt.Sprintf("judge.disagreements[%d]", i), d.Query, d.Doc); err != nil {
			return err
		}
		if d.People < 0 || d.People > gate.MaxGrade || d.Judge < 0 || d.Judge > gate.MaxGrade || (d.People > 0) == (d.Judge > 0) {
			return fmt.Errorf("judge.disagreements[%d]: grades %d and %d: want one relevant, one not, within 0–%d", i, d.People, d.Judge, gate.MaxGrade)
		}
	}
	return nil
}
