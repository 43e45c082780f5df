package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
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

// fakeGitHub records what the action does to the API.
type fakeGitHub struct {
	mu            sync.Mutex
	comments      []string // bodies created
	edits         []string
	issues        []string // issue bodies created
	issueComments []string
	issueEdits    []string // bodies the drift issue was edited to
	existing      string   // body of an existing PR comment, if any
	openIssue     bool
	commentStatus int      // status for POST comments, 0 = 201
	tarball       []byte   // the archive served for any ref, nil = 404
	tarballRefs   []string // refs whose archive was asked for
	// tree is the commit's listing and blobs (nil: the tarball's own).
	tree *committree.Tree
	// pulls maps open PR numbers to their head commits; pullLists records
	// the head filters of list calls.
	pulls     map[int]string
	pullLists []string
}

func (g *fakeGitHub) server(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /repos/acme/rag/issues/42/comments", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.existing == "" {
			fmt.Fprint(w, `[]`)
			return
		}
		fmt.Fprintf(w, `[{"id":5,"body":%q,"user":{"login":"github-actions[bot]","type":"Bot"}}]`, g.existing)
	})
	mux.HandleFunc("POST /repos/acme/rag/issues/42/comments", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.commentStatus != 0 {
			w.WriteHeader(g.commentStatus)
			fmt.Fprint(w, `{"message":"Resource not accessible by integration"}`)
			return
		}
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		g.comments = append(g.comments, in.Body)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":6,"html_url":"https://example.test/pr/42#c6"}`)
	})
	mux.HandleFunc("PATCH /repos/acme/rag/issues/comments/5", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		g.edits = append(g.edits, in.Body)
		fmt.Fprint(w, `{"id":5,"html_url":"https://example.test/pr/42#c5"}`)
	})
	mux.HandleFunc("GET /repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.openIssue {
			fmt.Fprint(w, `[{"number":9,"user":{"login":"github-actions[bot]","id":41898282,"type":"Bot"}}]`)
			return
		}
		fmt.Fprint(w, `[]`)
	})
	mux.HandleFunc("POST /repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		g.issues = append(g.issues, in.Body)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"number":9,"html_url":"https://example.test/issues/9"}`)
	})
	mux.HandleFunc("POST /repos/acme/rag/issues/9/comments", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		g.issueComments = append(g.issueComments, in.Body)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":1}`)
	})
	mux.HandleFunc("PATCH /repos/acme/rag/issues/9", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		g.issueEdits = append(g.issueEdits, in.Body)
		fmt.Fprint(w, `{"number":9,"html_url":"https://example.test/issues/9"}`)
	})
	mux.HandleFunc("GET /repos/acme/rag/pulls", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.pullLists = append(g.pullLists, r.URL.Query().Get("state")+" "+r.URL.Query().Get("head"))
		var out []string
		for n, sha := range g.pulls {
			out = append(out, fmt.Sprintf(`{"number":%d,"head":{"sha":%q}}`, n, sha))
		}
		fmt.Fprintf(w, "[%s]", strings.Join(out, ","))
	})
	mux.HandleFunc("GET /repos/acme/rag/pulls/{n}", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		sha, ok := g.pulls[n]
		if !ok {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"Not Found"}`)
			return
		}
		fmt.Fprintf(w, `{"number":%d,"head":{"sha":%q}}`, n, sha)
	})
	// GitHub answers the tarball endpoint with a 302 to a signed download
	// link on another host, fetched without the token.
	mux.HandleFunc("GET /repos/acme/rag/tarball/{ref}", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.tarballRefs = append(g.tarballRefs, r.PathValue("ref"))
		if g.tarball == nil {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"Not Found"}`)
			return
		}
		w.Header().Set("Location", "http://"+r.Host+"/_codeload/acme/rag/legacy.tar.gz/"+r.PathValue("ref")+"?token=signed")
		w.WriteHeader(http.StatusFound)
	})
	listing := func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		ft := g.tree
		if ft == nil {
			ft = committree.FromTarGz(g.tarball)
		}
		ft.ServeGitHub(w, r)
	}
	mux.HandleFunc("GET /repos/acme/rag/git/trees/{sha}", listing)
	mux.HandleFunc("GET /repos/acme/rag/git/blobs/{sha}", listing)
	mux.HandleFunc("GET /_codeload/acme/rag/legacy.tar.gz/{ref}", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(g.tarball)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/_codeload/") {
			if r.Header.Get("Authorization") != "" {
				t.Errorf("the token was sent to the download link")
			}
		} else if r.Header.Get("Authorization") != "Bearer ghs_secret123" {
			t.Errorf("request without the token: %s %s", r.Method, r.URL)
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// actionEnv builds the environment of a Docker action step.
type actionEnv struct {
	vars map[string]string
	dir  string
}

func newActionEnv(t *testing.T, api string, eventName, payload string, inputs map[string]string) *actionEnv {
	t.Helper()
	dir := t.TempDir()
	ae := &actionEnv{dir: dir, vars: map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_API_URL":      api,
		"GITHUB_REPOSITORY":   "acme/rag",
		"GITHUB_EVENT_NAME":   eventName,
		"GITHUB_EVENT_PATH":   write(t, dir, "event.json", payload),
		"GITHUB_OUTPUT":       write(t, dir, "output", ""),
		"GITHUB_STEP_SUMMARY": write(t, dir, "summary.md", ""),
		"GITHUB_SHA":          "headsha0000000000",
		"RUNNER_TEMP":         dir,
		"INPUT_GITHUB-TOKEN":  "ghs_secret123",
		"GITHUB_WORKSPACE":    workspace(t),
	}}
	for k, v := range inputs {
		ae.vars["INPUT_"+strings.ToUpper(k)] = v
	}
	return ae
}

