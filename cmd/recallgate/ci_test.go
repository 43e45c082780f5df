package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
	"github.com/recallgate/recallgate/internal/committree"
)

const glToken = "glpat-s3cretvalue"

// fakeGitLab is a GitLab API on 127.0.0.1 following GitLab's documented
// shapes: notes with author, X-Next-Page pagination, issues with labels,
// the archive endpoint, {"message": "401 Unauthorized"} refusals.
type fakeGitLab struct {
	mu        sync.Mutex
	notes     []map[string]any // the merge request's notes, in order
	issues    []map[string]any
	issueNote []string
	archive   []byte // served for any sha; nil = 404
	archived  []string
	// tree is the commit's listing and blobs (nil: the archive's own).
	tree     *committree.Tree
	userCode int // GET /user status, 0 = 200
}

func (g *fakeGitLab) server(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	const bot = `{"id":900,"username":"project_42_bot_1","bot":true}`
	mux.HandleFunc("GET /api/v4/user", func(w http.ResponseWriter, r *http.Request) {
		if g.userCode != 0 {
			w.WriteHeader(g.userCode)
			fmt.Fprintf(w, `{"message":"%d %s"}`, g.userCode, http.StatusText(g.userCode))
			return
		}
		fmt.Fprint(w, bot)
	})
	mux.HandleFunc("GET /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		// One note a page, so the sticky one is always past the first.
		page := 1
		fmt.Sscan(r.URL.Query().Get("page"), &page)
		if page < len(g.notes) {
			w.Header().Set("X-Next-Page", fmt.Sprint(page+1))
		}
		out := []any{}
		if page >= 1 && page <= len(g.notes) {
			out = append(out, g.notes[page-1])
		}
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("POST /api/v4/projects/42/merge_requests/7/notes", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		n := map[string]any{"id": 100 + len(g.notes), "body": in.Body, "system": false, "author": map[string]any{"id": 900, "username": "project_42_bot_1"}}
		g.notes = append(g.notes, n)
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(n)
	})
	mux.HandleFunc("PUT /api/v4/projects/42/merge_requests/7/notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		for _, n := range g.notes {
			if fmt.Sprint(n["id"]) == r.PathValue("id") {
				if fmt.Sprint(n["author"].(map[string]any)["id"]) != "900" {
					t.Errorf("edited note %s of another author", r.PathValue("id"))
				}
				n["body"] = in.Body
				json.NewEncoder(w).Encode(n)
				return
			}
		}
		w.WriteHeader(404)
		fmt.Fprint(w, `{"message":"404 Not found"}`)
	})
	mux.HandleFunc("GET /api/v4/projects/42/issues", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("labels") != "retrieval-drift" || r.URL.Query().Get("state") != "opened" {
			t.Errorf("issues listed with %v", r.URL.Query())
		}
		json.NewEncoder(w).Encode(g.issues)
	})
	mux.HandleFunc("POST /api/v4/projects/42/issues", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		json.NewDecoder(r.Body).Decode(&in)
		is := map[string]any{"id": 1, "iid": len(g.issues) + 1, "state": "opened", "title": in["title"], "description": in["description"],
			"labels": strings.Split(fmt.Sprint(in["labels"]), ","), "author": map[string]any{"id": 900, "username": "project_42_bot_1"},
			"web_url": fmt.Sprintf("https://gitlab.example/acme/rag/-/issues/%d", len(g.issues)+1)}
		g.issues = append(g.issues, is)
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(is)
	})
	mux.HandleFunc("PUT /api/v4/projects/42/issues/{iid}", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		json.NewDecoder(r.Body).Decode(&in)
		for _, is := range g.issues {
			if fmt.Sprint(is["iid"]) == r.PathValue("iid") {
				is["description"] = in["description"]
				json.NewEncoder(w).Encode(is)
				return
			}
		}
		w.WriteHeader(404)
	})
	mux.HandleFunc("POST /api/v4/projects/42/issues/{iid}/notes", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Body string }
		json.NewDecoder(r.Body).Decode(&in)
		g.issueNote = append(g.issueNote, in.Body)
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":5}`)
	})
	listing := func(w http.ResponseWriter, r *http.Request) {
		ft := g.tree
		if ft == nil {
			ft = committree.FromTarGz(g.archive)
		}
		ft.ServeGitLab(w, r)
	}
	mux.HandleFunc("GET /api/v4/projects/42/repository/tree", listing)
	mux.HandleFunc("GET /api/v4/projects/42/repository/blobs/{sha}/raw", listing)
	mux.HandleFunc("GET /api/v4/projects/42/repository/archive.tar.gz", func(w http.ResponseWriter, r *http.Request) {
		g.archived = append(g.archived, r.URL.Query().Get("sha"))
		if g.archive == nil {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"404 Not Found"}`)
			return
		}
		w.Write(g.archive)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		defer g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("PRIVATE-TOKEN") != glToken {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"message":"401 Unauthorized"}`)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// glJob is a GitLab job's variables for a merge request pipeline of
// merge request !7 whose base commit is base, in the checkout dir.
func glJob(api, dir, base string) map[string]string {
	return map[string]string{
		"GITLAB_CI": "true", "CI_API_V4_URL": api + "/api/v4", "CI_PROJECT_ID": "42", "CI_PROJECT_URL": "https://gitlab.example/acme/rag",
		"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "7", "CI_MERGE_REQUEST_EVENT_TYPE": "detached",
		"CI_MERGE_REQUEST_DIFF_BASE_SHA": base, "CI_COMMIT_SHA": "headsha0000000000", "CI_PROJECT_DIR": dir, "CI_JOB_NAME": "retrieval-gate",
		"CI_JOB_TOKEN": "job-token", "RECALLGATE_GITLAB_TOKEN": glToken,
	}
}

// runCI runs `recallgate ci` in dir with the variables, as a GitLab job
// starts in CI_PROJECT_DIR.
func runCI(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"ci"}, args...), func(k string) string { return vars[k] }, &out, &errb)
	if strings.Contains(out.String()+errb.String(), glToken) {
		t.Errorf("the token was printed")
	}
	return code, out.String(), errb.String()
}

