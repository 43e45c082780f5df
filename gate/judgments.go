package gate

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// Mark is one labeller's own record of a query beside their grades: kept
// per labeller so that a second labeller judges blind.
type Mark struct {
	// Verified is the day this labeller last labelled or confirmed it.
	Verified time.Time
	// Unanswerable: this labeller found no answer in the corpus.
	Unanswerable bool
	// Unsure: this labeller wants a second opinion (adjudication lists it).
	Unsure bool
	// Seconds is how long each judgement took (document → seconds), as the
	// page measured it from showing the document to the grade.
	Seconds map[string]float64
}

// Adjudication is a grade decided between disagreeing labellers.
type Adjudication struct {
	Grade int
	// By names who decided; On is the day.
	By string
	On time.Time
	// Grades are the labellers' grades the decision was made between.
	Grades map[string]int
}

// Dispute is a document whose labellers disagree: by more than one grade,
// or on relevant versus not. A labeller who marked the query unanswerable
// counts as grading 0 every document they did not grade.
type Dispute struct {
	Doc    string
	Grades map[string]int
	// Decided is the adjudication, nil while open.
	Decided *Adjudication
}

// GoldRule says in one line how gold is derived from the judgements: the
// README and the page say it the same way.
const GoldRule = "gold is the adjudicated grade where there is one, else the highest grade any labeller gave; a query is unanswerable when a labeller marked it so and no document is relevant"

// GradesByDoc turns the judgements around: document → labeller → grade,
// a fresh map the caller may change.
func (q *Query) GradesByDoc() map[string]map[string]int {
	docs := map[string]map[string]int{}
	for who, grades := range q.Judgments {
		for d, g := range grades {
			if docs[d] == nil {
				docs[d] = map[string]int{}
			}
			docs[d][who] = g
		}
	}
	return docs
}

// Derive recomputes the query's gold grades, unanswerable flag and date
// from its judgements record (GoldRule). Gold nobody judged or decided
// (labelled before judgements were kept) stays as it is; so does the
// unanswerable flag of a query no labeller has a mark on. former are
// documents judged before a change: one that nobody judges any more
// leaves gold.
func (q *Query) Derive(former ...string) {
	docs := q.GradesByDoc()
	for d := range q.Adjudicated {
		docs[d] = nil
	}
	for d := range docs {
		q.deriveDoc(d)
	}
	for _, d := range former {
		if _, judged := docs[d]; !judged {
			delete(q.Gold, d)
		}
	}
	if len(q.Marks) > 0 {
		q.prepare()
		marked := false
		for _, m := range q.Marks {
			marked = marked || m.Unanswerable
		}
		q.Unanswerable = marked && q.relevant == 0
	}
	for _, m := range q.Marks {
		if m.Verified.After(q.Verified) {
			q.Verified = m.Verified
		}
	}
	for _, a := range q.Adjudicated {
		if a.On.After(q.Verified) {
			q.Verified = a.On
		}
	}
	q.prepare()
}

// deriveDoc sets the gold grade of one document by GoldRule.
func (q *Query) deriveDoc(doc string) {
	if a, ok := q.Adjudicated[doc]; ok {
		if a.Grade > 0 {
			q.Gold[doc] = a.Grade
		} else {
			delete(q.Gold, doc)
		}
		return
	}
	best, judged := 0, false
	for _, grades := range q.Judgments {
		if g, ok := grades[doc]; ok {
			judged = true
			best = max(best, g)
		}
	}
	switch {
	case best > 0:
		q.Gold[doc] = best
	case judged:
		delete(q.Gold, doc)
	}
}

// Disputes lists the query's disputed documents in document order, the
// decided ones too (with Decided set).
func (q *Query) Disputes() []Dispute {
	docs := q.GradesByDoc()
	for who, m := range q.Marks {
		if !m.Unanswerable {
			continue
		}
		for _, grades := range docs {
			if _, ok := grades[who]; !ok {
				grades[who] = 0
			}
		}
	}
	var out []Dispute
	for d, grades := range docs {
		if len(grades) < 2 || !disagree(grades) {
			continue
		}
		dp := Dispute{Doc: d, Grades: grades}
		if a, ok := q.Adjudicated[d]; ok {
			dp.Decided = &a
		}
		out = append(out, dp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Doc < out[j].Doc })
	return out
}

