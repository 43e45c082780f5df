package label

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/setfile"
)

type gradeRequest struct {
	ID    string `json:"id"`
	Doc   string `json:"doc"`
	Grade *int   `json:"grade"` // nil clears this labeller's grade
	// Seconds is how long the judgement took, as the page measured it.
	Seconds float64 `json:"seconds"`
	// Searched: the document came from a corpus search, not the pool.
	Searched bool `json:"searched"`
}

func (s *Server) grade(w http.ResponseWriter, r *http.Request) {
	var req gradeRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	s.change(w, req.ID, func(q *gate.Query, today time.Time) error {
		top := gate.MaxGrade
		if s.o.Binary {
			top = 1
		}
		if req.Grade != nil && (*req.Grade < 0 || *req.Grade > top) {
			return fmt.Errorf("grade %d is outside 0–%d", *req.Grade, top)
		}
		if req.Doc == "" {
			return errors.New("no document")
		}
		if s.o.Adjudicate {
			return s.decide(q, req, today)
		}
		me := s.o.Labeller
		if q.Judgments == nil {
			q.Judgments = map[string]map[string]int{}
		}
		mine := q.Judgments[me]
		if mine == nil {
			mine = map[string]int{}
			q.Judgments[me] = mine
		}
		mark := s.markOf(q)
		if req.Grade == nil {
			delete(mine, req.Doc)
			delete(mark.Seconds, req.Doc)
			return nil
		}
		if *req.Grade > 0 && mark.Unanswerable {
			return errors.New("you marked the query unanswerable: unmark it (u) before grading a document relevant")
		}
		mine[req.Doc] = *req.Grade
		if sec := req.Seconds; sec > 0 && !math.IsInf(sec, 0) {
			if mark.Seconds == nil {
				mark.Seconds = map[string]float64{}
			}
			mark.Seconds[req.Doc] = math.Round(min(sec, 86400)*10) / 10
		}
		if req.Searched && *req.Grade > 0 && !s.inPool(q.ID, req.Doc) && !slices.Contains(q.FoundBySearch, req.Doc) {
			q.FoundBySearch = append(q.FoundBySearch, req.Doc)
		}
		return nil
	})
}

// decide records the adjudicator's grade for a disputed document.
func (s *Server) decide(q *gate.Query, req gradeRequest, today time.Time) error {
	if req.Grade == nil {
		delete(q.Adjudicated, req.Doc)
		return nil
	}
	grades := q.GradesByDoc()[req.Doc]
	if len(grades) == 0 {
		return fmt.Errorf("nobody judged %s for this query: there is nothing to decide", req.Doc)
	}
	if q.Adjudicated == nil {
		q.Adjudicated = map[string]gate.Adjudication{}
	}
	q.Adjudicated[req.Doc] = gate.Adjudication{Grade: *req.Grade, By: s.o.Labeller, On: today, Grades: grades}
	return nil
}

// markOf is this labeller's mark on q, made when missing.
func (s *Server) markOf(q *gate.Query) *gate.Mark {
	if q.Marks == nil {
		q.Marks = map[string]*gate.Mark{}
	}
	m := q.Marks[s.o.Labeller]
	if m == nil {
		m = &gate.Mark{}
		q.Marks[s.o.Labeller] = m
	}
	return m
}

func (s *Server) inPool(id, doc string) bool {
	for _, c := range s.o.Pool[id] {
		if c.Doc == doc {
			return true
		}
	}
	return false
}

type queryRequest struct {
	ID           string  `json:"id"`
	Unanswerable *bool   `json:"unanswerable"`
	Unsure       *bool   `json:"unsure"`
	Note         *string `json:"note"`
	// Confirm re-dates the labels without changing a grade (reverify).
	Confirm bool `json:"confirm"`
}

