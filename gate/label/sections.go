package label

import (
	"net/http"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// sections lists a document's sections for the query id as cards to
// grade, each "doc#anchor" with its heading and the passage of its text
// that best matches the query; a grade on one is a section label, written
// as any grade is. The answer has the search's shape ({"query",
// "results"}), the query being the document asked for.
func (s *Server) sections(w http.ResponseWriter, r *http.Request) {
	if s.o.Sections == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no corpus to read sections from: set corpus in recallgate.toml (or a builtin retriever)"})
		return
	}
	doc := r.URL.Query().Get("doc")
	if doc == "" || strings.Contains(doc, "#") {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "name a document (doc=…), not a section"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.set.Query(r.URL.Query().Get("id"))
	if q == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such query"})
		return
	}
	out := []searchResult{}
	for _, c := range s.o.Sections(doc) {
		cv := candidateView{Doc: c.Doc, Title: c.Title, Passage: bestPassage(q.Text, c.Texts), Grade: gradeOf(q, s.o.Labeller, c.Doc)}
		out = append(out, searchResult{candidateView: cv, InPool: s.inPool(q.ID, c.Doc)})
	}
	if len(out) == 0 {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "the corpus gives " + gate.ClipID(doc) + " no sections (no headings, or not in the corpus)"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"query": doc, "results": out})
}
