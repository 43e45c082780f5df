// Package label is the labelling page: a small web server on loopback that
// shows each query of a draft set with its pooled candidate documents (the
// union of every configured retriever's top documents, in an order that
// hides which system found them), takes keyboard grades, and writes the set
// file after every change. It notices when the file changed on disk under
// it and then refuses to write.
package label

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
)

// Candidate is one pooled document of a query, before a passage is picked.
type Candidate struct {
	Doc string
	// Title is the document's title ("" when the corpus is unknown).
	Title string
	// Texts are passages the retrievers returned for it and, last, the
	// document's whole text when the corpus is known.
	Texts []string
}

// Options configure a Server.
type Options struct {
	// SetPath is the draft set to edit (JSONL).
	SetPath string
	// Labeller names who grades; every grade is recorded under it.
	Labeller string
	// Binary grades 0/1 instead of 0–3.
	Binary bool
	// Pool holds each query's candidates, by query id.
	Pool map[string][]Candidate
	// Only restricts the page to these query ids, in this order (nil = all).
	Only []string
	// Token is the run's key, required on every request (as ?t= or the
	// X-Recallgate-Token header); "" makes a random one (see Token).
	Token string
	// PoolOnly shows only the pool's documents (not the ones judged
	// before), and a query counts as labelled once each of them is graded:
	// for judging exactly the pairs a report lists.
	PoolOnly bool
	// Doc returns a document's title and whole text for the document view.
	Doc func(id string) (title, text string, ok bool)
	// Corpus says whether a document id is in the corpus (nil = unknown).
	Corpus func(id string) bool
	// Now is the clock ("verified" dates); nil means time.Now.
	Now func() time.Time
}

// Server serves the labelling page for one set file.
type Server struct {
	o    Options
	mu   sync.Mutex
	set  *gate.Set
	sum  string // hash of the file as last read or written
	ids  []string
	page *template.Template
	// passages caches each (query, document) passage: the texts do not
	// change while the server runs, and the page asks for the state on
	// every key press.
	passages map[[2]string][]Span
}

// passage is the marked passage of a document for a query, computed once.
func (s *Server) passage(q *gate.Query, doc string, texts func() []string) []Span {
	key := [2]string{q.ID, doc}
	if p, ok := s.passages[key]; ok {
		return p
	}
	p := bestPassage(q.Text, texts())
	s.passages[key] = p
	return p
}

// ErrChangedOnDisk means the set file is no longer what the server last
// read or wrote: someone else edited it, and nothing was written.
var ErrChangedOnDisk = errors.New("the set file changed on disk since the page loaded it; nothing was written: reload the page to continue from the file as it is now")

// New loads the set and prepares the page.
func New(o Options) (*Server, error) {
	if strings.TrimSpace(o.Labeller) == "" {
		return nil, errors.New("a labeller name is required (--labeller)")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Token == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("make the page's key: %w", err)
		}
		o.Token = hex.EncodeToString(b[:])
	}
	s := &Server{o: o, page: pageTemplate, passages: map[[2]string][]Span{}}
	if err := s.reload(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) reload() error {
	data, err := os.ReadFile(s.o.SetPath)
	if err != nil {
		return &gate.InputError{File: s.o.SetPath, Err: err}
	}
	set, err := gate.ParseDraft(bytes.NewReader(data), s.o.SetPath)
	if err != nil {
		return err
	}
	if set.Format != "jsonl" {
		return &gate.InputError{File: s.o.SetPath, Err: errors.New("label edits JSONL sets; this one is TREC qrels")}
	}
	s.set, s.sum = set, hash(data)
	s.ids = s.ids[:0]
	if s.o.Only != nil {
		for _, id := range s.o.Only {
			if set.Query(id) == nil {
				return &gate.InputError{File: s.o.SetPath, Err: fmt.Errorf("no query %q", id)}
			}
			s.ids = append(s.ids, id)
		}
	} else {
		for _, q := range set.Queries {
			s.ids = append(s.ids, q.ID)
		}
	}
	return nil
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Token is the key every request must carry: recallgate label prints the
// page's address with it (?t=…), as notebook servers do.
func (s *Server) Token() string { return s.o.Token }

// authorized reports whether the request carries the run's key.
func (s *Server) authorized(r *http.Request) bool {
	got := r.Header.Get("X-Recallgate-Token")
	if got == "" {
		got = r.URL.Query().Get("t")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.o.Token)) == 1
}