func (ae *actionEnv) run(t *testing.T) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"action"}, func(k string) string { return ae.vars[k] }, &out, &errb)
	if strings.Contains(out.String()+errb.String(), "ghs_secret123") && !strings.Contains(out.String(), "::add-mask::ghs_secret123") {
		t.Errorf("the token was printed")
	}
	return code, out.String(), errb.String()
}

func (ae *actionEnv) outputs(t *testing.T) map[string]string {
	t.Helper()
	data, _ := os.ReadFile(ae.vars["GITHUB_OUTPUT"])
	out := map[string]string{}
	re := regexp.MustCompile(`(?s)([\w-]+)<<(\S+)\n(.*?)\n(\S+)\n`)
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out[m[1]] = m[3]
	}
	return out
}

const prEvent = `{"number":42,"pull_request":{"number":42,"base":{"sha":"%s","ref":"main"},"head":{"sha":"headsha"}}}`

func TestActionPullRequestRegression(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	ws, base := frozenSetRepo(t)
	cfg := filepath.Join(ws, "frozen-set", "recallgate.toml")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{"config": cfg})
	ae.vars["GITHUB_WORKSPACE"] = ws
	code, out, errs := ae.run(t)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	o := ae.outputs(t)
	if o["verdict"] != "fail" || o["recall-base"] != "0.8333" || o["recall-head"] != "0.8103" || o["recall-delta"] != "-0.0230" || o["regressed"] != "q26,q16,q10" || o["improved"] != "q04,q07,q21" {
		t.Errorf("outputs %v", o)
	}
	if data, err := os.ReadFile(o["report"]); err != nil || !bytes.Contains(data, []byte(`"verdict": "fail"`)) {
		t.Errorf("report %s: %v", o["report"], err)
	}
	summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	// The gate is named by its config's path in the workspace.
	if !bytes.Contains(summary, []byte("### ❌ recallgate · frozen-set: fail")) {
		t.Errorf("summary %s", summary)
	}
	if len(g.comments) != 1 || !strings.HasPrefix(g.comments[0], "<!-- recallgate: frozen-set/recallgate.toml -->\n### ❌ recallgate · frozen-set: fail") || !strings.Contains(g.comments[0], "**Regressed (3)**") {
		t.Errorf("comments %q", g.comments)
	}
	if !strings.Contains(out, "::add-mask::ghs_secret123") {
		t.Error("token not masked")
	}
	if !regexp.MustCompile(`::warning file=frozen-set/queries\.jsonl,line=26,title=recallgate%3A query q26 regressed::recall@5 1\.000 → 0\.000; lost security/audit-log`).MatchString(out) {
		t.Errorf("no annotation on the eval set line:\n%s", out)
	}

	// A second push edits the same comment.
	g.existing = g.comments[0]
	if code, _, errs := ae.run(t); code != 1 || len(g.edits) != 1 || len(g.comments) != 1 {
		t.Errorf("second run: exit %d, %d edits, %d comments\n%s", code, len(g.edits), len(g.comments), errs)
	}
}