func TestCIGitLabMergeRequestNoteAndJUnit(t *testing.T) {
	g := &fakeGitLab{}
	srv := g.server(t)
	ws, base := frozenSetRepo(t, func(queries string) string {
		// The eval set's text reaches the note: GitLab's references in it stay inert.
		return strings.Replace(queries, "who deleted a queue", `who deleted !12 ~bug %v1 &3 $4`, 1)
	})
	junit := filepath.Join(t.TempDir(), "recallgate-junit.xml")
	vars := glJob(srv.URL, ws, base)
	vars["RECALLGATE_CONFIG"] = filepath.Join(ws, "frozen-set", "recallgate.toml")
	vars["RECALLGATE_JUNIT"] = junit
	// A person quotes the gate's marker first: that note is never taken.
	marker := "<!-- recallgate: frozen-set/recallgate.toml -->"
	g.notes = append(g.notes, map[string]any{"id": 50, "body": marker + "\nfake pass", "author": map[string]any{"id": 7, "username": "mallory"}})
	code, out, errs := runCI(t, vars)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errs)
	}
	if len(g.notes) != 2 || g.notes[0]["body"] != marker+"\nfake pass" {
		t.Fatalf("notes %v", g.notes)
	}
	note := g.notes[1]["body"].(string)
	if !strings.HasPrefix(note, marker+"\n### ❌ recallgate · frozen-set: fail") || !strings.Contains(note, "**Regressed (3)**") {
		t.Errorf("note:\n%.600s", note)
	}
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInertGitLab(t, note, `who deleted !12 ~bug %v1 &3 $4`) })
	if !strings.Contains(note, "who deleted &#33;\u200b12 &#126;\u200bbug %\u200bv1 &amp;\u200b3 &#36;\u200b4") {
		t.Errorf("GitLab references in the eval set's text are live in the note:\n%s", note)
	}
	if !strings.Contains(errs, "frozen-set/queries.jsonl:26: query q26 regressed: recall@5 1.000 → 0.000") {
		t.Errorf("no log line for the regressed query:\n%s", errs)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !bytes.Contains(x, []byte("<failure")) || !bytes.Contains(x, []byte(`name="q26"`)) {
		t.Errorf("JUnit report: %v\n%.800s", err, x)
	}
	if _, err := os.Stat(filepath.Join(ws, ".recallgate", "recallgate-report-retrieval-gate-frozen-set.json")); err != nil {
		t.Errorf("JSON report for artifacts: %v", err)
	}
	// The second pipeline edits the same note.
	if code, _, errs := runCI(t, vars); code != 1 || len(g.notes) != 2 || !strings.HasPrefix(g.notes[1]["body"].(string), marker) {
		t.Errorf("second run: exit %d, %d notes\n%s", code, len(g.notes), errs)
	}
	// A pipeline that cannot run (a base commit neither the clone nor the
	// archive has: exit 3; no base commit at all: exit 2) edits the note and
	// the JUnit report to say so: no stale fail (or pass) stays up.
	for _, tc := range []struct {
		base string
		code int
	}{{"0123456789abcdef0123456789abcdef01234567", 3}, {"", 2}} {
		vars["CI_MERGE_REQUEST_DIFF_BASE_SHA"] = tc.base
		code, _, errs := runCI(t, vars)
		body := g.notes[1]["body"].(string)
		x, _ := os.ReadFile(junit)
		if code != tc.code || len(g.notes) != 2 || !strings.HasPrefix(body, marker+"\n### ⚠️ recallgate") || !strings.Contains(body, "could not run") || bytes.Contains(x, []byte(`name="q26"`)) {
			t.Errorf("base %q: exit %d, %d notes, note:\n%.400s\njunit:\n%.400s\n%s", tc.base, code, len(g.notes), body, x, errs)
		}
	}
}

