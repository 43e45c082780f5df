package ghclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/recallgate/recallgate/gate/publish"
)

// fakeGitHub is the issue-comment and issue API of acme/rag for three
// kinds of token, in GitHub's documented shapes: a personal (or
// fine-grained) token, for which GET /user answers 200 with its user; the
// job's GITHUB_TOKEN and a GitHub App's installation token, for which it
// answers 403 "Resource not accessible by integration", and whose
// comments are written by github-actions[bot] and acme-rag-bot[bot]
// (type Bot).
type fakeGitHub struct {
	mu       sync.Mutex
	comments []map[string]any // on PR 7
	issues   []map[string]any // open, labelled retrieval-drift
	userGets int
	edits    []string // "comment <id>" or "issue <n>"
	nextID   int
	revoked  bool // the token was revoked: 401 to everything
}

// tokens map each token to its author: login, id, type; "" login = 403 on /user.
var tokens = map[string][3]any{
	"ghp_personal": {"ops-bot", 7001, "User"},
	"ghs_job":      {"github-actions[bot]", 41898282, "Bot"},
	"ghs_app":      {"acme-rag-bot[bot]", 9001, "Bot"},
}

func (f *fakeGitHub) start(t *testing.T, token string) *Client {
	t.Helper()
	who := tokens[token]
	user := map[string]any{"login": who[0], "id": who[1], "type": who[2]}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		f.userGets++
		if who[2] == "Bot" {
			w.WriteHeader(403)
			fmt.Fprint(w, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/users/users#get-the-authenticated-user","status":"403"}`)
			return
		}
		json.NewEncoder(w).Encode(user)
	})
	mux.HandleFunc("GET /repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(f.comments)
	})
	mux.HandleFunc("POST /repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		f.nextID++
		id := 100 + f.nextID
		f.comments = append(f.comments, map[string]any{"id": id, "body": in.Body, "user": user})
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"id":%d,"html_url":"https://example.test/c/%d"}`, id, id)
	})
	mux.HandleFunc("PATCH /repos/acme/rag/issues/comments/{id}", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		for _, c := range f.comments {
			if fmt.Sprint(c["id"]) == r.PathValue("id") {
				c["body"] = in.Body
			}
		}
		f.edits = append(f.edits, "comment "+r.PathValue("id"))
		fmt.Fprintf(w, `{"id":%s,"html_url":"https://example.test/c/%s"}`, r.PathValue("id"), r.PathValue("id"))
	})
	mux.HandleFunc("GET /repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(f.issues)
	})
	mux.HandleFunc("POST /repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		f.issues = append(f.issues, map[string]any{"number": 50, "user": user})
		w.WriteHeader(201)
		fmt.Fprint(w, `{"number":50,"html_url":"https://example.test/i/50"}`)
	})
	mux.HandleFunc("PATCH /repos/acme/rag/issues/{n}", func(w http.ResponseWriter, r *http.Request) {
		f.edits = append(f.edits, "issue "+r.PathValue("n"))
		fmt.Fprintf(w, `{"number":%s,"html_url":"https://example.test/i/%s"}`, r.PathValue("n"), r.PathValue("n"))
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || f.revoked {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"message":"Bad credentials"}`)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.Client(), srv.URL, token, "acme/rag")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// person is a reviewer quoting the sticky comment, marker and all.
var person = map[string]any{"login": "alice", "id": 1, "type": "User"}

