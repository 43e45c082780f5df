package label

import (
	"net/http"
	"os"
	"sort"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/fingerprint"
)

// Span is a piece of a passage, marked when it is a query term.
type Span struct {
	Text string `json:"t"`
	Mark bool   `json:"m,omitempty"`
}

// otherGrade is one labeller's grade, shown only when adjudicating.
type otherGrade struct {
	Labeller string `json:"labeller"`
	Grade    int    `json:"grade"`
}

// judgeOpinion is a judge program's grade and reason, as the
// adjudication page shows it (labelled as the judge's, drawn as text).
type judgeOpinion struct {
	Judge       string `json:"judge"`
	Fingerprint string `json:"fingerprint"`
	Grade       int    `json:"grade"`
	Reason      string `json:"reason,omitempty"`
}

type candidateView struct {
	Doc     string `json:"doc"`
	Title   string `json:"title"`
	Passage []Span `json:"passage"`
	Grade   *int   `json:"grade"`
	// Gold is the set's current grade (re-verification only).
	Gold *int `json:"gold,omitempty"`
	// Others are the labellers' grades (adjudication only).
	Others []otherGrade `json:"others,omitempty"`
	// Judges are judge programs' grades where they read the document
	// apart from people (adjudication only): a third opinion, never a
	// labeller's.
	Judges []judgeOpinion `json:"judges,omitempty"`
	// Searched: this labeller found it by searching the corpus.
	Searched bool `json:"searched,omitempty"`
}

type queryView struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	// Note is this labeller's own note; SetNote the set's (where the
	// query came from), shown apart and never edited from the page.
	Note         string `json:"note"`
	SetNote      string `json:"set_note"`
	Unanswerable bool   `json:"unanswerable"`
	Unsure       bool   `json:"unsure"`
	Labelled     bool   `json:"labelled"`
	Verified     string `json:"verified"`
	// Graded is how many of the candidates this labeller has graded.
	Graded     int             `json:"graded"`
	Candidates []candidateView `json:"candidates"`
	// MissingGold are relevant documents (this labeller's) not in the
	// corpus: a data-quality bug.
	MissingGold []string `json:"missing_gold"`
	// Proposed maps a missing section label to the section of its
	// document re-verification proposes in its place (Options.Propose).
	Proposed map[string]string `json:"proposed,omitempty"`
	// UnsureBy names who asked for a second opinion (adjudication only).
	UnsureBy []string `json:"unsure_by,omitempty"`
}

type stateView struct {
	Set        string   `json:"set"`
	Labeller   string   `json:"labeller"`
	Binary     bool     `json:"binary"`
	Mode       string   `json:"mode"`
	GradeNames []string `json:"grade_names"`
	Guideline  string   `json:"guideline"`
	Rule       string   `json:"rule"`
	Search     bool     `json:"search"`
	// Sections: the page can list a document's sections to grade.
	Sections bool        `json:"sections"`
	Undo     int         `json:"undo"`
	Done     int         `json:"done"`
	Queries  []queryView `json:"queries"`
	// Reloaded says the file had changed on disk and was read again;
	// Changed names the queries whose lines differ (added, edited or gone).
	Reloaded bool     `json:"reloaded,omitempty"`
	Changed  []string `json:"changed,omitempty"`
}

// state is the page's view; a set file changed on disk since it was read
// (another labeller, an edit) is read again first, so reloading the page
// continues from the file as it is, never overwriting what it holds.
func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reloaded := false
	var changed []string
	if data, err := os.ReadFile(s.o.SetPath); err == nil && hash(data) != s.sum {
		old := s.set
		if err := s.reload(); err != nil {
			writeJSON(w, http.StatusConflict, map[string]string{"error": "the set file changed on disk and cannot be read: " + err.Error()})
			return
		}
		reloaded, changed = true, changedQueries(old, s.set)
	}
	v := s.view()
	v.Reloaded, v.Changed = reloaded, changed
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) mode() string {
	switch {
	case s.o.Adjudicate:
		return "adjudicate"
	case s.o.Reverify:
		return "reverify"
	}
	return "label"
}