// TestCIGitLabBaseFromArchive: a clone without the base commit (GitLab
// clones shallow) gets the base tree from the archive API; without a token
// the error names GIT_DEPTH: 0 and exits 3.
func TestCIGitLabBaseFromArchive(t *testing.T) {
	f := newFixture(t, builtinConfig)
	g := &fakeGitLab{archive: archiveFixture(t, f)}
	f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
	srv := g.server(t)
	vars := glJob(srv.URL, f.dir, f.base)
	vars["RECALLGATE_WORKING_DIRECTORY"] = filepath.Join(f.dir, "rag")
	vars["RECALLGATE_COMMENT"] = "never"
	vars["RECALLGATE_JUNIT"] = filepath.Join(t.TempDir(), "j.xml")
	hist := filepath.Join(t.TempDir(), "history.jsonl")
	vars["RECALLGATE_HISTORY"] = hist
	code, out, errs := runCI(t, vars)
	if code != 1 || len(g.archived) != 1 || g.archived[0] != f.base || !strings.Contains(errs, "query q26 regressed") {
		t.Errorf("exit %d, archives %v\n%s\n%s", code, g.archived, out, errs)
	}
	delete(vars, "RECALLGATE_GITLAB_TOKEN")
	code, _, errs = runCI(t, vars)
	if code != 3 || !strings.Contains(errs, "GIT_DEPTH: 0") || !strings.Contains(errs, "not reachable") || strings.Contains(errs, "actions/checkout") {
		t.Errorf("no token: exit %d\n%s", code, errs)
	}
}

// TestCIGitLabRefusedToken: a token GitLab refuses (401: no api scope,
// revoked) and a job with only CI_JOB_TOKEN: a warning that says why, the
// verdict and exit code unchanged.
func TestCIGitLabRefusedToken(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(g *fakeGitLab, vars map[string]string)
		want string
	}{
		{"401", func(g *fakeGitLab, vars map[string]string) { vars["RECALLGATE_GITLAB_TOKEN"] = "glpat-wrong" }, "GitLab answered 401"},
		{"403", func(g *fakeGitLab, vars map[string]string) { g.userCode = 403 }, "GitLab answered 403"},
		{"job token only", func(g *fakeGitLab, vars map[string]string) { delete(vars, "RECALLGATE_GITLAB_TOKEN") }, "CI_JOB_TOKEN cannot write merge request notes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &fakeGitLab{}
			srv := g.server(t)
			ws, base := frozenSetRepo(t)
			vars := glJob(srv.URL, ws, base)
			vars["RECALLGATE_CONFIG"] = filepath.Join(ws, "frozen-set", "recallgate.toml")
			vars["RECALLGATE_JUNIT"] = filepath.Join(t.TempDir(), "j.xml")
			tc.edit(g, vars)
			code, out, errs := runCI(t, vars)
			if code != 1 || len(g.notes) != 0 || !strings.Contains(errs, "warning:") || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, %d notes\n%s\n%s", code, len(g.notes), out, errs)
			}
		})
	}
}