// Handler serves the page, its API and the document view. It answers
// only requests addressed to a loopback host (no DNS rebinding) and takes
// changes only as JSON from its own page: a cross-site form or a no-CORS
// fetch from another site cannot send that, so another page open in the
// browser cannot change the labels.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /api/state", s.state)
	mux.HandleFunc("POST /api/grade", s.grade)
	mux.HandleFunc("POST /api/query", s.query)
	mux.HandleFunc("GET /doc", s.doc)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// No other site may frame the page (clickjacking, key replay).
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if host != "127.0.0.1" && host != "localhost" && host != "::1" {
			http.Error(w, "recallgate label answers on 127.0.0.1 only", http.StatusMisdirectedRequest)
			return
		}
		if !s.authorized(r) {
			http.Error(w, "this page needs its key: open the address recallgate label printed (it ends in ?t=…)", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost {
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				writeJSON(w, http.StatusUnsupportedMediaType, map[string]string{"error": "changes are JSON (Content-Type: application/json)"})
				return
			}
			if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
				writeJSON(w, http.StatusForbidden, map[string]string{"error": "changes come from the labelling page only"})
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	s.page.Execute(w, struct{ Set string }{filepath.Base(s.o.SetPath)})
}

// Span is a piece of a passage, marked when it is a query term.
type Span struct {
	Text string `json:"t"`
	Mark bool   `json:"m,omitempty"`
}

type candidateView struct {
	Doc     string `json:"doc"`
	Title   string `json:"title"`
	Passage []Span `json:"passage"`
	Grade   *int   `json:"grade"`
}

type queryView struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	// Note is this labeller's own note; SetNote the set's (where the
	// query came from), shown apart and never edited from the page.
	Note         string          `json:"note"`
	SetNote      string          `json:"set_note"`
	Unanswerable bool            `json:"unanswerable"`
	Labelled     bool            `json:"labelled"`
	Verified     string          `json:"verified"`
	Candidates   []candidateView `json:"candidates"`
	// MissingGold are gold documents not in the corpus: a data-quality bug.
	MissingGold []string `json:"missing_gold"`
}

type stateView struct {
	Set      string      `json:"set"`
	Labeller string      `json:"labeller"`
	Binary   bool        `json:"binary"`
	Done     int         `json:"done"`
	Queries  []queryView `json:"queries"`
	// Reloaded says the file had changed on disk and was read again.
	Reloaded bool `json:"reloaded,omitempty"`
}

// state is the page's view; a set file changed on disk since it was read
// (another labeller, an edit) is read again first, so reloading the page
// continues from the file as it is, never overwriting what it holds.
func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reloaded := false
	if data, err := os.ReadFile(s.o.SetPath); err == nil && hash(data) != s.sum {
		if err := s.reload(); err != nil {
			writeJSON(w, http.StatusConflict, map[string]string{"error": "the set file changed on disk and cannot be read: " + err.Error()})
			return
		}
		reloaded = true
	}
	v := s.view()
	v.Reloaded = reloaded
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) view() stateView {
	v := stateView{Set: s.o.SetPath, Labeller: s.o.Labeller, Binary: s.o.Binary, Queries: []queryView{}}
	for _, id := range s.ids {
		q := s.set.Query(id)
		qv := queryView{ID: q.ID, Query: q.Text, Note: q.Notes[s.o.Labeller], SetNote: q.Note, Unanswerable: q.Unanswerable, Labelled: s.labelled(q), MissingGold: []string{}, Candidates: []candidateView{}}
		if !q.Verified.IsZero() {
			qv.Verified = q.Verified.Format("2006-01-02")
		}
		if qv.Labelled {
			v.Done++
		}
		shown := map[string]bool{}
		for _, c := range order(q.ID, s.o.Pool[q.ID]) {
			shown[c.Doc] = true
			qv.Candidates = append(qv.Candidates, candidateView{Doc: c.Doc, Title: c.Title, Passage: s.passage(q, c.Doc, func() []string { return c.Texts }), Grade: gradeOf(q, s.o.Labeller, c.Doc)})
		}
		// Documents already judged that no retriever found now are shown
		// too, after the pool.
		var extra []string
		if s.o.PoolOnly {
			v.Queries = append(v.Queries, qv)
			continue
		}
		for d := range q.Gold {
			if !shown[d] {
				extra = append(extra, d)
				shown[d] = true
			}
		}
		for d := range q.Judgments[s.o.Labeller] {
			if !shown[d] {
				extra = append(extra, d)
				shown[d] = true
			}
		}
		sort.Strings(extra)
		for _, d := range extra {
			cv := candidateView{Doc: d, Passage: []Span{}, Grade: gradeOf(q, s.o.Labeller, d)}
			if s.o.Doc != nil {
				if title, text, ok := s.o.Doc(d); ok {
					cv.Title, cv.Passage = title, s.passage(q, d, func() []string { return []string{text} })
				}
			}
			qv.Candidates = append(qv.Candidates, cv)
		}
		if s.o.Corpus != nil {
			for _, d := range sortedKeys(q.Gold) {
				if q.Gold[d] > 0 && !s.o.Corpus(d) {
					qv.MissingGold = append(qv.MissingGold, d)
				}
			}
		}
		v.Queries = append(v.Queries, qv)
	}
	return v
}

