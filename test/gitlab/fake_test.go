package gitlab_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/recallgate/recallgate/internal/committree"
)

// projectID is the project the pipelines run in (CI_PROJECT_ID), and
// projectPath its path (CI_PROJECT_PATH): the fake answers to both.
const (
	projectID   = "42"
	projectPath = "acme/rag"
)

// user is a GitLab account as the API shows it in `author` and GET /user.
type user struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	State    string `json:"state"`
	Bot      bool   `json:"bot"`
	WebURL   string `json:"web_url"`
}

// The token's own user (a project access token's bot user, as GitLab
// names them) and a person on the project.
var (
	botUser = user{ID: 9001, Username: "project_42_bot_3f1c0a", Name: "recallgate", State: "active", Bot: true, WebURL: "http://gitlab.example.test/project_42_bot_3f1c0a"}
	person  = user{ID: 5, Username: "alice", Name: "Alice", State: "active", WebURL: "http://gitlab.example.test/alice"}
)

// note is a merge request or issue note in GitLab's documented shape.
type note struct {
	ID           int64  `json:"id"`
	Type         any    `json:"type"`
	Body         string `json:"body"`
	Author       user   `json:"author"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
	System       bool   `json:"system"`
	NoteableID   int64  `json:"noteable_id"`
	NoteableType string `json:"noteable_type"`
	NoteableIID  int64  `json:"noteable_iid"`
	ProjectID    int64  `json:"project_id"`
	Resolvable   bool   `json:"resolvable"`
	Confidential bool   `json:"confidential"`
	Internal     bool   `json:"internal"`
}

// issue is a project issue in GitLab's documented shape.
type issue struct {
	ID          int64    `json:"id"`
	IID         int64    `json:"iid"`
	ProjectID   int64    `json:"project_id"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	State       string   `json:"state"`
	Labels      []string `json:"labels"`
	Author      user     `json:"author"`
	WebURL      string   `json:"web_url"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
}

// call is one request the job made.
type call struct {
	Method, Path, Query, Body string
	Token                     string // PRIVATE-TOKEN or the bearer token
}

func (c call) String() string { return c.Method + " " + c.Path }

// fakeGitLab is GitLab's REST API v4 for project acme/rag (id 42) as far as
// the job uses it, in GitLab's documented shapes: GET /user, merge request
// and issue notes with `author`, issues with `labels`, offset pagination
// with X-Next-Page and Link headers, the repository archive, tree and
// blobs (of the archives it holds). It keeps the
// notes and issues the job writes, lets a note be edited only by its
// author, answers 401 to any other token, and records every request.
type fakeGitLab struct {
	t     *testing.T
	token string

	mu       sync.Mutex
	calls    []call
	notes    map[int64][]*note // merge request iid → notes, oldest first
	issues   []*issue
	issueNts map[int64][]*note // issue iid → notes
	archives map[string][]byte // commit → tar.gz
	nextID   int64
}

func newFakeGitLab(t *testing.T, token string) *fakeGitLab {
	return &fakeGitLab{t: t, token: token, notes: map[int64][]*note{}, issueNts: map[int64][]*note{}, archives: map[string][]byte{}, nextID: 1000}
}

// stamp is the fixed time the fake writes on everything it makes.
const stamp = "2026-12-04T02:00:00.000Z"

// addNote puts a note on merge request mr as author, as if made before the
// pipelines ran.
func (f *fakeGitLab) addNote(mr int64, author user, body string) *note {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.newNote(&f.notes, mr, author, body, "MergeRequest")
}

func (f *fakeGitLab) newNote(into *map[int64][]*note, iid int64, author user, body, kind string) *note {
	f.nextID++
	n := &note{ID: f.nextID, Body: body, Author: author, CreatedAt: stamp, UpdatedAt: stamp, NoteableID: 500 + iid, NoteableType: kind, NoteableIID: iid, ProjectID: 42}
	(*into)[iid] = append((*into)[iid], n)
	return n
}

// recorded returns the calls so far as "METHOD path" (path under /api/v4).
func (f *fakeGitLab) recorded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// reset forgets the calls recorded so far (not the notes and issues).
func (f *fakeGitLab) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

// mrNotes is a copy of merge request mr's notes.
func (f *fakeGitLab) mrNotes(mr int64) []note {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []note
	for _, n := range f.notes[mr] {
		out = append(out, *n)
	}
	return out
}

var route = regexp.MustCompile(`^/api/v4/projects/([^/]+)/(.*)$`)

func (f *fakeGitLab) start() *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	f.t.Cleanup(srv.Close)
	return srv
}

func (f *fakeGitLab) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	tok := r.Header.Get("PRIVATE-TOKEN")
	if tok == "" {
		tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	path := r.URL.EscapedPath()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{Method: r.Method, Path: strings.TrimPrefix(path, "/api/v4"), Query: r.URL.RawQuery, Body: string(body), Token: tok})
	if tok != f.token {
		reply(w, http.StatusUnauthorized, map[string]string{"message": "401 Unauthorized"})
		return
	}
	if r.Method == "GET" && path == "/api/v4/user" {
		reply(w, 200, botUser)
		return
	}
	m := route.FindStringSubmatch(path)
	if m == nil {
		reply(w, 404, map[string]string{"error": "404 Not Found"})
		return
	}
	if p, _ := url.PathUnescape(m[1]); p != projectID && p != projectPath {
		reply(w, 404, map[string]string{"message": "404 Project Not Found"})
		return
	}
	var in map[string]any
	if len(body) > 0 {
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			if err := json.Unmarshal(body, &in); err != nil {
				reply(w, 400, map[string]string{"error": "body is not JSON"})
				return
			}
		} else if v, err := url.ParseQuery(string(body)); err == nil {
			in = map[string]any{}
			for k := range v {
				in[k] = v.Get(k)
			}
		}
	}
	parts := strings.Split(m[2], "/")
	num := func(i int) int64 {
		if i >= len(parts) {
			return -1
		}
		n, err := strconv.ParseInt(parts[i], 10, 64)
		if err != nil {
			return -1
		}
		return n
	}
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch {
	case parts[0] == "merge_requests" && len(parts) == 3 && parts[2] == "notes" && r.Method == "GET":
		f.paginate(w, r, f.notes[num(1)])
	case parts[0] == "merge_requests" && len(parts) == 3 && parts[2] == "notes" && r.Method == "POST":
		if str("body") == "" {
			reply(w, 400, map[string]string{"message": "400 Bad request - body is missing"})
			return
		}
		reply(w, 201, f.newNote(&f.notes, num(1), botUser, str("body"), "MergeRequest"))
	case parts[0] == "merge_requests" && len(parts) == 4 && parts[2] == "notes" && r.Method == "PUT":
		for _, n := range f.notes[num(1)] {
			if n.ID != num(3) {
				continue
			}
			if n.Author.ID != botUser.ID {
				reply(w, 403, map[string]string{"message": "403 Forbidden"})
				return
			}
			n.Body, n.UpdatedAt = str("body"), stamp
			reply(w, 200, n)
			return
		}
		reply(w, 404, map[string]string{"message": "404 Not found"})
	case parts[0] == "issues" && len(parts) == 1 && r.Method == "GET":
		q := r.URL.Query()
		var out []*issue
		for _, is := range f.issues {
			if st := q.Get("state"); st != "" && st != "all" && st != is.State {
				continue
			}
			if l := q.Get("labels"); l != "" && !hasAll(is.Labels, strings.Split(l, ",")) {
				continue
			}
			out = append(out, is)
		}
		f.paginate(w, r, out)
	case parts[0] == "issues" && len(parts) == 1 && r.Method == "POST":
		var labels []string
		switch l := in["labels"].(type) {
		case string:
			labels = strings.Split(l, ",")
		case []any:
			for _, x := range l {
				labels = append(labels, fmt.Sprint(x))
			}
		}
		f.nextID++
		iid := int64(len(f.issues) + 1)
		is := &issue{ID: f.nextID, IID: iid, ProjectID: 42, Title: str("title"), Description: str("description"), State: "opened", Labels: labels, Author: botUser, WebURL: fmt.Sprintf("http://gitlab.example.test/acme/rag/-/issues/%d", iid), CreatedAt: stamp, UpdatedAt: stamp}
		f.issues = append(f.issues, is)
		reply(w, 201, is)
	case parts[0] == "issues" && len(parts) == 2 && r.Method == "PUT":
		for _, is := range f.issues {
			if is.IID == num(1) {
				if v, ok := in["title"].(string); ok && v != "" {
					is.Title = v
				}
				if v, ok := in["description"].(string); ok {
					is.Description = v
				}
				reply(w, 200, is)
				return
			}
		}
		reply(w, 404, map[string]string{"message": "404 Not found"})
	case parts[0] == "issues" && len(parts) == 3 && parts[2] == "notes" && r.Method == "POST":
		reply(w, 201, f.newNote(&f.issueNts, num(1), botUser, str("body"), "Issue"))
	case m[2] == "repository/tree" && r.Method == "GET":
		b, ok := f.archives[r.URL.Query().Get("ref")]
		if !ok {
			reply(w, 404, map[string]string{"message": "404 Tree Not Found"})
			return
		}
		committree.FromTarGz(b).ServeGitLab(w, r)
	case len(parts) == 4 && parts[0] == "repository" && parts[1] == "blobs" && parts[3] == "raw" && r.Method == "GET":
		for _, b := range f.archives {
			if ft := committree.FromTarGz(b); ft.Blobs[parts[2]] != nil {
				ft.ServeGitLab(w, r)
				return
			}
		}
		reply(w, 404, map[string]string{"message": "404 Blob Not Found"})
	case m[2] == "repository/archive.tar.gz" && r.Method == "GET":
		b, ok := f.archives[r.URL.Query().Get("sha")]
		if !ok {
			reply(w, 404, map[string]string{"message": "404 File Not Found"})
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="rag-`+r.URL.Query().Get("sha")+`.tar.gz"`)
		w.Write(b)
	default:
		reply(w, 404, map[string]string{"error": "404 Not Found"})
	}
}