// TestCIGitLabBadInput: a merge request pipeline without its base commit,
// a bad input, and neither CI: exit 2 with a message naming the variable.
func TestCIGitLabBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(vars map[string]string)
		want string
	}{
		{"no diff base", func(v map[string]string) { delete(v, "CI_MERGE_REQUEST_DIFF_BASE_SHA") }, "CI_MERGE_REQUEST_DIFF_BASE_SHA: not set in a merge_request_event pipeline"},
		{"bad mode", func(v map[string]string) { v["RECALLGATE_MODE"] = "nightly" }, "RECALLGATE_MODE (--mode) must be pr, drift or auto"},
		{"no CI", func(v map[string]string) { delete(v, "GITLAB_CI") }, "GITLAB_CI=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := glJob("http://127.0.0.1:1", t.TempDir(), "base")
			tc.edit(vars)
			code, out, errs := runCI(t, vars)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 2 with %q\n%s\n%s", code, tc.want, out, errs)
			}
		})
	}
}

// TestCIGitLabDrift: a schedule pipeline opens one drift issue with the
// label, and notes the next night's passing run on it.
func TestCIGitLabDrift(t *testing.T) {
	g := &fakeGitLab{}
	srv := g.server(t)
	// The project is a copy of frozen-set/: the job writes .recallgate/ into its project directory.
	project := t.TempDir()
	src, _ := filepath.Abs("../../frozen-set")
	dir := filepath.Join(project, "frozen-set")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	vars := glJob(srv.URL, project, "")
	vars["CI_PIPELINE_SOURCE"], vars["CI_MERGE_REQUEST_IID"] = "schedule", ""
	vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_BASELINE"] = dir, "runs/base.jsonl"
	vars["RECALLGATE_JUNIT"] = filepath.Join(t.TempDir(), "j.xml")
	// runs/base.jsonl records the base's retriever table, not the head's:
	// compared all the same, the headline naming the change as the likely
	// cause. The history is kept in the project directory (the cache's
	// path): the job refuses one outside it.
	hist := filepath.Join(project, ".recallgate-history", "history.jsonl")
	vars["RECALLGATE_HISTORY"] = hist
	code, out, errs := runCI(t, vars)
	if code != 1 || len(g.issues) != 1 || !strings.Contains(fmt.Sprint(g.issues[0]["description"]), "changed since the baseline (the likely cause): retriever ce71ff3f656f → f4a1c9cafddd") || !strings.Contains(fmt.Sprint(g.issues[0]["description"]), "Nightly recallgate run on headsha0000") ||
		fmt.Sprint(g.issues[0]["labels"]) != "[retrieval-drift]" {
		t.Fatalf("exit %d, issues %v\n%s\n%s", code, g.issues, out, errs)
	}
	// RECALLGATE_ACCEPT_CHANGED_INPUTS (and the flag over it) still run
	// and change nothing: the next night fails alike, on the same issue.
	vars["RECALLGATE_ACCEPT_CHANGED_INPUTS"] = "true"
	if code, out, errs := runCI(t, vars, "--accept-changed-inputs", "false"); code != 1 || len(g.issues) != 1 {
		t.Fatalf("accept-changed-inputs set: exit %d, %d issues\n%s\n%s", code, len(g.issues), out, errs)
	}
	vars["RECALLGATE_BASELINE"] = "runs/head.jsonl"
	if code, out, _ := runCI(t, vars); code != 0 || len(g.issues) != 1 || len(g.issueNote) != 1 || !strings.Contains(g.issueNote[0], "passes against the baseline again") {
		t.Errorf("passing night: exit %d, %d issues, notes %q\n%s", code, len(g.issues), g.issueNote, out)
	}
	// RECALLGATE_HISTORY: the nights added, in order (the second failing
	// night is the first's run again: not added twice).
	if data, _ := os.ReadFile(hist); strings.Count(string(data), "\n") != 2 || !strings.Contains(strings.SplitN(string(data), "\n", 2)[0], `"verdict":"fail"`) || !strings.Contains(string(data), `"verdict":"pass"`) {
		t.Errorf("history:\n%s", data)
	}
}