// labelled: this labeller has graded the query's pool or marked it.
func (s *Server) labelled(q *gate.Query) bool {
	if s.o.PoolOnly {
		for _, c := range s.o.Pool[q.ID] {
			if _, ok := q.Judgments[s.o.Labeller][c.Doc]; !ok {
				return false
			}
		}
		return true
	}
	return q.Labelled() && (q.Unanswerable || len(q.Judgments[s.o.Labeller]) > 0 || q.Judgments == nil)
}

// gradeOf is the grade the page shows: this labeller's own; for a set
// labelled before judgments were kept, its gold grade. Another labeller's
// grades are never shown, so a second labeller judges blind.
func gradeOf(q *gate.Query, labeller, doc string) *int {
	if g, ok := q.Judgments[labeller][doc]; ok {
		return &g
	}
	if len(q.Judgments) == 0 {
		if g, ok := q.Gold[doc]; ok {
			return &g
		}
	}
	return nil
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// order shuffles the pool by a hash of query and document: stable across
// restarts, the same for every labeller, and blind to which retriever
// found a document or at what rank.
func order(qid string, pool []Candidate) []Candidate {
	out := append([]Candidate(nil), pool...)
	key := func(doc string) string { return hash([]byte(qid + "\x00" + doc)) }
	sort.Slice(out, func(i, j int) bool { return key(out[i].Doc) < key(out[j].Doc) })
	return out
}

// bestPassage picks the window of about 40 words, among all the texts,
// that holds the most distinct query terms, and marks them.
func bestPassage(query string, texts []string) []Span {
	terms := map[string]bool{}
	for _, t := range words(query) {
		if len([]rune(t)) > 2 && !functionWords[t] {
			terms[t] = true
		}
	}
	best, bestScore := "", -1
	for _, text := range texts {
		fields := strings.Fields(text)
		for start := 0; start < len(fields) || start == 0; start += 20 {
			end := min(start+40, len(fields))
			window := strings.Join(fields[start:end], " ")
			seen := map[string]bool{}
			for _, w := range words(window) {
				if terms[w] {
					seen[w] = true
				}
			}
			if len(seen) > bestScore {
				best, bestScore = window, len(seen)
			}
			if end == len(fields) {
				break
			}
		}
	}
	return mark(best, terms)
}

// functionWords are English words that say nothing about a query's
// topic; they are neither marked nor counted when a passage is picked.
var functionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about after all also and any are because been before but can cannot could did does doing done each for from get got had has have her here his how into its just more most not now off once only other our out over own same she should some such than that the their them then there these they this those through too under until very was were what when where which while who whom why will with would you your`) {
		functionWords[w] = true
	}
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// mark splits text into spans, marking the words that are query terms.
func mark(text string, terms map[string]bool) []Span {
	var out []Span
	var cur strings.Builder
	flush := func(m bool) {
		if cur.Len() > 0 {
			if n := len(out); n > 0 && out[n-1].Mark == m {
				out[n-1].Text += cur.String()
			} else {
				out = append(out, Span{Text: cur.String(), Mark: m})
			}
			cur.Reset()
		}
	}
	runes := []rune(text)
	for i := 0; i < len(runes); {
		if !unicode.IsLetter(runes[i]) && !unicode.IsDigit(runes[i]) {
			cur.WriteRune(runes[i])
			i++
			continue
		}
		j := i
		for j < len(runes) && (unicode.IsLetter(runes[j]) || unicode.IsDigit(runes[j])) {
			j++
		}
		w := string(runes[i:j])
		if terms[strings.ToLower(w)] {
			flush(false)
			cur.WriteString(w)
			flush(true)
		} else {
			cur.WriteString(w)
		}
		i = j
	}
	flush(false)
	if out == nil {
		out = []Span{}
	}
	return out
}

type gradeRequest struct {
	ID    string `json:"id"`
	Doc   string `json:"doc"`
	Grade *int   `json:"grade"` // nil clears this labeller's grade
}

func (s *Server) grade(w http.ResponseWriter, r *http.Request) {
	var req gradeRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	s.change(w, req.ID, func(q *gate.Query) error {
		max := gate.MaxGrade
		if s.o.Binary {
			max = 1
		}
		if req.Grade != nil && (*req.Grade < 0 || *req.Grade > max) {
			return fmt.Errorf("grade %d is outside 0–%d", *req.Grade, max)
		}
		if req.Doc == "" {
			return errors.New("no document")
		}
		if q.Judgments == nil {
			q.Judgments = map[string]map[string]int{}
		}
		mine := q.Judgments[s.o.Labeller]
		if mine == nil {
			mine = map[string]int{}
			q.Judgments[s.o.Labeller] = mine
		}
		if req.Grade == nil {
			delete(mine, req.Doc)
		} else {
			if *req.Grade > 0 && q.Unanswerable {
				return errors.New("the query is marked unanswerable: unmark it (u) before grading a document relevant")
			}
			mine[req.Doc] = *req.Grade
		}
		deriveGold(q, req.Doc)
		return nil
	})
}

type queryRequest struct {
	ID           string  `json:"id"`
	Unanswerable *bool   `json:"unanswerable"`
	Note         *string `json:"note"`
}

func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	var req queryRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	s.change(w, req.ID, func(q *gate.Query) error {
		if req.Unanswerable != nil {
			if *req.Unanswerable && q.Relevant() > 0 {
				return errors.New("the query has relevant documents: grade them 0 before marking it unanswerable")
			}
			q.Unanswerable = *req.Unanswerable
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

// change applies fn to a query and writes the file, unless the file
// changed on disk since the server last saw it.
func (s *Server) change(w http.ResponseWriter, id string, fn func(*gate.Query) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.set.Query(id)
	if q == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("no query %q", id)})
		return
	}
	before := *q
	before.Gold, before.Judgments, before.Notes = cloneGrades(q.Gold), cloneJudgments(q.Judgments), maps.Clone(q.Notes)
	if err := fn(q); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	now := s.o.Now()
	q.Verified = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	q.Prepare()
	if err := s.write(q); err != nil {
		*q = before
		q.Prepare()
		status := http.StatusInternalServerError
		if errors.Is(err, ErrChangedOnDisk) {
			status = http.StatusConflict
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, s.view())
}

func cloneGrades(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func cloneJudgments(m map[string]map[string]int) map[string]map[string]int {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]int, len(m))
	for k, v := range m {
		out[k] = cloneGrades(v)
	}
	return out
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
	lines := strings.SplitAfter(string(data), "\n")
	if q.Line < 1 || q.Line > len(lines) {
		return fmt.Errorf("query %s: line %d is not in the file", q.ID, q.Line)
	}
	line, err := q.MarshalLine()
	if err != nil {
		return err
	}
	nl := ""
	if strings.HasSuffix(lines[q.Line-1], "\n") {
		nl = "\n"
	}
	lines[q.Line-1] = string(line) + nl
	out := []byte(strings.Join(lines, ""))
	if err := atomicfile.Write(s.o.SetPath, 0o644, func(w io.Writer) error { _, err := w.Write(out); return err }); err != nil {
		return err
	}
	s.sum = hash(out)
	return nil
}

func (s *Server) doc(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if s.o.Doc == nil {
		http.Error(w, "the corpus is not known: set corpus in recallgate.toml", http.StatusNotFound)
		return
	}
	title, text, ok := s.o.Doc(id)
	if !ok {
		http.Error(w, fmt.Sprintf("document %q is not in the corpus", id), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	docTemplate.Execute(w, struct{ ID, Title, Text string }{id, title, text})
}

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

// Serve serves the page on ln until ctx ends (nil then) or the server
// fails. Every grade is on disk as soon as it is made, so stopping waits
// at most half a second for a browser's preconnected socket.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			hs.Close()
		}
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// deriveGold sets the gold grade of doc from every labeller's judgment:
// the highest grade any of them gave (so one labeller's 0 never removes
// another's relevant document); gold loses doc only when no labeller grades
// it relevant any more. Gold no labeller judged (labelled before judgments
// were kept) is left as it is.
func deriveGold(q *gate.Query, doc string) {
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
	case judged || len(q.Judgments) > 0:
		delete(q.Gold, doc)
	}
}