func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	var req queryRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	s.change(w, req.ID, func(q *gate.Query, today time.Time) error {
		if s.o.Adjudicate && (req.Unanswerable != nil || req.Unsure != nil || req.Confirm) {
			return errors.New("adjudication decides grades only: a query's marks are its labellers'")
		}
		old := legacy(q)
		mark := s.markOf(q)
		if req.Unanswerable != nil {
			if *req.Unanswerable {
				for d, g := range q.Judgments[s.o.Labeller] {
					if g > 0 {
						return fmt.Errorf("you graded %s relevant: grade it 0 before marking the query unanswerable", d)
					}
				}
				if old && q.Relevant() > 0 {
					return errors.New("the query has relevant documents: grade them 0 before marking it unanswerable")
				}
			}
			mark.Unanswerable = *req.Unanswerable
		}
		if req.Unsure != nil {
			mark.Unsure = *req.Unsure
		}
		if req.Note != nil {
			// The labeller's own note, never glued onto the set's.
			if note := strings.TrimSpace(*req.Note); note != "" {
				if q.Notes == nil {
					q.Notes = map[string]string{}
				}
				q.Notes[s.o.Labeller] = note
			} else {
				delete(q.Notes, s.o.Labeller)
			}
		}
		return nil
	})
}

// undo is what one change replaced: the labeller's own part of a query.
type undo struct {
	id          string
	judgments   map[string]int
	mark        *gate.Mark
	note        *string
	adjudicated map[string]gate.Adjudication
	found       []string
}

// snapshot keeps the parts of q this labeller's changes touch.
func (s *Server) snapshot(q *gate.Query) undo {
	u := undo{id: q.ID, judgments: maps.Clone(q.Judgments[s.o.Labeller]), adjudicated: maps.Clone(q.Adjudicated), found: slices.Clone(q.FoundBySearch)}
	if m := q.Marks[s.o.Labeller]; m != nil {
		u.mark = cloneMark(m)
	}
	if n, ok := q.Notes[s.o.Labeller]; ok {
		u.note = &n
	}
	return u
}

// restore puts a snapshot back; another labeller's part is left alone.
func (s *Server) restore(q *gate.Query, u undo) {
	me := s.o.Labeller
	setOrDelete(&q.Judgments, me, u.judgments)
	if u.mark == nil {
		delete(q.Marks, me)
	} else {
		if q.Marks == nil {
			q.Marks = map[string]*gate.Mark{}
		}
		q.Marks[me] = u.mark
	}
	if u.note == nil {
		delete(q.Notes, me)
	} else {
		if q.Notes == nil {
			q.Notes = map[string]string{}
		}
		q.Notes[me] = *u.note
	}
	if s.o.Adjudicate {
		q.Adjudicated = u.adjudicated
	}
	q.FoundBySearch = u.found
}

func setOrDelete(m *map[string]map[string]int, key string, v map[string]int) {
	if v == nil {
		delete(*m, key)
		return
	}
	if *m == nil {
		*m = map[string]map[string]int{}
	}
	(*m)[key] = v
}

// undo takes back this run's last change (Backspace or z on the page).
func (s *Server) undo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if len(s.undos) == 0 {
		s.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "nothing to undo in this session"})
		return
	}
	id := s.undos[len(s.undos)-1].id
	s.mu.Unlock()
	s.changeWith(w, id, false, func(q *gate.Query, _ time.Time) error {
		// Under the lock again: take what is last now.
		if len(s.undos) == 0 || s.undos[len(s.undos)-1].id != id {
			return errors.New("another change came first: press undo again")
		}
		s.restore(q, s.undos[len(s.undos)-1])
		s.undos = s.undos[:len(s.undos)-1]
		return nil
	})
}

// change applies fn to a query and writes the file, unless the file
// changed on disk since the server last saw it.
func (s *Server) change(w http.ResponseWriter, id string, fn func(*gate.Query, time.Time) error) {
	s.changeWith(w, id, true, fn)
}