// TestCIUnderGitHubRunsTheAction: GITHUB_ACTIONS=true takes the action's
// path (its inputs, its event).
func TestCIUnderGitHubRunsTheAction(t *testing.T) {
	g := &fakeGitHub{}
	srv := g.server(t)
	ws, base := frozenSetRepo(t)
	ae := newActionEnv(t, srv.URL, "pull_request", fmt.Sprintf(prEvent, base), map[string]string{"config": filepath.Join(ws, "frozen-set", "recallgate.toml")})
	ae.vars["GITHUB_WORKSPACE"] = ws
	code, out, errs := runCI(t, ae.vars)
	if code != 1 || len(g.comments) != 1 || !strings.Contains(out, "::add-mask::") {
		t.Errorf("exit %d, %d comments\n%s\n%s", code, len(g.comments), out, errs)
	}
	if code, _, errs := runCI(t, ae.vars, "--mode", "drift"); code != 2 || !strings.Contains(errs, "not flags") {
		t.Errorf("flags under GitHub: exit %d\n%s", code, errs)
	}
}

// TestCIGitLabMergedResults: a merged results pipeline (or a merge train)
// gates against the commit the change was merged into,
// CI_MERGE_REQUEST_TARGET_BRANCH_SHA, not the diff base.
func TestCIGitLabMergedResults(t *testing.T) {
	g := &fakeGitLab{}
	srv := g.server(t)
	ws, base := frozenSetRepo(t)
	vars := glJob(srv.URL, ws, "0123456789abcdef0123456789abcdef01234567")
	vars["CI_MERGE_REQUEST_EVENT_TYPE"], vars["CI_MERGE_REQUEST_TARGET_BRANCH_SHA"] = "merge_train", base
	vars["RECALLGATE_CONFIG"] = filepath.Join(ws, "frozen-set", "recallgate.toml")
	vars["RECALLGATE_JUNIT"] = filepath.Join(t.TempDir(), "j.xml")
	if code, out, errs := runCI(t, vars); code != 1 || len(g.archived) != 0 || len(g.notes) != 1 {
		t.Errorf("exit %d, archives %v, %d notes\n%s\n%s", code, g.archived, len(g.notes), out, errs)
	}
}

// TestCIGitLabNoteOverTheLimit: a report over GitLab's note limit
// (1,000,000 characters) is posted shortened, with a warning in the job
// log; the verdict and exit code are the report's.
func TestCIGitLabNoteOverTheLimit(t *testing.T) {
	g := &fakeGitLab{}
	srv := g.server(t)
	dir := t.TempDir()
	var set, base, head strings.Builder
	for i := 1; i <= 8000; i++ {
		fmt.Fprintf(&set, `{"id":"q%04d","query":"a question long enough to fill a table cell of the report, number %d","gold":{"d%d":1}}`+"\n", i, i, i)
		fmt.Fprintf(&base, `{"id":"q%04d","hits":[{"doc":"d%d"}]}`+"\n", i, i)
		if i == 1 {
			fmt.Fprintf(&head, `{"id":"q%04d","hits":[{"doc":"other"}]}`+"\n", i)
		} else {
			fmt.Fprintf(&head, `{"id":"q%04d","hits":[{"doc":"d%d"}]}`+"\n", i, i)
		}
	}
	write(t, dir, "set.jsonl", set.String())
	write(t, dir, "base.jsonl", base.String())
	write(t, dir, "head.jsonl", head.String())
	write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[depth]\ncandidates = 3\ncontext = 2\n[gate]\nmax_new_misses = 0\n[retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n")
	// The base commit (the same config) is the policy run files are judged by.
	f := &fixture{t: t, dir: dir}
	f.git("init", "-q", "-b", "main")
	vars := glJob(srv.URL, dir, f.commit("the gate"))
	vars["RECALLGATE_CONFIG"] = filepath.Join(dir, "recallgate.toml")
	vars["RECALLGATE_BASE_RESULTS"], vars["RECALLGATE_HEAD_RESULTS"] = filepath.Join(dir, "base.jsonl"), filepath.Join(dir, "head.jsonl")
	vars["RECALLGATE_JUNIT"] = filepath.Join(dir, "j.xml")
	code, out, errs := runCI(t, vars)
	if code != 1 || len(g.notes) != 1 {
		t.Fatalf("exit %d, %d notes\n%s\n%.2000s", code, len(g.notes), out, errs)
	}
	note := g.notes[0]["body"].(string)
	if n := len([]rune(note)); n > 1_000_000 || !strings.Contains(note, "more lines: the full report is in the job's JSON report and JUnit report artifacts") {
		t.Errorf("note: %d characters, tail %q", n, note[max(0, len(note)-300):])
	}
	if !strings.Contains(errs, "over GitLab's limit of 1000000 characters: it is shortened") {
		t.Errorf("no warning in the job log:\n%.3000s", errs)
	}
}
