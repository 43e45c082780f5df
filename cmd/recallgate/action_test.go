package main

import (
	"bytes"
	"context"
	"encoding/base64"
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
)

// fakeGitHub records what the action does to the API.
type fakeGitHub struct {
	mu            sync.Mutex
	comments      []string // bodies created
	edits         []string
	issues        []string // issue bodies created
	issueComments []string
	existing      string // body of an existing PR comment, if any
	openIssue     bool
	commentStatus int // status for POST comments, 0 = 201
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
		fmt.Fprintf(w, `[{"id":5,"body":%q}]`, g.existing)
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
			fmt.Fprint(w, `[{"number":9}]`)
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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ghs_secret123" {
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
	cfg, _ := filepath.Abs("../../frozen-set/recallgate.toml")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, "basesha"), map[string]string{"config": cfg})
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
	if !bytes.Contains(summary, []byte("### ❌ recallgate: fail")) {
		t.Errorf("summary %s", summary)
	}
	if len(g.comments) != 1 || !strings.HasPrefix(g.comments[0], "<!-- recallgate: "+cfg+" -->") || !strings.Contains(g.comments[0], "**Regressed (3)**") {
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
	cfg, _ := filepath.Abs("../../frozen-set/recallgate.toml")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, "basesha"), map[string]string{"config": cfg})
	code, out, _ := ae.run(t)
	if code != 1 || !strings.Contains(out, "::warning::PR comment not posted") {
		t.Errorf("exit %d (want the verdict's 1)\n%s", code, out)
	}
	summary, _ := os.ReadFile(ae.vars["GITHUB_STEP_SUMMARY"])
	if !bytes.Contains(summary, []byte("recallgate: fail")) {
		t.Error("no job summary on a fork PR")
	}
}

func TestActionRunFilesAndNoFail(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	dir, _ := filepath.Abs("../../frozen-set")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, "basesha"), map[string]string{
		"working-directory": dir, "config": "recallgate.toml",
		"base-results": "runs/base.jsonl", "head-results": "runs/head.jsonl",
		"fail-on-regression": "false", "comment": "never",
	})
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
	dir, _ := filepath.Abs("../../frozen-set")
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, "basesha"), map[string]string{
		"working-directory": dir, "base-results": "runs/base.jsonl", "head-results": "runs/base.jsonl", "comment": "on-change",
	})
	if code, out, _ := ae.run(t); code != 0 || len(g.comments) != 0 {
		t.Errorf("exit %d, %d comments\n%s", code, len(g.comments), out)
	}
	g.existing = "<!-- recallgate: recallgate.toml -->\nold"
	if code, _, _ := ae.run(t); code != 0 || len(g.edits) != 1 {
		t.Errorf("an existing comment must be brought up to date: exit %d, %d edits", code, len(g.edits))
	}
}

// TestActionBaseConfigFromGit: one [retriever] in the config; the base side
// is the same file at the PR's base commit, read from the local git history.
func TestActionBaseConfigFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	corpus, queries := copyDemo(t, repo)
	cfgText := func(extra string) string {
		return fmt.Sprintf("set = %q\n[depth]\ncandidates = 5\ncontext = 3\n[retriever]\ntype = \"builtin\"\ncorpus = %q\n%s", queries, corpus, extra)
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	write(t, repo, "rag/recallgate.toml", cfgText("title_boost = 2.0\n"))
	git("add", ".")
	git("commit", "-qm", "base")
	base := git("rev-parse", "HEAD")
	write(t, repo, "rag/recallgate.toml", cfgText("chunk_words = 12\n"))

	g := &fakeGitHub{}
	srv := g.server(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{
		"working-directory": filepath.Join(repo, "rag"), "config": "recallgate.toml", "comment": "never",
	})
	ae.vars["GITHUB_WORKSPACE"] = repo
	code, out, errs := ae.run(t)
	o := ae.outputs(t)
	if code != 1 || o["regressed"] != "q26,q16,q10" || o["improved"] != "q04,q07,q21" {
		t.Errorf("exit %d outputs %v\n%s\n%s", code, o, out, errs)
	}
}

func TestActionDrift(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	dir, _ := filepath.Abs("../../frozen-set")
	// The baseline is the base side's run; the config's head has drifted from it.
	ae := newActionEnv(t, srv.URL, "schedule", `{}`, map[string]string{
		"working-directory": dir, "baseline": "runs/base.jsonl",
	})
	code, out, errs := ae.run(t)
	if code != 1 || len(g.issues) != 1 || !strings.Contains(g.issues[0], "Nightly recallgate run on headsha0000") {
		t.Fatalf("exit %d, issues %d\n%s\n%s", code, len(g.issues), out, errs)
	}
	// Against a baseline equal to today's head it passes, and notes that on the open issue.
	g.openIssue = true
	ae.vars["INPUT_BASELINE"] = "runs/head.jsonl"
	if code, out, _ := ae.run(t); code != 0 || len(g.issueComments) != 1 || len(g.issues) != 1 {
		t.Errorf("passing drift: exit %d, %d issue comments\n%s", code, len(g.issueComments), out)
	}
	delete(ae.vars, "INPUT_BASELINE")
	if code, _, errs := ae.run(t); code != 2 || !strings.Contains(errs, "needs the baseline input") {
		t.Errorf("drift without baseline: exit %d %s", code, errs)
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
func workspace(t *testing.T) string {
	w, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestActionBaseConfigFromContentsAPI: without git history, the base
// commit's config comes from the contents API; merge_group events carry the
// base commit too, and get no PR comment.
func TestActionBaseConfigFromContentsAPI(t *testing.T) {
	ws := t.TempDir() // not a git checkout
	corpus, queries := copyDemo(t, ws)
	cfgText := func(extra string) string {
		return fmt.Sprintf("set = %q\n[depth]\ncandidates = 5\ncontext = 3\n[retriever]\ntype = \"builtin\"\ncorpus = %q\n%s", queries, corpus, extra)
	}
	write(t, ws, "rag/recallgate.toml", cfgText("chunk_words = 12\n"))
	g := &fakeGitHub{}
	mux := http.NewServeMux()
	var asked string
	mux.HandleFunc("GET /repos/acme/rag/contents/rag/recallgate.toml", func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.Query().Get("ref")
		fmt.Fprintf(w, `{"type":"file","encoding":"base64","content":%q}`, base64.StdEncoding.EncodeToString([]byte(cfgText("title_boost = 2.0\n"))))
	})
	mux.Handle("/", g.server(t).Config.Handler)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ae := newActionEnv(t, srv.URL, "merge_group", `{"merge_group":{"base_sha":"mgbase","head_sha":"mghead"}}`, map[string]string{
		"working-directory": filepath.Join(ws, "rag"),
	})
	ae.vars["GITHUB_WORKSPACE"] = ws
	code, out, errs := ae.run(t)
	if code != 1 || asked != "mgbase" || ae.outputs(t)["regressed"] != "q26,q16,q10" || len(g.comments) != 0 {
		t.Errorf("exit %d ref %q outputs %v comments %d\n%s\n%s", code, asked, ae.outputs(t), len(g.comments), out, errs)
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

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(fmt.Sprintf(prEvent, "abc")))
	f.Add([]byte(`{"merge_group":{"base_sha":"a","head_sha":"b"}}`))
	f.Add([]byte(`{"pull_request":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := parseEvent(data, "event.json")
		if err != nil {
			return
		}
		_ = ev.baseSHA()
		if ev.prNumber() < 0 {
			t.Fatal("negative PR number accepted")
		}
	})
}
