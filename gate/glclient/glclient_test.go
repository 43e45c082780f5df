package glclient

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/publish"
)

const token = "glpat-s3cret"

// setup returns a client whose API root is a test server routed by mux,
// the go-github way; a request without the token gets GitLab's 401 body.
// GET /user answers the project token's bot user unless the test routes it.
func setup(t *testing.T) (*Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PRIVATE-TOKEN") != token {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprint(w, `{"message":"401 Unauthorized"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.Client(), srv.URL+"/api/v4", token, "42")
	if err != nil {
		t.Fatal(err)
	}
	c.WebURL = "https://gitlab.example/acme/rag"
	return c, mux
}

// bot is GET /user for a project access token.
func bot(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v4/user", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"id":900,"username":"project_42_bot_abc","name":"recallgate","bot":true}`)
	})
}

func note(id int64, authorID int64, username, body string, system bool) map[string]any {
	return map[string]any{"id": id, "body": body, "system": system, "noteable_type": "MergeRequest",
		"author": map[string]any{"id": authorID, "username": username, "name": username, "state": "active"}}
}

func TestStickyNoteByTokenIdentityAcrossPages(t *testing.T) {
	for _, style := range []string{"x-next-page", "link"} {
		t.Run(style, func(t *testing.T) {
			c, mux := setup(t)
			bot(mux)
			marker := publish.Marker("recallgate.toml", "")
			var edited string
			mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("per_page") != "100" {
					t.Errorf("per_page %q", r.URL.Query().Get("per_page"))
				}
				second := r.URL.Query().Get("page") == "2" || r.URL.Query().Get("cursor") == "abc"
				if second {
					json.NewEncoder(w).Encode([]any{
						note(13, 77, "mallory", marker+"\nquoted by a person", false),
						note(14, 900, "project_42_bot_abc", marker+"\nsystem echo", true),
						note(12, 900, "project_42_bot_abc", marker+"\nold report", false),
					})
					return
				}
				if style == "link" {
					w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?cursor=abc&per_page=100>; rel="next"`, r.Host, r.URL.Path))
				} else {
					w.Header().Set("X-Page", "1")
					w.Header().Set("X-Next-Page", "2")
					w.Header().Set("X-Total-Pages", "2")
				}
				json.NewEncoder(w).Encode([]any{note(10, 77, "mallory", "first!", false), note(11, 900, "project_42_bot_abc", "an unrelated bot note", false)})
			})
			mux.HandleFunc("PUT /api/v4/projects/42/merge_requests/7/notes/12", func(w http.ResponseWriter, r *http.Request) {
				var in struct{ Body string }
				json.NewDecoder(r.Body).Decode(&in)
				edited = in.Body
				json.NewEncoder(w).Encode(note(12, 900, "project_42_bot_abc", in.Body, false))
			})
			mux.HandleFunc("PUT /api/v4/projects/42/merge_requests/7/notes/13", func(w http.ResponseWriter, r *http.Request) {
				t.Error("edited a person's note quoting the marker")
			})
			mux.HandleFunc("POST /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
				t.Error("created a second note instead of editing the sticky one")
			})
			created, link, err := c.UpsertComment(context.Background(), 7, []string{marker}, "new report")
			if err != nil || created || link != "https://gitlab.example/acme/rag/-/merge_requests/7#note_12" {
				t.Fatalf("created %v link %q err %v", created, link, err)
			}
			if edited != marker+"\nnew report" {
				t.Errorf("edited body %q", edited)
			}
		})
	}
}

func TestNoteCreatedWhenOnlyAPersonQuotesTheMarker(t *testing.T) {
	c, mux := setup(t)
	bot(mux)
	marker := publish.Marker("a.toml", "")
	mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode([]any{note(13, 77, "mallory", marker+"\nfake pass", false)})
	})
	var body string
	mux.HandleFunc("POST /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		body = in.Body
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(note(99, 900, "project_42_bot_abc", in.Body, false))
	})
	created, link, err := c.UpsertComment(context.Background(), 7, []string{marker}, "report")
	if err != nil || !created || !strings.HasSuffix(link, "#note_99") {
		t.Fatalf("created %v link %q err %v", created, link, err)
	}
	if body != marker+"\nreport" {
		t.Errorf("body %q", body)
	}
}

func TestStickyNoteMigratesAnEarlierMarker(t *testing.T) {
	c, mux := setup(t)
	bot(mux)
	now, old := publish.Marker("ci/recallgate.toml", "docs"), publish.Marker("recallgate.toml", "")
	mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode([]any{note(5, 900, "project_42_bot_abc", old+"\nearlier release", false)})
	})
	id, err := c.FindComment(context.Background(), 7, []string{now, old})
	if err != nil || id != 5 {
		t.Fatalf("id %d err %v", id, err)
	}
}

// A token GitLab refuses (no api scope, a job token, a revoked token) is a
// *PermissionError, and the publishing rules warn and keep the verdict.
func TestPermissionErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		user   bool // GET /user answers, the write is refused
	}{
		{"user 401", 401, false},
		{"user 403", 403, false},
		{"write 403", 403, true},
		{"write 404", 404, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mux := setup(t)
			refuse := func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				fmt.Fprintf(w, `{"message":"%d %s"}`, tc.status, http.StatusText(tc.status))
			}
			if tc.user {
				bot(mux)
			} else {
				mux.HandleFunc("GET /api/v4/user", refuse)
			}
			mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `[]`) })
			mux.HandleFunc("POST /api/v4/projects/42/merge_requests/7/notes", refuse)
			_, _, err := c.UpsertComment(context.Background(), 7, []string{publish.Marker("a.toml", "")}, "r")
			var pe *PermissionError
			if !errors.As(err, &pe) || pe.Status != tc.status {
				t.Fatalf("err %v, want a *PermissionError %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), "api scope") || strings.Contains(err.Error(), token) {
				t.Errorf("message %q", err)
			}
			var log fakeLog
			cm, is := c.Ports()
			fail := publish.Outcome(context.Background(), &log, publish.Options{Mode: "pr", PR: 7, When: "always", Markers: []string{publish.Marker("a.toml", "")}}, cm, is, publish.Result{Verdict: "pass"})
			if fail || len(log.warn) != 1 || !strings.Contains(log.warn[0], "verdict stands") {
				t.Errorf("fail %v warnings %q", fail, log.warn)
			}
		})
	}
}

func TestBadTokenIsRefusedWithGitLabsBody(t *testing.T) {
	c, _ := setup(t)
	c2, err := New(nil, c.gl.BaseURL().String(), "wrong", "42")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c2.FindComment(context.Background(), 1, []string{"m"})
	var pe *PermissionError
	if !errors.As(err, &pe) || pe.Status != 401 || !strings.Contains(err.Error(), "401 Unauthorized") {
		t.Fatalf("err %v", err)
	}
}

type fakeLog struct{ warn, info []string }

func (l *fakeLog) Warningf(f string, a ...any) { l.warn = append(l.warn, fmt.Sprintf(f, a...)) }
func (l *fakeLog) Infof(f string, a ...any)    { l.info = append(l.info, fmt.Sprintf(f, a...)) }

func TestNoteOverGitLabsLimitIsFittedAndWarned(t *testing.T) {
	c, mux := setup(t)
	var warned []string
	c.Warn = func(s string) { warned = append(warned, s) }
	var got string
	mux.HandleFunc("PUT /api/v4/projects/42/merge_requests/7/notes/3", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		got = in.Body
		json.NewEncoder(w).Encode(note(3, 900, "b", "", false))
	})
	big := "<details>\n" + strings.Repeat("| q | 0.5 | 0.1 |\n", 80_000) + "</details>\n"
	if len(big) <= MaxNoteLength {
		t.Fatalf("test body too small: %d", len(big))
	}
	if _, _, err := c.WriteComment(context.Background(), 7, 3, "<!-- m -->", big); err != nil {
		t.Fatal(err)
	}
	if len(got) > MaxNoteLength || !strings.HasPrefix(got, "<!-- m -->\n") || !strings.HasSuffix(got, "</details>\n") || !strings.Contains(got, "more lines: the full report is in the job's JSON report") {
		t.Errorf("fitted body: %d bytes, tail %q", len(got), got[max(0, len(got)-200):])
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "1000000") {
		t.Errorf("warnings %q", warned)
	}
}

func TestDriftIssueByTokenIdentityAndLabel(t *testing.T) {
	c, mux := setup(t)
	bot(mux)
	var created, noted, edited map[string]any
	mux.HandleFunc("GET /api/v4/projects/42/issues", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("labels") != "retrieval-drift" || q.Get("state") != "opened" {
			t.Errorf("query %v", q)
		}
		if created == nil {
			json.NewEncoder(w).Encode([]any{map[string]any{"id": 1, "iid": 3, "state": "opened", "labels": []string{"retrieval-drift"}, "description": "a person's issue",
				"author": map[string]any{"id": 77, "username": "mallory"}, "web_url": "https://gitlab.example/acme/rag/-/issues/3"}})
			return
		}
		json.NewEncoder(w).Encode([]any{
			map[string]any{"id": 1, "iid": 3, "state": "opened", "labels": []string{"retrieval-drift"}, "author": map[string]any{"id": 77, "username": "mallory"}},
			map[string]any{"id": 2, "iid": 8, "state": "opened", "labels": []string{"retrieval-drift", "bug"}, "description": created["description"],
				"author": map[string]any{"id": 900, "username": "project_42_bot_abc"}, "web_url": "https://gitlab.example/acme/rag/-/issues/8"},
		})
	})
	mux.HandleFunc("POST /api/v4/projects/42/issues", func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&created)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":2,"iid":8,"web_url":"https://gitlab.example/acme/rag/-/issues/8"}`)
	})
	mux.HandleFunc("PUT /api/v4/projects/42/issues/8", func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&edited)
		fmt.Fprint(w, `{"id":2,"iid":8,"web_url":"https://gitlab.example/acme/rag/-/issues/8"}`)
	})
	mux.HandleFunc("PUT /api/v4/projects/42/issues/3", func(w http.ResponseWriter, r *http.Request) {
		t.Error("edited a person's issue")
	})
	mux.HandleFunc("POST /api/v4/projects/42/issues/8/notes", func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&noted)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":5}`)
	})
	ctx := context.Background()
	var log fakeLog
	_, is := c.Ports()
	fail := publish.Result{Verdict: "fail", Regressed: []string{"q1"}, Candidates: 50, RecallDelta: -0.1, Markdown: "report 1"}
	publish.TrackDrift(ctx, &log, is, fail, "abcdef0123456789")
	if created == nil || fmt.Sprint(created["labels"]) != "retrieval-drift" || !strings.Contains(fmt.Sprint(created["description"]), "report 1") {
		t.Fatalf("created %v (log %v)", created, log)
	}
	fail.Regressed, fail.Markdown = []string{"q1", "q2"}, "report 2"
	publish.TrackDrift(ctx, &log, is, fail, "bcdef0123456789a")
	if edited == nil || !strings.Contains(fmt.Sprint(edited["description"]), "report 2") {
		t.Errorf("edited %v", edited)
	}
	if noted == nil || !strings.Contains(fmt.Sprint(noted["body"]), "regressed now q1,q2") {
		t.Errorf("noted %v", noted)
	}
	if len(log.warn) != 0 {
		t.Errorf("warnings %q", log.warn)
	}
}