func TestActionForkPRCannotComment(t *testing.T) {
	g := &fakeGitHub{commentStatus: 403}
	srv := g.server(t)
	ws, base := frozenSetRepo(t)
	cfg := filepath.Join(ws, "frozen-set", "recallgate.toml")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{"config": cfg})
	ae.vars["GITHUB_WORKSPACE"] = ws
	code, out, _ := ae.run(t)
	if code != 1 || !strings.Contains(out, "::warning::PR comment not posted") {
		t.Errorf("exit %d (want the verdict's 1)\n%s", code, out)
	}
	summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	if !bytes.Contains(summary, []byte("recallgate · frozen-set: fail")) {
		t.Error("no job summary on a fork PR")
	}
}

func TestActionRunFilesAndNoFail(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	ws, base := frozenRunsRepo(t) // the base commit's config is the policy
	dir := filepath.Join(ws, "frozen-set")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{
		"working-directory": dir, "config": "recallgate.toml",
		"base-results": "runs/base.jsonl", "head-results": "runs/head.jsonl",
		"fail-on-regression": "false", "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = ws
	code, out, _ := ae.run(t)
	if code != 0 || !strings.Contains(out, "fail-on-regression is false") || len(g.comments) != 0 {
		t.Errorf("exit %d, comments %d\n%s", code, len(g.comments), out)
	}
	if ae.outputs(t)["verdict"] != "fail" {
		t.Error("the verdict output must still say fail")
	}
}

func TestActionOnChangeSkipsQuietPass(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	ws, base := frozenRunsRepo(t) // the base commit's config is the policy
	dir := filepath.Join(ws, "frozen-set")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{
		"working-directory": dir, "base-results": "runs/base.jsonl", "head-results": "runs/base.jsonl", "comment": "on-change",
	})
	ae.vars["GITHUB_WORKSPACE"] = ws
	if code, out, _ := ae.run(t); code != 0 || len(g.comments) != 0 {
		t.Errorf("exit %d, %d comments\n%s", code, len(g.comments), out)
	}
	g.existing = "<!-- recallgate: recallgate.toml -->\nold"
	if code, _, _ := ae.run(t); code != 0 || len(g.edits) != 1 {
		t.Errorf("an existing comment must be brought up to date: exit %d, %d edits", code, len(g.edits))
	}
}