// TestStickyCommentByTokenIdentity: with each kind of token, three pushes
// leave one comment, edited in place, written by the token's own account;
// a person's comment quoting the marker (first on the page) is never
// edited, nor another bot's comment under a personal token.
func TestStickyCommentByTokenIdentity(t *testing.T) {
	marker := publish.Marker("search/recallgate.toml", "")
	for token, who := range tokens {
		t.Run(token, func(t *testing.T) {
			f := &fakeGitHub{comments: []map[string]any{
				{"id": 1, "body": marker + "\n> quoted by a person: ❌ fail", "user": person},
			}}
			if who[2] == "User" {
				// Under a personal token a Bot's comment is someone else's.
				f.comments = append(f.comments, map[string]any{"id": 2, "body": marker + "\nanother bot", "user": map[string]any{"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}})
			}
			c := f.start(t, token)
			for push := 1; push <= 3; push++ {
				created, _, err := c.UpsertComment(context.Background(), 7, []string{marker}, fmt.Sprintf("push %d", push))
				if err != nil {
					t.Fatal(err)
				}
				if created != (push == 1) {
					t.Errorf("push %d: created %v", push, created)
				}
			}
			var mine []map[string]any
			for _, cm := range f.comments {
				if cm["user"].(map[string]any)["login"] == who[0] && cm["id"].(int) > 100 {
					mine = append(mine, cm)
				}
			}
			if len(mine) != 1 || mine[0]["body"] != marker+"\npush 3" {
				t.Errorf("the token's comments: %v (all: %v)", mine, f.comments)
			}
			if f.comments[0]["body"] != marker+"\n> quoted by a person: ❌ fail" || strings.Join(f.edits, ",") != "comment 101,comment 101" {
				t.Errorf("edits %v; the person's comment: %v", f.edits, f.comments[0]["body"])
			}
			if f.userGets != 1 {
				t.Errorf("GET /user asked %d times, want once per client", f.userGets)
			}
		})
	}
}

// TestStickyCommentMigration: a comment with the marker an earlier release
// gave the gate is taken over once (edited, with the new marker); a second
// gate sharing that old marker then gets its own comment.
func TestStickyCommentMigration(t *testing.T) {
	old := publish.Marker("recallgate.toml", "")
	bot := map[string]any{"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
	f := &fakeGitHub{comments: []map[string]any{{"id": 3, "body": old + "\nold report", "user": bot}}}
	c := f.start(t, "ghs_job")
	search, faq := publish.Marker("search/recallgate.toml", ""), publish.Marker("faq/recallgate.toml", "")
	if created, _, err := c.UpsertComment(context.Background(), 7, []string{search, old}, "search ❌"); err != nil || created {
		t.Fatalf("search: created %v err %v", created, err)
	}
	if created, _, err := c.UpsertComment(context.Background(), 7, []string{faq, old}, "faq ✅"); err != nil || !created {
		t.Fatalf("faq: created %v err %v", created, err)
	}
	if len(f.comments) != 2 || f.comments[0]["body"] != search+"\nsearch ❌" || f.comments[1]["body"] != faq+"\nfaq ✅" {
		t.Errorf("comments: %v", f.comments)
	}
	// The gate's own marker wins over an old one, wherever it is listed.
	f.comments = append([]map[string]any{{"id": 4, "body": old + "\nolder", "user": bot}}, f.comments...)
	if _, _, err := c.UpsertComment(context.Background(), 7, []string{faq, old}, "faq again"); err != nil || f.edits[len(f.edits)-1] != "comment 101" {
		t.Errorf("edits %v err %v", f.edits, err)
	}
}

// TestDriftIssueByTokenIdentity: the drift issue is the token's own; a
// person's open issue with the label is never edited.
func TestDriftIssueByTokenIdentity(t *testing.T) {
	for token, who := range tokens {
		t.Run(token, func(t *testing.T) {
			f := &fakeGitHub{issues: []map[string]any{{"number": 4, "user": person}}}
			c := f.start(t, token)
			if is, err := c.FindIssue(context.Background(), "retrieval-drift"); is != nil || err != nil {
				t.Fatalf("first night: the person's issue #4 taken for the drift issue: %+v %v", is, err)
			}
			if _, err := c.CreateIssue(context.Background(), "retrieval-drift", "drift", "b"); err != nil {
				t.Fatal(err)
			}
			if is, err := c.FindIssue(context.Background(), "retrieval-drift"); err != nil || is == nil || is.Number != 50 {
				t.Errorf("second night (%s): %+v %v", who[0], is, err)
			}
		})
	}
}

// TestUserEndpointErrors: a token GitHub refuses (401) is an error, not a
// Bot's identity.
func TestUserEndpointErrors(t *testing.T) {
	f := &fakeGitHub{revoked: true}
	c := f.start(t, "ghp_personal")
	if _, err := c.FindComment(context.Background(), 7, []string{"m"}); err == nil || !strings.Contains(err.Error(), "GET /user") {
		t.Errorf("got %v", err)
	}
}