func (s *Server) view() stateView {
	names := s.o.GradeNames
	if names == nil {
		names = []string{}
	}
	v := stateView{Set: s.o.SetPath, Labeller: s.o.Labeller, Binary: s.o.Binary, Mode: s.mode(), GradeNames: names,
		Guideline: s.o.Guideline, Rule: gate.GoldRule, Search: s.o.Search != nil, Sections: s.o.Sections != nil, Undo: len(s.undos), Queries: []queryView{}}
	for _, id := range s.ids {
		q := s.set.Query(id)
		var qv queryView
		if s.o.Adjudicate {
			qv = s.adjudicationView(q)
		} else {
			qv = s.labellerView(q)
		}
		for _, c := range qv.Candidates {
			if c.Grade != nil {
				qv.Graded++
			}
		}
		if qv.Labelled {
			v.Done++
		}
		v.Queries = append(v.Queries, qv)
	}
	return v
}

// legacy: nobody's judgements are recorded on the query (a set labelled
// before they were kept, or by hand): its gold, flag and date are shown
// as the labeller's own.
func legacy(q *gate.Query) bool { return len(q.Judgments) == 0 && len(q.Marks) == 0 }

// labellerView is the query as this labeller sees it: their own grades,
// marks, note and date, nothing of another labeller's (blind).
func (s *Server) labellerView(q *gate.Query) queryView {
	me := s.o.Labeller
	mark := q.Marks[me]
	if mark == nil {
		mark = &gate.Mark{}
	}
	qv := queryView{ID: q.ID, Query: q.Text, Note: q.Notes[me], SetNote: q.Note, Unanswerable: mark.Unanswerable, Unsure: mark.Unsure,
		MissingGold: []string{}, Candidates: []candidateView{}}
	verified := mark.Verified
	if legacy(q) {
		qv.Unanswerable, verified = q.Unanswerable, q.Verified
	}
	if !verified.IsZero() {
		qv.Verified = verified.Format("2006-01-02")
	}
	qv.Labelled = s.labelled(q)
	searched := map[string]bool{}
	for _, d := range q.FoundBySearch {
		searched[d] = true
	}
	shown := map[string]bool{}
	add := func(cv candidateView) {
		shown[cv.Doc] = true
		cv.Grade = gradeOf(q, me, cv.Doc)
		cv.Searched = searched[cv.Doc] && cv.Grade != nil
		if s.o.Reverify {
			if g, ok := q.Gold[cv.Doc]; ok {
				cv.Gold = &g
			}
		}
		qv.Candidates = append(qv.Candidates, cv)
	}
	for _, c := range order(q.ID, s.o.Pool[q.ID]) {
		add(candidateView{Doc: c.Doc, Title: c.Title, Passage: s.passage(q, c.Doc, func() []string { return c.Texts })})
	}
	if s.o.PoolOnly {
		return qv
	}
	// Documents this labeller judged that no retriever found now (found
	// by search, or the pool changed), after the pool; for a legacy set
	// its gold, and in re-verification the gold being confirmed.
	var extra []string
	for d := range q.Judgments[me] {
		extra = append(extra, d)
	}
	if legacy(q) || s.o.Reverify {
		for d := range q.Gold {
			extra = append(extra, d)
		}
	}
	sort.Strings(extra)
	for _, d := range extra {
		if !shown[d] {
			add(s.docView(q, d))
		}
	}
	if s.o.Corpus != nil {
		mine := q.Judgments[me]
		if legacy(q) || s.o.Reverify {
			mine = q.Gold
		}
		for _, d := range sortedKeys(mine) {
			if mine[d] > 0 && !s.o.Corpus(d) {
				qv.MissingGold = append(qv.MissingGold, d)
				s.propose(&qv, q, d, shown, add)
			}
		}
	}
	return qv
}

// propose, in re-verification, shows beside a section label the corpus
// lost the section of its document most like it, to grade in its place.
func (s *Server) propose(qv *queryView, q *gate.Query, d string, shown map[string]bool, add func(candidateView)) {
	if !s.o.Reverify || s.o.Propose == nil {
		return
	}
	p, ok := s.o.Propose(d)
	if !ok {
		return
	}
	if qv.Proposed == nil {
		qv.Proposed = map[string]string{}
	}
	qv.Proposed[d] = p
	if !shown[p] {
		add(s.docView(q, p))
	}
}

// docView is a candidate made from the corpus (no retriever returned it).
func (s *Server) docView(q *gate.Query, d string) candidateView {
	cv := candidateView{Doc: d, Passage: []Span{}}
	if s.o.Doc != nil {
		if title, text, ok := s.o.Doc(d); ok {
			cv.Title, cv.Passage = title, s.passage(q, d, func() []string { return []string{text} })
		}
	}
	return cv
}