// paginate writes one page of items with GitLab's offset pagination
// headers (per_page at most 100, 20 by default).
func (f *fakeGitLab) paginate(w http.ResponseWriter, r *http.Request, items any) {
	var all []json.RawMessage
	b, _ := json.Marshal(items)
	json.Unmarshal(b, &all)
	q := r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 20
	}
	per = min(per, 100)
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	pages := max((len(all)+per-1)/per, 1)
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	link := func(p int) string {
		q.Set("page", strconv.Itoa(p))
		return fmt.Sprintf(`<http://%s%s?%s>`, r.Host, r.URL.Path, q.Encode())
	}
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(len(all)))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	links := []string{}
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		links = append(links, link(page+1)+`; rel="next"`)
	}
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(page-1))
		links = append(links, link(page-1)+`; rel="prev"`)
	}
	links = append(links, link(1)+`; rel="first"`, link(pages)+`; rel="last"`)
	h.Set("Link", strings.Join(links, ", "))
	page1 := all[lo:hi]
	if page1 == nil {
		page1 = []json.RawMessage{}
	}
	reply(w, 200, page1)
}

func hasAll(have, want []string) bool {
	for _, l := range want {
		found := false
		for _, h := range have {
			found = found || h == l
		}
		if !found {
			return false
		}
	}
	return true
}

func reply(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