// disagree: the grades differ by more than one, or one is 0 and another
// relevant.
func disagree(grades map[string]int) bool {
	lo, hi := MaxGrade+1, -1
	for _, g := range grades {
		lo, hi = min(lo, g), max(hi, g)
	}
	return hi-lo > 1 || (lo == 0 && hi > 0)
}

// Unsure lists the labellers who asked for a second opinion on the query.
func (q *Query) Unsure() []string {
	var out []string
	for who, m := range q.Marks {
		if m.Unsure {
			out = append(out, who)
		}
	}
	sort.Strings(out)
	return out
}

// JudgePrefix starts the labeller name a judge program's grades are kept
// under in a set file ("judge:llm"); no person's name starts with it.
const JudgePrefix = "judge:"

// JudgeGrades are one judge program's grades of a query.
type JudgeGrades struct {
	// Fingerprint identifies the judge that gave them: its table, the
	// files its command names and its guideline (gate/judge). Grades of
	// another fingerprint than the configured judge's are kept, not used.
	Fingerprint string
	// Grades are document → grade 0–MaxGrade.
	Grades map[string]int
	// Reasons are the judge's own words per document (optional): text of
	// the judge's, shown escaped wherever it is shown.
	Reasons map[string]string
}

// judge returns the query's record of the judge name, made when absent.
func (q *Query) judge(name string) *JudgeGrades {
	if q.Judges == nil {
		q.Judges = map[string]*JudgeGrades{}
	}
	if q.Judges[name] == nil {
		q.Judges[name] = &JudgeGrades{}
	}
	return q.Judges[name]
}

// JudgeReport is what a comparison says of a judge program's grades: its
// agreement with people on the documents both graded, and whether the
// policy let its grades count.
type JudgeReport struct {
	// Name and Fingerprint identify the judge the config names.
	Name, Fingerprint string
	// Overlap counts the documents both people and the judge graded;
	// Kappa is Cohen's kappa on relevant or not over them, Weighted the
	// quadratic-weighted kappa on 0–MaxGrade (see GradeAgreement), both 0
	// without overlap.
	Overlap         int
	Kappa, Weighted float64
	// JudgeRelevant counts the judge relevant where people said not;
	// PeopleRelevant the reverse.
	JudgeRelevant, PeopleRelevant int
	// Graded counts the judge's grades under this fingerprint.
	Graded int
	// OtherFingerprint counts grades of judges under another name or
	// fingerprint: kept in the set, never used.
	OtherFingerprint int
	// Used says the policy let the grades count where no person graded;
	// Why says why not when they do not.
	Used bool
	Why  string
	// DocumentsUsed counts the documents in the verdict (either side's
	// top k) whose grade is the judge's alone.
	DocumentsUsed int
	// GradesUsed counts the judge's grades taken as gold (where no person
	// graded), in the verdict or not: they change recall@N's
	// denominators too. VerdictWithout is the verdict the comparison
	// gives without them ("" when they did not count).
	GradesUsed     int
	VerdictWithout Verdict
	// Disagreements are the documents the judge and people read apart
	// (relevant against not), query then document order.
	Disagreements []JudgeDisagreement
}

// JudgeDisagreement is one document the judge and people read apart.
type JudgeDisagreement struct {
	Query, Doc    string
	People, Judge int
	// Reason is the judge's own text: escape it wherever it is shown.
	Reason string
}

// String is the disagreement as one line of text ("q1/doc: people 0,
// judge 2, its reason: \"…\""), the reason quoted: the one way reports
// and the health lines write it.
func (d JudgeDisagreement) String() string {
	s := fmt.Sprintf("%s/%s: people %d, judge %d", d.Query, d.Doc, d.People, d.Judge)
	if d.Reason != "" {
		s += ", its reason: " + strconv.QuoteToGraphic(d.Reason)
	}
	return s
}