func TestEndlessPagingStops(t *testing.T) {
	c, mux := setup(t)
	bot(mux)
	var calls atomic.Int64
	mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("X-Next-Page", "2")
		fmt.Fprint(w, `[]`)
	})
	_, err := c.FindComment(context.Background(), 7, []string{"m"})
	if err == nil || !strings.Contains(err.Error(), "pages") || calls.Load() != maxPages {
		t.Fatalf("err %v after %d calls", err, calls.Load())
	}
}

func TestSlowAPITimesOut(t *testing.T) {
	c, mux := setup(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux.HandleFunc("GET /api/v4/user", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c.Timeout = 200 * time.Millisecond
	start := time.Now()
	_, err := c.FindComment(context.Background(), 7, []string{"m"})
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// A 5xx on a GET is tried again; a 5xx on the POST that creates a note is
// not (GitLab may have made it: a retry would post it twice).
func TestRetries(t *testing.T) {
	c, mux := setup(t)
	var users, posts atomic.Int64
	mux.HandleFunc("GET /api/v4/user", func(w http.ResponseWriter, r *http.Request) {
		if users.Add(1) == 1 {
			w.WriteHeader(502)
			fmt.Fprint(w, `{"message":"502 Bad Gateway"}`)
			return
		}
		fmt.Fprint(w, `{"id":900,"username":"b"}`)
	})
	mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `[]`) })
	mux.HandleFunc("POST /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.WriteHeader(500)
		fmt.Fprint(w, `{"message":"500 Internal Server Error"}`)
	})
	_, _, err := c.UpsertComment(context.Background(), 7, []string{"m"}, "b")
	if err == nil || users.Load() != 2 || posts.Load() != 1 {
		t.Fatalf("err %v, GET /user %d times, POST %d times", err, users.Load(), posts.Load())
	}
}

func tarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestArchive(t *testing.T) {
	c, mux := setup(t)
	data := tarball(t, map[string]string{"rag-abc-abc/recallgate.toml": "[retriever]\n"})
	mux.HandleFunc("GET /api/v4/projects/42/repository/archive.tar.gz", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("sha") {
		case "abc":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(data)
		case "secret":
			w.WriteHeader(403)
			fmt.Fprint(w, `{"message":"403 Forbidden"}`)
		default:
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"404 Commit Not Found"}`)
		}
	})
	rc, err := c.Archive(context.Background(), "abc")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("archive: %d bytes, err %v", len(got), err)
	}
	_, err = c.Archive(context.Background(), "secret")
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "read_repository") {
		t.Errorf("403: %v", err)
	}
	if _, err := c.Archive(context.Background(), "gone"); err == nil {
		t.Error("404: no error")
	}
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct{ url, token, project, want string }{
		{"https://gitlab.example/api/v4", "", "42", "RECALLGATE_GITLAB_TOKEN"},
		{"https://gitlab.example/api/v4", "t", "", "CI_PROJECT_ID"},
		{"gitlab.example", "t", "42", "CI_API_V4_URL"},
		{"ftp://gitlab.example/api/v4", "t", "42", "CI_API_V4_URL"},
	} {
		if _, err := New(nil, tc.url, tc.token, tc.project); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q, %q): %v, want %s", tc.url, tc.token, tc.project, err, tc.want)
		}
	}
}

// No body recallgate writes can run a quick action: a line of a report
// starting with "/" (after blanks) reaches GitLab with a zero-width space
// before it.
func TestQuickActionsInert(t *testing.T) {
	c, mux := setup(t)
	bot(mux)
	var bodies []string
	record := func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body, Description string }
		json.NewDecoder(r.Body).Decode(&in)
		bodies = append(bodies, in.Body+in.Description)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":1,"iid":1}`)
	}
	mux.HandleFunc("POST /api/v4/projects/42/merge_requests/7/notes", record)
	mux.HandleFunc("POST /api/v4/projects/42/issues", record)
	mux.HandleFunc("PUT /api/v4/projects/42/issues/1", record)
	mux.HandleFunc("POST /api/v4/projects/42/issues/1/notes", record)
	hostile := "report\n/label ~approved\n  /merge\n\t/assign_reviewer @me\nsee a/b /c\n"
	ctx := context.Background()
	c.WriteComment(ctx, 7, 0, "<!-- m -->", hostile)
	c.CreateIssue(ctx, "retrieval-drift", "t", hostile)
	c.EditIssue(ctx, 1, "", hostile)
	c.CommentOnIssue(ctx, 1, hostile)
	if len(bodies) != 4 {
		t.Fatalf("%d bodies", len(bodies))
	}
	quick := regexp.MustCompile(`(?m)^[ \t]*/`)
	for i, b := range bodies {
		if quick.MatchString(b) || !strings.Contains(b, "see a/b /c") || strings.Count(b, "\u200b/") != 3 {
			t.Errorf("body %d: %q", i, b)
		}
	}
}

