package act_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/recallgate/recallgate/internal/committree"
)

// These tests run workflows as teams adapting the README write them (not
// copies of it): a monorepo matrix, a personal access token, two gate
// steps in one job.

// pat is a personal access token of the acme-ci user, as an org-wide bot
// account holds it; like the job's token it must appear in no log.
const pat = "ghp_actTestPersonalToken0123456789"

// author is a comment's user as GitHub lists it.
type author struct {
	Login string `json:"login"`
	ID    int    `json:"id"`
	Type  string `json:"type"`
}

var (
	actionsBot = author{"github-actions[bot]", 41898282, "Bot"}
	ciUser     = author{"acme-ci", 5001, "User"}
	reviewer   = author{"alice", 1, "User"}
)

// comment is one comment on PR 42.
type comment struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
	User author `json:"user"`
	URL  string `json:"html_url"`
}

// threadAPI is PR 42's comment thread on acme/rag, kept across runs, in
// GitHub's documented shapes: GET /user answers 200 with acme-ci for the
// personal token and 403 for the job's token (an installation token),
// comments are written by the token's account, and only that account may
// edit its own comment.
type threadAPI struct {
	mu       sync.Mutex
	tarball  []byte // the base commit's archive, for the base side (the image has no git)
	comments []comment
	calls    []string
	next     int
}

