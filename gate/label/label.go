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
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/setfile"
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
	// Adjudicate shows only the disputed documents (gate.Query.Disputes)
	// and the queries a labeller was unsure of, with every labeller's
	// grade; a grade here is a decision, recorded under Labeller.
	Adjudicate bool
	// Reverify shows the current gold grade beside each document and
	// takes the confirm key, which re-dates without changing a grade.
	Reverify bool
	// Propose, in re-verification, names for a section label the corpus
	// no longer holds ("doc#anchor" of a renamed or removed heading) the
	// section of its document most like it, shown beside it to grade
	// (ok false: no proposal, as for a document label or a document
	// gone).
	Propose func(key string) (proposal string, ok bool)
	// Sections returns a document's sections as candidates to grade, in
	// document order: "doc#anchor" as Doc, the heading as Title, the
	// section's text (nil or none: the page offers no sections).
	Sections func(doc string) []Candidate
	// Search finds documents in the corpus for a query the labeller types
	// (the builtin BM25 over the config's corpus), best first, at most k;
	// nil: the page has no search. Its error (the index cannot be built)
	// is shown on the page.
	Search func(text string, k int) ([]Candidate, error)
	// GradeNames name the grades, 0 first (the config's [label] grades);
	// Guideline is the team's one-line rule shown above the documents.
	GradeNames []string
	Guideline  string
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
	// undos are this run's changes, newest last, for the undo key.
	undos []undo
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
	if _, err := gate.CheckInputFile(s.o.SetPath); err != nil {
		return &gate.InputError{File: s.o.SetPath, Err: err}
	}
	data, err := os.ReadFile(s.o.SetPath)
	if err != nil {
		return &gate.InputError{File: s.o.SetPath, Err: err}
	}
	set, err := setfile.ParseDraft(bytes.NewReader(data), s.o.SetPath)
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
				return &gate.InputError{File: s.o.SetPath, Err: fmt.Errorf("no query %q", gate.ClipID(id))}
			}
			s.ids = append(s.ids, id)
		}
	} else {
		for _, q := range set.Queries {
			if !s.o.Adjudicate || len(q.Disputes()) > 0 || len(q.Unsure()) > 0 || len(judgeOpinions(q)) > 0 {
				s.ids = append(s.ids, q.ID)
			}
		}
	}
	return nil
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Shown is how many queries the page shows (for adjudication: those with
// a dispute or an unsure mark, as the file was read).
func (s *Server) Shown() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
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
	mux.HandleFunc("POST /api/undo", s.undo)
	mux.HandleFunc("GET /api/search", s.search)
	mux.HandleFunc("GET /api/sections", s.sections)
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

func (s *Server) doc(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if s.o.Doc == nil {
		http.Error(w, "the corpus is not known: set corpus in recallgate.toml", http.StatusNotFound)
		return
	}
	title, text, ok := s.o.Doc(id)
	if !ok {
		http.Error(w, fmt.Sprintf("document %q is not in the corpus", gate.ClipID(id)), http.StatusNotFound)
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