// TestActionBaseTreeFromGit: one [retriever] in the config; the PR changes
// only a corpus document; the checkout has the base commit, so the base
// side runs in a git worktree of it and the regression shows.
func TestActionBaseTreeFromGit(t *testing.T) {
	f := newFixture(t, builtinConfig)
	f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
	f.commit("head: edit one document")
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{
		"working-directory": filepath.Join(f.dir, "rag"), "config": "recallgate.toml", "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	o := ae.outputs(t)
	if code != 1 || !strings.Contains(o["regressed"], "q26") || len(g.tarballRefs) != 0 {
		t.Errorf("exit %d outputs %v archive asked %v\n%s\n%s", code, o, g.tarballRefs, out, errs)
	}
	summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	// The commit is a code span: it copies as written (no zero-width space).
	if !bytes.Contains(summary, []byte("base side: the tree of commit `"+f.base[:12]+"` (git worktree)")) {
		t.Errorf("the summary does not say what the base side was:\n%s", summary)
	}
}

func TestActionDrift(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	// The workspace is a copy of frozen-set/: the history input is kept
	// inside it (the cache's path), as the job requires.
	project := t.TempDir()
	src, _ := filepath.Abs("../../frozen-set")
	dir := filepath.Join(project, "frozen-set")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	// The baseline is the base side's run: it records the base's retriever
	// table, not the head's. The drift compares all the same, fails and
	// opens the drift issue, its headline naming the change as the likely
	// cause and what the baseline (a saved run, no policy or commit) did
	// not record.
	hist := filepath.Join(project, ".recallgate-history", "history.jsonl")
	ae := newActionEnv(t, srv.URL, "schedule", `{}`, map[string]string{
		"working-directory": dir, "baseline": "runs/base.jsonl", "history": hist,
	})
	ae.vars["GITHUB_WORKSPACE"] = project
	code, out, errs := ae.run(t)
	if code != 1 || len(g.issues) != 1 || !strings.Contains(g.issues[0], "Nightly recallgate run on headsha0000") {
		t.Fatalf("exit %d, issues %d\n%s\n%s", code, len(g.issues), out, errs)
	}
	headline := ""
	for _, l := range strings.Split(strings.ReplaceAll(g.issues[0], "\u200b", ""), "\n") {
		if strings.HasPrefix(l, "### ") {
			headline = l
			break
		}
	}
	for _, want := range []string{"changed since the baseline (the likely cause): retriever ce71ff3f656f → f4a1c9cafddd", "the baseline was written by retrieve (or --save-runs): no policy or commit recorded, so a change of the corpus, policy and the commits since are not checked"} {
		if !strings.Contains(headline, want) {
			t.Errorf("drift issue headline lacks %q:\n%s", want, headline)
		}
	}
	// The next night, with accept-changed-inputs (which still runs and
	// changes nothing), fails alike and updates the same issue.
	g.openIssue = true
	ae.vars["INPUT_ACCEPT-CHANGED-INPUTS"] = "true"
	if code, out, errs := ae.run(t); code != 1 || len(g.issues) != 1 || len(g.issueEdits) != 1 || !strings.Contains(g.issueEdits[0], "changed since the baseline (the likely cause): retriever") {
		t.Fatalf("night 2: exit %d, issues %d, edits %d\n%s\n%s", code, len(g.issues), len(g.issueEdits), out, errs)
	}
	if !strings.Contains(g.issues[0], "baseline: "+filepath.Join(dir, "runs/base.jsonl")) {
		t.Errorf("drift issue body:\n%.1500s", g.issues[0])
	}
	delete(ae.vars, "INPUT_ACCEPT-CHANGED-INPUTS")
	// Against a baseline equal to today's head it passes, and notes that on the open issue.
	ae.vars["INPUT_BASELINE"] = "runs/head.jsonl"
	if code, out, _ := ae.run(t); code != 0 || len(g.issueComments) != 1 || len(g.issues) != 1 {
		t.Errorf("passing drift: exit %d, %d issue comments\n%s", code, len(g.issueComments), out)
	}
	delete(ae.vars, "INPUT_BASELINE")
	if code, _, errs := ae.run(t); code != 2 || !strings.Contains(errs, "needs the baseline input") {
		t.Errorf("drift without baseline: exit %d %s", code, errs)
	}
	// The history input: each night's run added, the error night with no value.
	data, _ := os.ReadFile(hist)
	if got := regexp.MustCompile(`"verdict":"([a-z]+)"`).FindAllStringSubmatch(string(data), -1); len(got) != 3 || got[0][1] != "fail" || got[1][1] != "pass" || got[2][1] != "error" ||
		!strings.Contains(string(data), `"verdict":"error","set":null,"candidates":null`) {
		t.Errorf("history:\n%s", data)
	}
}

func TestActionBadInputs(t *testing.T) {
	for in, want := range map[string]string{
		"mode":               "input mode must be pr, drift or auto",
		"comment":            "input comment must be always, on-change or never",
		"fail-on-regression": "input fail-on-regression must be true or false",
		"base-results":       "base-results and head-results go together",
	} {
		ae := newActionEnv(t, "http://127.0.0.1:1", "pull_request", `{}`, map[string]string{in: "bogus"})
		code, out, errs := ae.run(t)
		if code != 2 || !strings.Contains(out+errs, want) {
			t.Errorf("%s: exit %d\n%s%s", in, code, out, errs)
		}
		// Later steps and the summary see the error, never nothing.
		summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
		if o := ae.outputs(t); o["verdict"] != "error" || o["report"] == "" || !bytes.Contains(summary, []byte("stage usage")) {
			t.Errorf("%s: outputs %v, summary:\n%s", in, o, summary)
		}
	}
}

func TestCommentCommand(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	dir := t.TempDir()
	rep := filepath.Join(dir, "report.json")
	code, _, errs := rg(t, "compare", "--config", "../../frozen-set/recallgate.toml", "--base", "../../frozen-set/runs/base.jsonl", "--head", "../../frozen-set/runs/head.jsonl", "--format", "json", "--out", rep)
	if code != 1 {
		t.Fatalf("compare: %d %s", code, errs)
	}
	env := map[string]string{"GITHUB_TOKEN": "ghs_secret123", "GITHUB_REPOSITORY": "acme/rag", "GITHUB_API_URL": srv.URL}
	var out, eb bytes.Buffer
	code = run(context.Background(), []string{"comment", "--report", rep, "--pr", "42"}, func(k string) string { return env[k] }, &out, &eb)
	if code != 0 || len(g.comments) != 1 || !strings.Contains(g.comments[0], "**Regressed (3)**") {
		t.Errorf("exit %d %s %s comments %d", code, out.String(), eb.String(), len(g.comments))
	}
}

// workspace is the repository root, as GITHUB_WORKSPACE is in a job.
// frozenSetRepo is a git repository holding a copy of frozen-set/ (its
// two-table config included; edit changes its queries.jsonl) committed as
// the base of a pull request that changes nothing: the base side runs in
// that commit's tree.
func frozenSetRepo(t *testing.T, edit ...func(queries string) string) (dir, base string) {
	t.Helper()
	f := newFixture(t, builtinConfig)
	src, _ := filepath.Abs("../../frozen-set")
	for _, name := range []string{"recallgate.toml", "queries.jsonl"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		body := string(data)
		for _, e := range edit {
			if name == "queries.jsonl" {
				body = e(body)
			}
		}
		f.put(filepath.Join("frozen-set", name), body)
	}
	if err := os.Rename(filepath.Join(f.dir, "rag", "corpus"), filepath.Join(f.dir, "frozen-set", "corpus")); err != nil {
		t.Fatal(err)
	}
	return f.dir, f.commit("frozen set")
}

func workspace(t *testing.T) string {
	w, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// archiveFixture turns the fixture into a checkout without history (as
// an image without git, or a shallow clone, sees it) and returns the base
// commit's archive the way GitHub serves it.
func archiveFixture(t *testing.T, f *fixture) []byte {
	t.Helper()
	data, err := exec.Command("git", "-C", f.dir, "archive", "--format=tar.gz", "--prefix=acme-rag-"+f.base[:7]+"/", f.base).Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(f.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestActionBaseTreeFromArchive: no git history in the workspace; the base
// commit's tree comes from the REST archive; merge_group events carry the
// base commit too, and get no PR comment.
func TestActionBaseTreeFromArchive(t *testing.T) {
	f := newFixture(t, builtinConfig)
	g := &fakeGitHub{tarball: archiveFixture(t, f)}
	f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "merge_group", fmt.Sprintf(`{"merge_group":{"base_sha":%q,"head_sha":"mghead"}}`, f.base), map[string]string{
		"working-directory": filepath.Join(f.dir, "rag"),
	})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	if code != 1 || len(g.tarballRefs) != 1 || g.tarballRefs[0] != f.base || !strings.Contains(ae.outputs(t)["regressed"], "q26") || len(g.comments) != 0 {
		t.Errorf("exit %d refs %v outputs %v comments %d\n%s\n%s", code, g.tarballRefs, ae.outputs(t), len(g.comments), out, errs)
	}
	left, _ := filepath.Glob(filepath.Join(ae.vars["RUNNER_TEMP"], "recallgate-base-*"))
	if len(left) != 0 {
		t.Errorf("the base tree was left behind: %v", left)
	}
}

// TestActionBaseTreeRefusals: an unreachable base commit and an archive
// that tries to leave its folder both stop the run with exit 3.
func TestActionBaseTreeRefusals(t *testing.T) {
	f := newFixture(t, builtinConfig)
	archiveFixture(t, f)
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), map[string]string{
		"working-directory": filepath.Join(f.dir, "rag"), "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	if code != 3 || !strings.Contains(out, "::error::base commit") || !strings.Contains(errs, "fetch-depth: 0") || !strings.Contains(errs, "contents: read") {
		t.Errorf("no history, archive refused: exit %d\n%s\n%s", code, out, errs)
	}
	delete(ae.vars, "INPUT_GITHUB-TOKEN")
	if code, _, errs := ae.run(t); code != 3 || !strings.Contains(errs, "no GitHub token") || !strings.Contains(errs, "fetch-depth: 0") {
		t.Errorf("no history, no token: exit %d\n%s", code, errs)
	}
	ae.vars["INPUT_GITHUB-TOKEN"] = "ghs_secret123"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "acme-rag-1/../../escaped", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("x"))
	tw.Close()
	zw.Close()
	g.tarball = buf.Bytes()
	if code, _, errs := ae.run(t); code != 3 || !strings.Contains(errs, "archive entry") || !strings.Contains(errs, "refused") {
		t.Errorf("escaping archive: exit %d\n%s", code, errs)
	}
}

// copyDemo copies the demo corpus and queries into dir (a test workspace)
// and returns their paths.
func copyDemo(t *testing.T, dir string) (corpus, queries string) {
	t.Helper()
	src, _ := filepath.Abs("../../frozen-set")
	err := filepath.WalkDir(filepath.Join(src, "corpus"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(t, filepath.Join(dir, "demo"), rel, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "demo", "corpus"), write(t, filepath.Join(dir, "demo"), "queries.jsonl", string(data))
}

func TestActionRefusesPathsOutsideWorkspace(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	ws := t.TempDir()
	write(t, ws, "recallgate.toml", "set = \"/etc/passwd\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, "b"), map[string]string{"working-directory": ws})
	ae.vars["GITHUB_WORKSPACE"] = ws
	code, out, errs := ae.run(t)
	if code != 2 || !strings.Contains(out+errs, "outside the workspace") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	os.Symlink("/etc", filepath.Join(ws, "link"))
	write(t, ws, "recallgate.toml", "set = \"link/hostname\"\n[retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n")
	if code, out, errs := ae.run(t); code != 2 || !strings.Contains(out+errs, "outside the workspace") {
		t.Errorf("symlink: exit %d\n%s%s", code, out, errs)
	}
}

// TestNativeActionPythonRetriever is the native path (native/action.yml):
// recallgate runs on the runner beside the job's Python, reads its inputs
// with underscores (what a shell step can export), the checkout has
// history, and the PR changes only the retriever's chunking script.
func TestNativeActionPythonRetriever(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f := newFixture(t, commandConfig)
	f.edit("rag/retriever.py", "MAX_WORDS = 400", "MAX_WORDS = 3")
	f.commit("head: shorter chunks")
	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, f.base), nil)
	delete(ae.vars, "INPUT_GITHUB-TOKEN")
	for k, v := range map[string]string{
		"INPUT_CONFIG": "rag/recallgate.toml", "INPUT_GITHUB_TOKEN": "ghs_secret123", "INPUT_COMMENT": "always",
		"INPUT_FAIL_ON_REGRESSION": "false", "INPUT_MODE": "auto", "INPUT_WORKING_DIRECTORY": f.dir,
	} {
		ae.vars[k] = v
	}
	ae.vars["GITHUB_WORKSPACE"] = f.dir
	code, out, errs := ae.run(t)
	o := ae.outputs(t)
	if code != 0 || o["verdict"] != "fail" || !strings.Contains(o["regressed"], "q26") {
		t.Fatalf("exit %d (fail-on-regression false) outputs %v\n%s\n%s", code, o, out, errs)
	}
	if len(g.comments) != 1 || !strings.Contains(g.comments[0], "(git worktree)") || len(g.tarballRefs) != 0 {
		t.Errorf("comments %q, archive asked %v", g.comments, g.tarballRefs)
	}
}

// TestActionRefusesIdenticalSides: an event with no base commit and one
// [retriever] would compare the config with itself; the action stops with
// exit 2 and the fix, unless allow-identical asks for the self-check.
func TestActionRefusesIdenticalSides(t *testing.T) {
	f := newFixture(t, builtinConfig)
	g := &fakeGitHub{}
	srv := g.server(t)
	for _, tt := range []struct {
		allow string
		code  int
		want  string
	}{
		{"", 2, "base and head are the same [retriever] in the same tree, so this gate cannot fail: the event has no base commit"},
		{"true", 0, "cannot fail (allowed)"},
		{"maybe", 2, "input allow-identical must be true or false"},
	} {
		ae := newActionEnv(t, srv.URL, "push", `{}`, map[string]string{
			"working-directory": filepath.Join(f.dir, "rag"), "config": "recallgate.toml", "comment": "never", "mode": "pr", "allow-identical": tt.allow,
		})
		ae.vars["GITHUB_WORKSPACE"] = f.dir
		code, out, errs := ae.run(t)
		if code != tt.code || !strings.Contains(out+errs, tt.want) {
			t.Errorf("allow-identical %q: exit %d, want %d and %q\n%s\n%s", tt.allow, code, tt.code, tt.want, out, errs)
		}
	}
}

// TestActionMissingRunnerFiles: without GITHUB_OUTPUT (or with runner
// files that cannot be written) the action warns, names the file, and
// keeps its verdict's exit code: no crash.
func TestActionMissingRunnerFiles(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	ws, base := frozenRunsRepo(t) // the base commit's config is the policy
	dir := filepath.Join(ws, "frozen-set")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{
		"working-directory": dir, "base-results": "runs/base.jsonl", "head-results": "runs/head.jsonl", "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = ws
	delete(ae.vars, "GITHUB_OUTPUT")
	code, out, errs := ae.run(t)
	if code != 1 || !strings.Contains(out, "::warning::GITHUB_OUTPUT is not set") || strings.Contains(errs, "panic") {
		t.Errorf("no GITHUB_OUTPUT: exit %d\n%s\n%s", code, out, errs)
	}
	ae.vars["GITHUB_OUTPUT"] = filepath.Join(ae.dir, "no", "such", "folder", "output")
	ae.vars["GITHUB_STEP_SUMMARY"] = filepath.Join(ae.dir, "no", "summary.md")
	code, out, errs = ae.run(t)
	if code != 1 || !strings.Contains(out, "::warning::GITHUB_OUTPUT cannot be written") || !strings.Contains(out, "::warning::GITHUB_STEP_SUMMARY cannot be written") {
		t.Errorf("unwritable runner files: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestActionMissingProgramInImage: in the Docker action a command
// retriever whose program the image lacks stops the run before any
// download or retrieval, with the fix: the native action.
func TestActionMissingProgramInImage(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("../../frozen-set/queries.jsonl")
	data, _ := os.ReadFile(src)
	write(t, dir, "queries.jsonl", string(data))
	cfg := write(t, dir, "recallgate.toml", "set = \"queries.jsonl\"\n[retriever]\ntype = \"command\"\ncommand = [\"python3-not-in-the-image\", \"search.py\"]\n")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, "0123456789abcdef0123456789abcdef01234567"), map[string]string{"config": cfg, "comment": "never"})
	ae.vars["GITHUB_WORKSPACE"] = dir
	ae.vars["RECALLGATE_DOCKER_ACTION"] = "1"
	code, out, errs := ae.run(t)
	if code != 3 || !strings.Contains(errs+out, `"python3-not-in-the-image", which is not installed here`) || !strings.Contains(errs+out, "recallgate/recallgate/native@v1") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	if len(g.tarballRefs) != 0 {
		t.Errorf("the base commit was downloaded before the missing program was noticed: %v", g.tarballRefs)
	}
}