func (s *Server) changeWith(w http.ResponseWriter, id string, record bool, fn func(*gate.Query, time.Time) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.set.Query(id)
	if q == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no query %q", gate.ClipID(id))})
		return
	}
	before := *q
	before.Gold, before.Judgments, before.Notes = maps.Clone(q.Gold), cloneJudgments(q.Judgments), maps.Clone(q.Notes)
	before.Marks, before.Adjudicated, before.FoundBySearch = cloneMarks(q.Marks), maps.Clone(q.Adjudicated), slices.Clone(q.FoundBySearch)
	snap := s.snapshot(q)
	undos := len(s.undos)
	today := s.today()
	if legacy(q) && q.Unanswerable && !s.o.Adjudicate {
		// A query marked unanswerable before marks were kept stays so.
		s.markOf(q).Unanswerable = true
	}
	if err := fn(q, today); err != nil {
		*q = before
		q.Prepare()
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if !s.o.Adjudicate {
		s.markOf(q).Verified = today
	}
	var former []string
	for _, grades := range before.Judgments {
		for d := range grades {
			former = append(former, d)
		}
	}
	for d := range before.Adjudicated {
		former = append(former, d)
	}
	q.Derive(former...)
	if err := s.write(q); err != nil {
		*q = before
		q.Prepare()
		s.undos = s.undos[:undos]
		status := http.StatusInternalServerError
		if errors.Is(err, ErrChangedOnDisk) {
			status = http.StatusConflict
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	if record {
		s.undos = append(s.undos, snap)
	}
	writeJSON(w, http.StatusOK, s.view())
}

func cloneJudgments(m map[string]map[string]int) map[string]map[string]int {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]int, len(m))
	for k, v := range m {
		out[k] = maps.Clone(v)
	}
	return out
}

func cloneMarks(m map[string]*gate.Mark) map[string]*gate.Mark {
	if m == nil {
		return nil
	}
	out := make(map[string]*gate.Mark, len(m))
	for k, v := range m {
		out[k] = cloneMark(v)
	}
	return out
}

func cloneMark(m *gate.Mark) *gate.Mark {
	c := *m
	c.Seconds = maps.Clone(m.Seconds)
	return &c
}

// today is the day of the server's clock, as labels date it.
func (s *Server) today() time.Time {
	now := s.o.Now()
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
}

// write replaces the query's line in the file, leaving every other line
// as it was, through a temporary file renamed into place.
func (s *Server) write(q *gate.Query) error {
	data, err := os.ReadFile(s.o.SetPath)
	if err != nil {
		return fmt.Errorf("read %s: %w", s.o.SetPath, err)
	}
	if hash(data) != s.sum {
		return ErrChangedOnDisk
	}
	out, err := setfile.ReplaceQueryLines(data, q)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.o.SetPath, 0o644, func(w io.Writer) error { _, err := w.Write(out); return err }); err != nil {
		return err
	}
	s.sum = hash(out)
	return nil
}

// searchResult is one document a corpus search found.
type searchResult struct {
	candidateView
	// InPool: a retriever's pool already holds it.
	InPool bool `json:"in_pool"`
}

// search finds documents in the corpus for the query id: by the text
// typed (q), or, with expand=N, the N next documents for the query's own
// text beyond what the page shows ("expand pool").
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	if s.o.Search == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no corpus to search: set corpus in recallgate.toml (or a builtin retriever)"})
		return
	}
	s.mu.Lock()
	q := s.set.Query(r.URL.Query().Get("id"))
	if q == nil {
		s.mu.Unlock()
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such query"})
		return
	}
	text, k := strings.TrimSpace(r.URL.Query().Get("q")), 10
	skip := map[string]bool{}
	if n, err := strconv.Atoi(r.URL.Query().Get("expand")); err == nil && n > 0 {
		text, k = q.Text, min(n, 100)
		for _, c := range s.labellerView(q).Candidates {
			skip[c.Doc] = true
		}
	}
	s.mu.Unlock()
	if text == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "type what to search for"})
		return
	}
	// Outside the lock: the first search builds the index, and the page's
	// other calls must not wait for it.
	found, err := s.o.Search(text, k+len(skip))
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "search the corpus: " + err.Error()})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []searchResult{}
	for _, c := range found {
		if skip[c.Doc] || len(out) == k {
			continue
		}
		cv := candidateView{Doc: c.Doc, Title: c.Title, Passage: bestPassage(text, c.Texts), Grade: gradeOf(q, s.o.Labeller, c.Doc)}
		out = append(out, searchResult{candidateView: cv, InPool: s.inPool(q.ID, c.Doc)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"query": text, "results": out})
}