func (f *threadAPI) start(t *testing.T) *httptest.Server {
	t.Helper()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	who := func(r *http.Request) (author, bool) {
		switch strings.TrimPrefix(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), "token ") {
		case token:
			return actionsBot, true
		case pat:
			return ciUser, true
		}
		return author{}, false
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = append(f.calls, r.Method+" "+r.URL.Path)
		switch {
		case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/repos/acme/rag/tarball/") && f.tarball != nil:
			w.Header().Set("Location", "http://"+r.Host+"/_codeload/acme/rag/legacy.tar.gz/"+strings.TrimPrefix(r.URL.Path, "/repos/acme/rag/tarball/"))
			w.WriteHeader(http.StatusFound)
			return
		case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/_codeload/") && f.tarball != nil:
			w.Header().Set("Content-Type", "application/x-gzip")
			w.Write(f.tarball)
			return
		case r.Method == "GET" && (strings.HasPrefix(r.URL.Path, "/repos/acme/rag/git/trees/") || strings.HasPrefix(r.URL.Path, "/repos/acme/rag/git/blobs/")) && f.tarball != nil:
			committree.FromTarGz(f.tarball).ServeGitHub(w, r) // the commit's listing, checked against its archive
			return
		}
		me, ok := who(r)
		if !ok {
			reply(w, 401, map[string]string{"message": "Bad credentials"})
			return
		}
		body, _ := io.ReadAll(r.Body)
		var in struct{ Body string }
		json.Unmarshal(body, &in)
		switch {
		case r.Method == "GET" && r.URL.Path == "/user":
			if me.Type == "Bot" {
				reply(w, 403, map[string]string{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user", "status": "403"})
				return
			}
			reply(w, 200, me)
		case r.Method == "GET" && r.URL.Path == "/repos/acme/rag/issues/42/comments":
			reply(w, 200, append([]comment{}, f.comments...))
		case r.Method == "POST" && r.URL.Path == "/repos/acme/rag/issues/42/comments":
			f.next++
			c := comment{ID: 100 + f.next, Body: in.Body, User: me}
			c.URL = fmt.Sprintf("http://127.0.0.1/acme/rag/pull/42#issuecomment-%d", c.ID)
			f.comments = append(f.comments, c)
			reply(w, 201, c)
		case r.Method == "PATCH" && strings.HasPrefix(r.URL.Path, "/repos/acme/rag/issues/comments/"):
			for i, c := range f.comments {
				if fmt.Sprint(c.ID) != strings.TrimPrefix(r.URL.Path, "/repos/acme/rag/issues/comments/") {
					continue
				}
				if c.User != me {
					reply(w, 403, map[string]string{"message": "You can only edit your own comments"})
					return
				}
				f.comments[i].Body = in.Body
				reply(w, 200, f.comments[i])
				return
			}
			reply(w, 404, map[string]string{"message": "Not Found"})
		default:
			reply(w, 404, map[string]string{"message": "Not Found"})
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// thread is the comments now, and the calls made since the last look.
func (f *threadAPI) thread() (comments []comment, calls []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	comments, calls = append([]comment{}, f.comments...), f.calls
	f.calls = nil
	return comments, calls
}

// passingConfig is faq's gate: its head changes the title weight a little,
// which moves no query.
const passingConfig = `set = "queries.jsonl"

[depth]
candidates = 5
context = 3

[gate]
max_recall_drop = 0.02
max_new_misses = 0

[base.retriever]
type = "builtin"
corpus = "corpus"
title_boost = 2.0

[head.retriever]
type = "builtin"
corpus = "corpus"
title_boost = 2.1
`

// monorepo is acme/rag with two gates: search/ (the demo, whose head
// regresses) and faq/ (passingConfig), the workflow as
// .github/workflows/retrieval.yml, one commit.
func monorepo(t *testing.T, workflow string) (dir, sha string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join(projectRoot(t), "frozen-set")
	for _, sub := range []string{"search", "faq"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		if out, err := exec.Command("cp", "-r", src+"/.", filepath.Join(dir, sub)).CombinedOutput(); err != nil {
			t.Fatalf("copy demo: %v %s", err, out)
		}
		os.Remove(filepath.Join(dir, sub, "dogfood.toml"))
	}
	os.WriteFile(filepath.Join(dir, "faq", "recallgate.toml"), []byte(passingConfig), 0o644)
	os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755)
	os.WriteFile(filepath.Join(dir, ".github", "workflows", "retrieval.yml"), []byte(workflow), 0o644)
	git(t, dir, "init", "-q")
	git(t, dir, "remote", "add", "origin", "https://github.com/acme/rag.git")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	return dir, git(t, dir, "rev-parse", "HEAD")
}

// byMarker finds the comment that starts with the marker.
func byMarker(cs []comment, marker string) []comment {
	var out []comment
	for _, c := range cs {
		if strings.HasPrefix(c.Body, marker) {
			out = append(out, c)
		}
	}
	return out
}

// TestMonorepoMatrix: a matrix over two folders, each with its own
// recallgate.toml, leaves two sticky comments on the PR, each with its own
// verdict: the passing faq job never overwrites search's failure. A second
// push edits both in place.
func TestMonorepoMatrix(t *testing.T) {
	env(t)
	workflow := `name: retrieval
on: pull_request
permissions: { contents: read, pull-requests: write }
jobs:
  recallgate:
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        folder: [search, faq]
    steps:
      - uses: actions/checkout@v4
      - uses: recallgate/recallgate@v1
        with:
          working-directory: ${{ matrix.folder }}
          config: recallgate.toml
`
	repo, sha := monorepo(t, workflow)
	api := &threadAPI{tarball: policyArchive(t, repo, sha)}
	srv := api.start(t)
	for push := 1; push <= 2; push++ {
		r := runAct(t, repo, "pull_request", prPayload(sha, sha), srv.URL)
		if r.exit == 0 || !stepFailed.MatchString(r.log) {
			t.Fatalf("push %d: the search job's regression did not fail the run (exit %d):\n%s", push, r.exit, r.log)
		}
		cs, calls := api.thread()
		search, faq := byMarker(cs, "<!-- recallgate: search/recallgate.toml -->"), byMarker(cs, "<!-- recallgate: faq/recallgate.toml -->")
		if len(cs) != 2 || len(search) != 1 || len(faq) != 1 {
			t.Fatalf("push %d: want one comment per gate, got %d:\n%s\ncalls %v", push, len(cs), bodies(cs), calls)
		}
		if !strings.Contains(search[0].Body, "### ❌ recallgate · search: fail") || !strings.Contains(faq[0].Body, "### ✅ recallgate · faq: pass") {
			t.Errorf("push %d: the comments' verdicts:\n%s", push, bodies(cs))
		}
		if push == 2 && strings.Count(strings.Join(calls, "\n"), "PATCH ") != 2 {
			t.Errorf("second push: want both comments edited in place, calls %v", calls)
		}
	}
}

// bodies is the comments' first two lines, for messages.
func bodies(cs []comment) string {
	var b strings.Builder
	for _, c := range cs {
		head := strings.SplitN(c.Body, "\n", 3)
		fmt.Fprintf(&b, "#%d by %s: %s\n", c.ID, c.User.Login, strings.Join(head[:min(2, len(head))], " | "))
	}
	return b.String()
}

// TestPersonalTokenCommentEditedInPlace: a team posts with a personal
// access token (an org-wide bot user); GET /user names it, so three pushes
// leave one comment by acme-ci, edited in place, and a reviewer's comment
// quoting the marker is left alone.
func TestPersonalTokenCommentEditedInPlace(t *testing.T) {
	env(t)
	workflow := `name: retrieval
on: pull_request
permissions: { contents: read }
jobs:
  recallgate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: recallgate/recallgate@v1
        with:
          config: recallgate.toml
          github-token: ${{ secrets.RECALLGATE_PAT }}
`
	repo, sha := repoWith(t, "", workflow, nil)
	api := &threadAPI{tarball: policyArchive(t, repo, sha), comments: []comment{{ID: 7, User: reviewer, Body: "<!-- recallgate: recallgate.toml -->\n> quoting the bot: ❌ recallgate: fail"}}}
	srv := api.start(t)
	for push := 1; push <= 3; push++ {
		r := runActWith(t, repo, "pull_request", prPayload(sha, sha), srv.URL, actOptions{extra: []string{"-s", "RECALLGATE_PAT=" + pat}})
		if r.exit == 0 || output(r.log, "verdict") != "fail" {
			t.Fatalf("push %d: exit %d verdict %q:\n%s", push, r.exit, output(r.log, "verdict"), r.log)
		}
		if strings.Contains(r.log, pat) {
			t.Errorf("push %d: the personal token appears in the log", push)
		}
		cs, calls := api.thread()
		var mine []comment
		for _, c := range cs {
			if c.User == ciUser {
				mine = append(mine, c)
			}
		}
		if len(cs) != 2 || len(mine) != 1 || !strings.Contains(mine[0].Body, "q26") {
			t.Fatalf("push %d: want the reviewer's comment and one of acme-ci's:\n%s\ncalls %v", push, bodies(cs), calls)
		}
		if cs[0].Body != "<!-- recallgate: recallgate.toml -->\n> quoting the bot: ❌ recallgate: fail" {
			t.Errorf("push %d: the reviewer's comment was edited: %.200s", push, cs[0].Body)
		}
		want := "POST /repos/acme/rag/issues/42/comments"
		if push > 1 {
			want = fmt.Sprintf("PATCH /repos/acme/rag/issues/comments/%d", mine[0].ID)
		}
		if !strings.Contains(strings.Join(calls, "\n"), want) {
			t.Errorf("push %d: calls %v, want %s", push, calls, want)
		}
	}
}

// TestTwoGateSteps: one job, two gate steps (search, whose head regresses,
// kept green with fail-on-regression: false, then faq, which passes); each
// step's report output names its own file, as a later step that uploads or
// converts them reads it.
func TestTwoGateSteps(t *testing.T) {
	env(t)
	workflow := `name: retrieval
on: pull_request
permissions: { contents: read }
jobs:
  recallgate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: recallgate/recallgate@v1
        id: search
        with:
          working-directory: search
          comment: never
          fail-on-regression: false
      - uses: recallgate/recallgate@v1
        id: faq
        with:
          working-directory: faq
          comment: never
      - name: check the reports
        shell: sh
        run: |
          echo "search report: ${{ steps.search.outputs.report }} verdict ${{ steps.search.outputs.verdict }}"
          echo "faq report: ${{ steps.faq.outputs.report }} verdict ${{ steps.faq.outputs.verdict }}"
          grep -q '"verdict": "fail"' "${{ steps.search.outputs.report }}" || { echo "search's report does not say fail"; exit 1; }
          grep -q '"verdict": "pass"' "${{ steps.faq.outputs.report }}" || { echo "faq's report does not say pass"; exit 1; }
          echo "two reports, two verdicts"
`
	repo, sha := monorepo(t, workflow)
	api := &threadAPI{tarball: policyArchive(t, repo, sha)}
	srv := api.start(t)
	r := runAct(t, repo, "pull_request", prPayload(sha, sha), srv.URL)
	if r.exit != 0 || !strings.Contains(r.log, "two reports, two verdicts") {
		t.Fatalf("two gate steps (exit %d):\n%s", r.exit, r.log)
	}
	reports := map[string]string{}
	for _, m := range regexp.MustCompile(`(search|faq) report: (\S+) verdict (\w+)`).FindAllStringSubmatch(r.log, -1) {
		reports[m[1]] = m[2] + " " + m[3]
	}
	if len(reports) != 2 || strings.Fields(reports["search"])[0] == strings.Fields(reports["faq"])[0] {
		t.Errorf("the two steps' report outputs: %v", reports)
	}
}
