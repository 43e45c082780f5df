package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/publish"
)

// setup returns a client whose API root is a test server routed by mux,
// the go-github way.
func setup(t *testing.T) (*Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			http.Error(w, `{"message":"Bad credentials"}`, 401)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.Client(), srv.URL+"/api/v3", "t0ken", "acme/rag")
	if err != nil {
		t.Fatal(err)
	}
	return c, mux
}

func TestUpsertCommentFindsMarkerOnSecondPage(t *testing.T) {
	c, mux := setup(t)
	marker := publish.Marker("recallgate.toml", "")
	var edited string
	mux.HandleFunc("GET /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "2" {
			fmt.Fprintf(w, `[{"id":11,"body":"lgtm"},{"id":13,"body":%q,"user":{"login":"mallory","type":"User"}},{"id":12,"body":%q,"user":{"login":"github-actions[bot]","type":"Bot"}}]`, marker+"\nquoted by a person", marker+"\nold report")
			return
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s?page=2>; rel="next", <%s?page=2>; rel="last"`, r.URL.Path, r.URL.Path))
		fmt.Fprint(w, `[{"id":10,"body":"first!"}]`)
	})
	mux.HandleFunc("PATCH /api/v3/repos/acme/rag/issues/comments/12", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		edited = in.Body
		fmt.Fprint(w, `{"id":12,"html_url":"https://example.test/c/12"}`)
	})
	mux.HandleFunc("POST /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		t.Error("created a second comment instead of editing the sticky one")
	})
	created, link, err := c.UpsertComment(context.Background(), 7, []string{marker}, "new report")
	if err != nil || created || link != "https://example.test/c/12" {
		t.Fatalf("created %v link %q err %v", created, link, err)
	}
	if edited != marker+"\nnew report" {
		t.Errorf("edited body %q", edited)
	}
}

func TestUpsertCommentCreatesFirstTime(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[]`)
	})
	var body string
	mux.HandleFunc("POST /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":99,"html_url":"https://example.test/c/99"}`)
	})
	created, _, err := c.UpsertComment(context.Background(), 7, []string{publish.Marker("a.toml", "")}, "report")
	if err != nil || !created || !strings.Contains(body, "recallgate: a.toml") {
		t.Errorf("created %v err %v body %s", created, err, body)
	}
}

func TestPermissionErrors(t *testing.T) {
	for _, status := range []int{403, 404} {
		c, mux := setup(t)
		mux.HandleFunc("GET /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			fmt.Fprint(w, `{"message":"Resource not accessible by integration"}`)
		})
		_, _, err := c.UpsertComment(context.Background(), 7, []string{publish.Marker("x", "")}, "r")
		var pe *PermissionError
		if !errors.As(err, &pe) || pe.Status != status {
			t.Errorf("%d: got %v, want a PermissionError", status, err)
		}
	}
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprint(w, `{"message":"boom"}`)
	})
	_, _, err := c.UpsertComment(context.Background(), 7, []string{publish.Marker("x", "")}, "r")
	var pe *PermissionError
	if err == nil || errors.As(err, &pe) {
		t.Errorf("500: got %v, want a plain error", err)
	}
}

func TestUpsertIssue(t *testing.T) {
	c, mux := setup(t)
	open := false
	mux.HandleFunc("GET /api/v3/repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("labels") != "retrieval-drift" || r.URL.Query().Get("state") != "open" {
			t.Errorf("query %s", r.URL.RawQuery)
		}
		if !open {
			fmt.Fprint(w, `[{"number":3,"pull_request":{"url":"x"}}]`) // a PR with the label does not count
			return
		}
		fmt.Fprint(w, `[{"number":4,"user":{"login":"alice","id":1,"type":"User"}},{"number":5,"user":{"login":"github-actions[bot]","id":41898282,"type":"Bot"}}]`) // a person's issue with the label is not the drift issue
	})
	mux.HandleFunc("POST /api/v3/repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Labels []string }
		json.NewDecoder(r.Body).Decode(&in)
		if len(in.Labels) != 1 || in.Labels[0] != "retrieval-drift" {
			t.Errorf("labels %v", in.Labels)
		}
		w.WriteHeader(201)
		fmt.Fprint(w, `{"number":5,"html_url":"https://example.test/i/5"}`)
	})
	mux.HandleFunc("PATCH /api/v3/repos/acme/rag/issues/5", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"number":5,"html_url":"https://example.test/i/5"}`)
	})
	commented := false
	mux.HandleFunc("POST /api/v3/repos/acme/rag/issues/5/comments", func(w http.ResponseWriter, r *http.Request) {
		commented = true
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":1}`)
	})
	ctx := context.Background()
	if is, err := c.FindIssue(ctx, "retrieval-drift"); is != nil || err != nil {
		t.Errorf("no open issue: %v %v", is, err)
	}
	if link, err := c.CreateIssue(ctx, "retrieval-drift", "drift", "body"); err != nil || link != "https://example.test/i/5" {
		t.Fatalf("create: %q %v", link, err)
	}
	open = true
	is, err := c.FindIssue(ctx, "retrieval-drift")
	if err != nil || is == nil || is.Number != 5 {
		t.Fatalf("find: %+v %v", is, err)
	}
	if link, err := c.EditIssue(ctx, is.Number, "drift", "body 2"); err != nil || link != "https://example.test/i/5" {
		t.Errorf("edit: %q %v", link, err)
	}
	if err := c.CommentOnIssue(ctx, is.Number, "passing"); err != nil || !commented {
		t.Errorf("comment: %v", err)
	}
}