// adjudicationView shows a query's disputed documents with every
// labeller's grade, and, for a query someone was unsure of, every
// document anyone judged; Grade is the decision made.
func (s *Server) adjudicationView(q *gate.Query) queryView {
	qv := queryView{ID: q.ID, Query: q.Text, SetNote: q.Note, Unanswerable: q.Unanswerable, UnsureBy: q.Unsure(),
		MissingGold: []string{}, Candidates: []candidateView{}}
	docs := map[string]map[string]int{}
	if len(qv.UnsureBy) > 0 {
		docs = q.GradesByDoc()
	}
	for _, d := range q.Disputes() {
		docs[d.Doc] = d.Grades
	}
	opinions := judgeOpinions(q)
	for d := range opinions {
		if docs[d] == nil {
			docs[d] = q.GradesByDoc()[d]
		}
	}
	var ids []string
	for d := range docs {
		ids = append(ids, d)
	}
	sort.Strings(ids)
	qv.Labelled = len(ids) > 0
	for _, d := range ids {
		cv := s.docView(q, d)
		for _, who := range sortedKeys(docs[d]) {
			cv.Others = append(cv.Others, otherGrade{who, docs[d][who]})
		}
		cv.Judges = opinions[d]
		if a, ok := q.Adjudicated[d]; ok {
			g := a.Grade
			cv.Grade = &g
		} else {
			qv.Labelled = false
		}
		qv.Candidates = append(qv.Candidates, cv)
	}
	return qv
}

// judgeOpinions are, per document people judged, the judges' grades that
// read it apart from people's derived grade (relevant against not), in
// judge order: the documents a person should look at again. A document
// decided since keeps its judges' grades beside the decision.
func judgeOpinions(q *gate.Query) map[string][]judgeOpinion {
	out := map[string][]judgeOpinion{}
	for _, name := range sortedKeys(q.Judges) {
		rec := q.Judges[name]
		for _, d := range sortedKeys(rec.Grades) {
			g := rec.Grades[d]
			_, decided := q.Adjudicated[d]
			if !q.Judged(d) || (g > 0) == (q.Gold[d] > 0) && !decided {
				continue
			}
			out[d] = append(out[d], judgeOpinion{Judge: gate.JudgePrefix + name, Fingerprint: fingerprint.Short(rec.Fingerprint), Grade: g, Reason: gate.Visible(rec.Reasons[d])})
		}
	}
	return out
}

// labelled: this labeller has graded the query's pool or marked it.
func (s *Server) labelled(q *gate.Query) bool {
	me := s.o.Labeller
	if s.o.PoolOnly {
		for _, c := range s.o.Pool[q.ID] {
			if _, ok := q.Judgments[me][c.Doc]; !ok {
				return false
			}
		}
		return true
	}
	if s.o.Reverify {
		// Re-verified: confirmed or changed today by this labeller.
		m := q.Marks[me]
		return m != nil && m.Verified.Equal(s.today())
	}
	if legacy(q) {
		return q.Labelled()
	}
	if m := q.Marks[me]; m != nil && m.Unanswerable {
		return true
	}
	for _, g := range q.Judgments[me] {
		if g > 0 {
			return true
		}
	}
	return false
}

// gradeOf is the grade the page shows: this labeller's own; for a legacy
// set, its gold grade. Another labeller's grades are never shown, so a
// second labeller judges blind.
func gradeOf(q *gate.Query, labeller, doc string) *int {
	if g, ok := q.Judgments[labeller][doc]; ok {
		return &g
	}
	if legacy(q) {
		if g, ok := q.Gold[doc]; ok {
			return &g
		}
	}
	return nil
}

// changedQueries lists, in the new set's order then the gone ones, the
// queries whose lines differ between two reads of the file.
func changedQueries(old, now *gate.Set) []string {
	line := func(q *gate.Query) string {
		b, _ := q.MarshalLine()
		return string(b)
	}
	var out []string
	for _, q := range now.Queries {
		if o := old.Query(q.ID); o == nil || line(o) != line(q) {
			out = append(out, q.ID)
		}
	}
	for _, q := range old.Queries {
		if now.Query(q.ID) == nil {
			out = append(out, q.ID)
		}
	}
	return out
}