// The archive is streamed: Archive returns once GitLab starts the body, so
// a large repository is never held in memory; a download that stalls ends
// at the archive timeout, in seconds here.
func TestArchiveStreamsAndTimesOut(t *testing.T) {
	c, mux := setup(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux.HandleFunc("GET /api/v4/projects/42/repository/archive.tar.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first chunk"))
		w.(http.Flusher).Flush()
		select { // the rest never comes
		case <-release:
		case <-r.Context().Done():
		}
	})
	c.ArchiveTimeout = 500 * time.Millisecond
	start := time.Now()
	rc, err := c.Archive(context.Background(), "abc")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	buf := make([]byte, 11)
	if _, err := io.ReadFull(rc, buf); err != nil || string(buf) != "first chunk" {
		t.Fatalf("first chunk %q, %v", buf, err)
	}
	if _, err := io.ReadAll(rc); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a stalled download ended with %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestHugePageIsBounded: an API answer bigger than MaxResponseBytes (a
// page of notes that never ends) stops the listing at the cap with an
// error that says so, instead of being read until the call's timeout.
func TestHugePageIsBounded(t *testing.T) {
	c, mux := setup(t)
	c.Timeout = 5 * time.Second
	bot(mux)
	var sent atomic.Int64
	mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"id":1,"body":"`)
		chunk := []byte(strings.Repeat("x", 1<<20))
		for sent.Load() < MaxResponseBytes+8<<20 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			sent.Add(int64(len(chunk)))
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a server that neither ends the page nor closes
	})
	_, err := c.FindComment(context.Background(), 7, []string{"m"})
	if err == nil || !strings.Contains(err.Error(), "GitLab's answer is over") || strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err %v after %d bytes", err, sent.Load())
	}
}