func TestFit(t *testing.T) {
	var b strings.Builder
	b.WriteString("### verdict\n\n<details><summary>All</summary>\n\n| q | r |\n|--|--|\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "| q%04d | some text here |\n", i)
	}
	b.WriteString("\n</details>\n")
	out := Fit(b.String(), 4096)
	if len(out) > 4096 || !strings.HasPrefix(out, "### verdict") || !strings.Contains(out, "more lines") {
		t.Fatalf("len %d:\n%s", len(out), out[len(out)-300:])
	}
	if strings.Count(out, "<details>") != strings.Count(out, "</details>") {
		t.Errorf("details left open:\n%s", out[len(out)-200:])
	}
	if short := "small"; Fit(short, 100) != short {
		t.Error("a short body changed")
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(nil, "", "t", "noslash"); err == nil {
		t.Error("bad repository: want an error")
	}
	if _, err := New(nil, "", "", "a/b"); err == nil {
		t.Error("no token: want an error")
	}
}

func TestRateLimitIsNotAPermissionError(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", "1893456000")
		w.WriteHeader(403)
		fmt.Fprint(w, `{"message":"API rate limit exceeded"}`)
	})
	_, _, err := c.UpsertComment(context.Background(), 7, []string{publish.Marker("x", "")}, "r")
	var pe *PermissionError
	if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), "rate limit exhausted until 2030-01-01") {
		t.Errorf("got %v", err)
	}
}