// TestRedirectElsewhereDropsTheToken: Go forwards a request's headers on a
// redirect, and strips only Authorization and cookies when the host
// changes: GitLab's PRIVATE-TOKEN is not among them. An API answer that
// redirects to another host (a proxy, a moved instance) must not carry the
// token there; a redirect on the same host keeps it.
func TestRedirectElsewhereDropsTheToken(t *testing.T) {
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("PRIVATE-TOKEN"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprint(w, `{"message":"401 Unauthorized"}`)
	}))
	t.Cleanup(other.Close)
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v4/user", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/api/v4/user", http.StatusFound)
	})
	_, err := c.FindComment(context.Background(), 7, []string{"m"})
	if len(got) != 1 || got[0] != "" {
		t.Errorf("the other host got PRIVATE-TOKEN %q (err %v)", got, err)
	}
	c2, mux2 := setup(t)
	mux2.HandleFunc("GET /api/v4/user", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/v4/user2", http.StatusFound)
	})
	mux2.HandleFunc("GET /api/v4/user2", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"id":900,"username":"project_42_bot_abc","bot":true}`)
	})
	mux2.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `[]`) })
	if _, err := c2.FindComment(context.Background(), 7, []string{"m"}); err != nil {
		t.Errorf("a redirect on the same host: %v", err)
	}
}

// TestPlainHTTPElsewhereRefused: the token never goes over plain http to
// another machine; https anywhere and http on loopback are taken.
func TestPlainHTTPElsewhereRefused(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://gitlab.example.com/api/v4": true,
		"http://127.0.0.1:8080/api/v4":      true,
		"http://[::1]:8080/api/v4":          true,
		"http://localhost/api/v4":           true,
		"http://gitlab.example.com/api/v4":  false,
		"http://10.0.0.5/api/v4":            false,
	} {
		_, err := New(nil, u, "glpat-x", "42")
		if (err == nil) != ok {
			t.Errorf("%s: err = %v, want ok %v", u, err, ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "https") || strings.Contains(err.Error(), "glpat-x")) {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// TestListingPagesAndBlob: the recursive tree is read page by page (250
// entries in pages of 100, following X-Next-Page), folders left out,
// submodules kept; a blob is read raw by its id, and one over the limit
// is refused.
func TestListingPagesAndBlob(t *testing.T) {
	c, mux := setup(t)
	var pages []string
	mux.HandleFunc("GET /api/v4/projects/42/repository/tree", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("ref") != "abc" || q.Get("recursive") != "true" || q.Get("per_page") != "100" {
			w.WriteHeader(400)
			return
		}
		pages = append(pages, q.Get("page"))
		page, _ := strconv.Atoi(q.Get("page"))
		var nodes []string
		for i := (page - 1) * 100; i < min(page*100, 250); i++ {
			typ, mode := "blob", "100644"
			switch i {
			case 0:
				typ, mode = "tree", "040000"
			case 1:
				typ, mode = "commit", "160000"
			}
			nodes = append(nodes, fmt.Sprintf(`{"id":"%040d","name":"f%d","type":%q,"path":"d/f%d","mode":%q}`, i, i, typ, i, mode))
		}
		if page*100 < 250 {
			w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "[%s]", strings.Join(nodes, ","))
	})
	mux.HandleFunc("GET /api/v4/projects/42/repository/blobs/{sha}/raw", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "[retriever]\n")
	})
	var got []string
	err := c.Listing(context.Background(), "abc", func(p, mode, sha string, size int64) {
		got = append(got, p+" "+mode)
		if size != -1 {
			t.Errorf("%s: size %d, GitLab gives none", p, size)
		}
	})
	if err != nil || len(got) != 249 || got[0] != "d/f1 160000" || got[248] != "d/f249 100644" || strings.Join(pages, ",") != "1,2,3" {
		t.Errorf("listing: %v, %d entries (%v … ), pages %v", err, len(got), got[:min(len(got), 2)], pages)
	}
	if b, err := c.Blob(context.Background(), "abc", 100); err != nil || string(b) != "[retriever]\n" {
		t.Errorf("blob: %q %v", b, err)
	}
	if _, err := c.Blob(context.Background(), "abc", 4); err == nil || !strings.Contains(err.Error(), "over the 4") {
		t.Errorf("blob over the limit: %v", err)
	}
}