func TestSlowAPITimesOut(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v3/repos/acme/rag/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	c.Timeout = 100 * time.Millisecond
	start := time.Now()
	_, _, err := c.UpsertComment(context.Background(), 7, []string{publish.Marker("x", "")}, "r")
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

// FuzzFit: whatever the Markdown, Fit stays under the limit and leaves no
// <details> open that it did not find closed.
func FuzzFit(f *testing.F) {
	f.Add("### a\n<details>\n| x |\n|--|\n| y |\n</details>\n", 40)
	f.Add(strings.Repeat("line\n", 100), 64)
	f.Fuzz(func(t *testing.T, body string, limit int) {
		if limit < 200 || limit > 1<<16 {
			limit = 200 + (limit%1000+1000)%1000
		}
		out := Fit(body, limit)
		if len(body) <= limit {
			if out != body {
				t.Fatal("a body under the limit changed")
			}
			return
		}
		if len(out) > limit {
			t.Fatalf("len %d > limit %d", len(out), limit)
		}
	})
}

func TestArchive(t *testing.T) {
	c, mux := setup(t)
	download := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("the token was sent to the download link")
		}
		if r.URL.Path != "/acme/rag/legacy.tar.gz/abc123" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "tar.gz bytes")
	}))
	defer download.Close()
	mux.HandleFunc("GET /api/v3/repos/acme/rag/tarball/abc123", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, download.URL+"/acme/rag/legacy.tar.gz/abc123", http.StatusFound)
	})
	mux.HandleFunc("GET /api/v3/repos/acme/rag/tarball/secret", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"Not Found"}`, 404)
	})
	mux.HandleFunc("GET /api/v3/repos/acme/rag/tarball/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, download.URL+"/nothing", http.StatusFound)
	})
	rc, err := c.Archive(context.Background(), "abc123")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "tar.gz bytes" {
		t.Errorf("got %q", b)
	}
	if _, err := c.Archive(context.Background(), "secret"); err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "contents: read") {
		t.Errorf("404: %v", err)
	}
	if _, err := c.Archive(context.Background(), "gone"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("dead link: %v", err)
	}
}

// TestListingAndBlob: the recursive tree in GitHub's documented shape is
// listed without its folders (files, links, submodules with their modes
// and sizes); a truncated tree and a 404 are errors; a blob is read raw
// and one over the limit refused.
func TestListingAndBlob(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v3/repos/acme/rag/git/trees/{sha}", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("recursive") != "1" {
			w.WriteHeader(400)
			return
		}
		switch r.PathValue("sha") {
		case "abc":
			fmt.Fprint(w, `{"sha":"abc","truncated":false,"tree":[
				{"path":"rag","mode":"040000","type":"tree","sha":"t1"},
				{"path":"rag/recallgate.toml","mode":"100644","type":"blob","sha":"b1","size":12},
				{"path":"rag/run.sh","mode":"100755","type":"blob","sha":"b2","size":3},
				{"path":"rag/latest","mode":"120000","type":"blob","sha":"b3","size":6},
				{"path":"vendor/lib","mode":"160000","type":"commit","sha":"c1"}]}`)
		case "big":
			fmt.Fprint(w, `{"sha":"big","truncated":true,"tree":[{"path":"a","mode":"100644","type":"blob","sha":"b1","size":1}]}`)
		default:
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"Not Found"}`)
		}
	})
	mux.HandleFunc("GET /api/v3/repos/acme/rag/git/blobs/{sha}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/vnd.github.v3.raw" {
			t.Errorf("blob asked as %q, want raw", r.Header.Get("Accept"))
		}
		fmt.Fprint(w, "[retriever]\n")
	})
	var got []string
	err := c.Listing(context.Background(), "abc", func(p, mode, sha string, size int64) {
		got = append(got, fmt.Sprintf("%s %s %s %d", p, mode, sha, size))
	})
	want := "rag/recallgate.toml 100644 b1 12,rag/run.sh 100755 b2 3,rag/latest 120000 b3 6,vendor/lib 160000 c1 -1"
	if err != nil || strings.Join(got, ",") != want {
		t.Errorf("listing: %v\n%s\nwant\n%s", err, strings.Join(got, ","), want)
	}
	if err := c.Listing(context.Background(), "big", func(string, string, string, int64) {}); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("a truncated tree: %v", err)
	}
	if err := c.Listing(context.Background(), "gone", func(string, string, string, int64) {}); err == nil {
		t.Error("404: no error")
	}
	if b, err := c.Blob(context.Background(), "b1", 100); err != nil || string(b) != "[retriever]\n" {
		t.Errorf("blob: %q %v", b, err)
	}
	if _, err := c.Blob(context.Background(), "b1", 4); err == nil || !strings.Contains(err.Error(), "over the 4") {
		t.Errorf("blob over the limit: %v", err)
	}
}

// TestBlobBodyNeverEnds: a blob answer that never ends (or a blob far over
// what the base tree may still hold) is refused once max bytes are past,
// not read whole into memory until the download's time runs out.
func TestBlobBodyNeverEnds(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v3/repos/acme/rag/git/blobs/{sha}", func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Blob(ctx, "endless", 1<<20); err == nil || !strings.Contains(err.Error(), "over the 1048576 bytes") {
		t.Errorf("an endless blob: %v, want refused past 1048576 bytes", err)
	}
}

// TestListingAnswerNeverEnds: a tree listing whose answer never ends is
// refused past MaxListingBytes, not decoded into memory until the call's
// time runs out.
func TestListingAnswerNeverEnds(t *testing.T) {
	c, mux := setup(t)
	mux.HandleFunc("GET /api/v3/repos/acme/rag/git/trees/{sha}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"sha":"x","truncated":false,"tree":[`)
		entry := []byte(`{"path":"a","mode":"100644","type":"blob","sha":"b1","size":1},`)
		chunk := bytes.Repeat(entry, 1024)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.Listing(ctx, "endless", func(string, string, string, int64) {})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("over %d bytes", MaxListingBytes)) {
		t.Errorf("an endless listing: %v, want refused past %d bytes", err, MaxListingBytes)
	}
}
