// Package act_test runs the documented workflows (docs/github-actions.md), verbatim, under a real
// Actions runner (nektos/act) on a real container engine (podman), with
// the action image built from the project's unchanged Dockerfile and the
// GitHub API faked on loopback. test/act/run.sh prepares the engine and
// the images and runs these tests; without it they skip and say why.
package act_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/mddoc"
	"github.com/recallgate/recallgate/internal/committree"
)

// token is what the runner hands the action as github.token; it must
// appear in no log.
const token = "ghs_actTestToken0123456789"

// env is what run.sh exports: the act binary and the engine's socket.
func env(t *testing.T) (actBin, socket string) {
	t.Helper()
	actBin, socket = os.Getenv("RECALLGATE_ACT_BIN"), os.Getenv("RECALLGATE_ACT_SOCKET")
	if actBin == "" || socket == "" {
		t.Skip("the real-runner tests run from test/act/run.sh (podman, act and the action image): RECALLGATE_ACT_BIN and RECALLGATE_ACT_SOCKET are not set")
	}
	return actBin, socket
}

// projectRoot is the repository this test lives in.
func projectRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// readmeWorkflow is the first workflow under the heading (a whole line,
// "## Nightly drift") in README.md or docs/*.md, byte for byte: the test
// runs what users copy.
func readmeWorkflow(t *testing.T, heading string) string {
	t.Helper()
	return readmeWorkflowN(t, heading, 0)
}

// readmeWorkflowN is the n-th (from 0) workflow under the heading.
func readmeWorkflowN(t *testing.T, heading string, n int) string {
	t.Helper()
	blocks, err := mddoc.Under(projectRoot(t), heading, "yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) <= n {
		t.Fatalf("the %q section has %d yaml blocks, want at least %d", heading, len(blocks), n+1)
	}
	return blocks[n].Text
}

// request is one call the action made to the fake API.
type request struct {
	Method, Path, Body string
	Auth               bool
}

// fakeAPI is GitHub's REST API for acme/rag as far as the action uses it,
// in GitHub's documented shapes; it records every request.
type fakeAPI struct {
	mu        sync.Mutex
	reqs      []request
	existing  string // body of the bot's sticky comment, "" = none yet
	tarball   []byte // the base commit's archive (gzip tar), nil = 404
	openIssue bool   // a drift issue (#9) is open
	artifact  []byte // run 4242's "recallgate" artifact (zip), nil = none
	prHead    string // head commit of the open PR #42 (from fork-owner:feature)
}

func (f *fakeAPI) start(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	// The job's token is an installation token: GET /user refuses it, as
	// GitHub does, and its comments and issues are github-actions[bot]'s.
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 403, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/users/users#get-the-authenticated-user","status":"403"}`)
	})
	mux.HandleFunc("GET /repos/acme/rag/issues/42/comments", func(w http.ResponseWriter, r *http.Request) {
		if f.existing == "" {
			reply(w, 200, "[]")
			return
		}
		b, _ := json.Marshal([]map[string]any{{"id": 5, "body": f.existing, "user": map[string]any{"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}}})
		reply(w, 200, string(b))
	})
	mux.HandleFunc("POST /repos/acme/rag/issues/42/comments", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 201, `{"id":6,"html_url":"http://127.0.0.1/acme/rag/pull/42#issuecomment-6"}`)
	})
	mux.HandleFunc("PATCH /repos/acme/rag/issues/comments/5", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"id":5,"html_url":"http://127.0.0.1/acme/rag/pull/42#issuecomment-5"}`)
	})
	mux.HandleFunc("GET /repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		if !f.openIssue || r.URL.Query().Get("labels") != "retrieval-drift" || r.URL.Query().Get("state") != "open" {
			reply(w, 200, "[]")
			return
		}
		reply(w, 200, `[{"number":9,"html_url":"http://127.0.0.1/acme/rag/issues/9","user":{"login":"github-actions[bot]","id":41898282,"type":"Bot"}}]`)
	})
	mux.HandleFunc("POST /repos/acme/rag/issues", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 201, `{"number":9,"html_url":"http://127.0.0.1/acme/rag/issues/9"}`)
	})
	mux.HandleFunc("PATCH /repos/acme/rag/issues/9", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"number":9,"html_url":"http://127.0.0.1/acme/rag/issues/9"}`)
	})
	mux.HandleFunc("POST /repos/acme/rag/issues/9/comments", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 201, `{"id":11}`)
	})
	mux.HandleFunc("GET /repos/acme/rag/tarball/{ref}", func(w http.ResponseWriter, r *http.Request) {
		if f.tarball == nil {
			reply(w, 404, `{"message":"Not Found"}`)
			return
		}
		w.Header().Set("Location", "http://"+r.Host+"/_codeload/acme/rag/legacy.tar.gz/"+r.PathValue("ref"))
		w.WriteHeader(http.StatusFound)
	})
	listing := func(w http.ResponseWriter, r *http.Request) {
		if f.tarball == nil {
			reply(w, 404, `{"message":"Not Found"}`)
			return
		}
		committree.FromTarGz(f.tarball).ServeGitHub(w, r)
	}
	mux.HandleFunc("GET /repos/acme/rag/git/trees/{sha}", listing)
	mux.HandleFunc("GET /repos/acme/rag/git/blobs/{sha}", listing)
	mux.HandleFunc("GET /_codeload/acme/rag/legacy.tar.gz/{ref}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(f.tarball)
	})
	mux.HandleFunc("GET /repos/acme/rag/actions/runs/4242/artifacts", func(w http.ResponseWriter, r *http.Request) {
		if f.artifact == nil || r.URL.Query().Get("name") != "recallgate" {
			reply(w, 200, `{"total_count":0,"artifacts":[]}`)
			return
		}
		reply(w, 200, fmt.Sprintf(`{"total_count":1,"artifacts":[{"id":77,"node_id":"MDg6QXJ0aWZhY3Q3Nw==","name":"recallgate","size_in_bytes":%d,"url":"http://%s/repos/acme/rag/actions/artifacts/77","archive_download_url":"http://%s/repos/acme/rag/actions/artifacts/77/zip","expired":false,"created_at":"2026-12-03T10:00:00Z","expires_at":"2027-03-03T10:00:00Z","updated_at":"2026-12-03T10:00:00Z","workflow_run":{"id":4242,"head_sha":%q}}]}`, len(f.artifact), r.Host, r.Host, f.prHead))
	})
	mux.HandleFunc("GET /repos/acme/rag/actions/artifacts/77/zip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://"+r.Host+"/_blob/artifact-77.zip")
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("GET /_blob/artifact-77.zip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Write(f.artifact)
	})
	mux.HandleFunc("GET /repos/acme/rag/pulls", func(w http.ResponseWriter, r *http.Request) {
		if f.prHead == "" || r.URL.Query().Get("head") != "fork-owner:feature" || r.URL.Query().Get("state") != "open" {
			reply(w, 200, "[]")
			return
		}
		reply(w, 200, fmt.Sprintf(`[{"number":42,"state":"open","head":{"sha":%q,"ref":"feature","label":"fork-owner:feature"},"base":{"ref":"main"}}]`, f.prHead))
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		f.reqs = append(f.reqs, request{Method: r.Method, Path: r.URL.Path, Body: string(body), Auth: r.Header.Get("Authorization") != ""})
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// calls are the recorded requests as "METHOD path", in order.
func (f *fakeAPI) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.reqs {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.test", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// demoRepo is acme/rag: the demo set at the root with the README's pull
// request workflow, one commit. config replaces recallgate.toml when not "".
func demoRepo(t *testing.T, config string) (dir, sha string) {
	return repoWith(t, config, readmeWorkflow(t, "# GitHub Actions"), nil)
}

// repoWith is acme/rag with the demo set, config (when not ""), workflow
// as .github/workflows/retrieval.yml and extra files, one commit.
func repoWith(t *testing.T, config, workflow string, extra map[string][]byte) (dir, sha string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join(projectRoot(t), "frozen-set")
	if out, err := exec.Command("cp", "-r", src+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy demo: %v %s", err, out)
	}
	os.Remove(filepath.Join(dir, "dogfood.toml"))
	if config != "" {
		os.WriteFile(filepath.Join(dir, "recallgate.toml"), []byte(config), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755)
	os.WriteFile(filepath.Join(dir, ".github", "workflows", "retrieval.yml"), []byte(workflow), 0o644)
	for name, b := range extra {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "remote", "add", "origin", "https://github.com/acme/rag.git")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	return dir, git(t, dir, "rev-parse", "HEAD")
}

// result is one act run.
type result struct {
	exit int
	log  string
}

// step is the action step's line in act's log: its exit status.
var stepFailed = regexp.MustCompile(`(?m)❌\s+Failure - Main recallgate/recallgate@v1`)

// runAct runs the workflow in repo for event with payload, against api.
func runAct(t *testing.T, repo, event, payload, api string) result {
	return runActWith(t, repo, event, payload, api, actOptions{})
}

// actOptions change what runActWith runs: another workflow file, the job
// container with node (for JavaScript actions), more flags.
type actOptions struct {
	workflow string // under .github/workflows; "" = retrieval.yml
	node     bool
	host     bool // act's self-hosted platform: the job runs on this machine
	extra    []string
}

func runActWith(t *testing.T, repo, event, payload, api string, o actOptions) result {
	t.Helper()
	actBin, socket := env(t)
	ev := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(ev, []byte(payload), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if o.workflow == "" {
		o.workflow = "retrieval.yml"
	}
	image := "localhost/recallgate-runner:busybox"
	if o.node {
		image = "localhost/recallgate-runner:node"
	}
	if o.host {
		image = "-self-hosted"
	}
	args := append([]string{event,
		"-W", ".github/workflows/" + o.workflow, "-e", ev,
		"-P", "ubuntu-latest=" + image, "--pull=false",
		"--local-repository", "recallgate/recallgate@v1=" + projectRoot(t),
		"--env", "GITHUB_API_URL=" + api, "-s", "GITHUB_TOKEN=" + token,
		"--container-daemon-socket", "-"}, o.extra...)
	cmd := exec.CommandContext(ctx, actBin, args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+socket)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("act: %v", err)
	}
	log := string(out)
	if os.Getenv("RECALLGATE_ACT_LOG") != "" {
		t.Logf("act %s log:\n%s", event, log)
	}
	if strings.Contains(log, token) {
		t.Errorf("the token appears in the runner's log")
	}
	if strings.Contains(log, "failed to start container") || strings.Contains(log, "Error response from daemon") {
		t.Fatalf("the engine did not run the job:\n%s", log)
	}
	if m := stepTime.FindStringSubmatch(log); m != nil {
		t.Logf("%s: the action step took %s under act (container start included)", event, m[1])
	}
	return result{exit: code, log: log}
}

// stepTime is act's timing of the action step.
var stepTime = regexp.MustCompile(`Main recallgate/recallgate@v1 \[([^\]]+)\]`)

// output is the value of one step output in act's log.
func output(log, name string) string {
	m := regexp.MustCompile(`::set-output:: ` + regexp.QuoteMeta(name) + `=(.*)`).FindStringSubmatch(log)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(m[1])
}

func prPayload(base, head string) string {
	return fmt.Sprintf(`{"action":"synchronize","number":42,"pull_request":{"number":42,"head":{"sha":%q,"ref":"feature"},"base":{"sha":%q,"ref":"main"}},"repository":{"full_name":"acme/rag","name":"rag","owner":{"login":"acme"}}}`, head, base)
}

// TestPullRequestRegression: the demo's re-chunking head loses recall; the
// README's workflow fails the check, writes the outputs, the summary and
// the sticky comment, and a second push edits that comment in place.
func TestPullRequestRegression(t *testing.T) {
	env(t)
	repo, sha := demoRepo(t, "")
	api := &fakeAPI{tarball: policyArchive(t, repo, sha)}
	srv := api.start(t)
	r := runAct(t, repo, "pull_request", prPayload(sha, sha), srv.URL)
	if r.exit == 0 || !stepFailed.MatchString(r.log) || !strings.Contains(r.log, "exit with `FAILURE`: 1") {
		t.Fatalf("a regressing head passed under the runner (exit %d):\n%s", r.exit, r.log)
	}
	for name, want := range map[string]string{"verdict": "fail", "recall-base": "0.8333", "recall-head": "0.8103", "regressed": "q26,q16,q10"} {
		if got := output(r.log, name); got != want {
			t.Errorf("output %s = %q, want %q", name, got, want)
		}
	}
	if got := output(r.log, "report"); !regexp.MustCompile(`^\.recallgate/recallgate-report[\w.-]*\.json$`).MatchString(got) {
		t.Errorf("output report = %q, want the step's file in .recallgate/", got)
	}
	if !strings.Contains(r.log, "::warning file=queries.jsonl,line=26,") {
		t.Errorf("no annotation on the regressed query's line:\n%s", r.log)
	}
	// The base side comes from the base commit's archive (the image has no
	// git), checked against its listing, whatever tables the config has;
	// then the token's identity.
	want := []string{"GET /repos/acme/rag/tarball/" + sha, "GET /_codeload/acme/rag/legacy.tar.gz/" + sha, "GET /repos/acme/rag/git/trees/" + sha, "GET /user", "GET /repos/acme/rag/issues/42/comments", "POST /repos/acme/rag/issues/42/comments"}
	if got := api.calls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("API calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	first := api.reqs[5]
	if !first.Auth || !strings.Contains(first.Body, "<!-- recallgate: recallgate.toml -->") || !strings.Contains(first.Body, "q26") {
		t.Errorf("comment: auth %v body %.300s", first.Auth, first.Body)
	}
	var posted struct{ Body string }
	json.Unmarshal([]byte(first.Body), &posted)

	// Second push: the bot's comment is there and is edited, not doubled.
	api.existing, api.reqs = posted.Body, nil
	r = runAct(t, repo, "pull_request", prPayload(sha, sha), srv.URL)
	want = []string{"GET /repos/acme/rag/tarball/" + sha, "GET /_codeload/acme/rag/legacy.tar.gz/" + sha, "GET /repos/acme/rag/git/trees/" + sha, "GET /user", "GET /repos/acme/rag/issues/42/comments", "PATCH /repos/acme/rag/issues/comments/5"}
	if got := api.calls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("second push, API calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.exit == 0 {
		t.Errorf("second push passed")
	}
}

// TestMergeGroup: the same gate in the merge queue fails the required
// check and writes no comment (there is no PR).
func TestMergeGroup(t *testing.T) {
	env(t)
	repo, sha := demoRepo(t, "")
	api := &fakeAPI{tarball: policyArchive(t, repo, sha)}
	srv := api.start(t)
	payload := fmt.Sprintf(`{"merge_group":{"base_sha":%q,"head_sha":%q,"head_ref":"refs/heads/gh-readonly-queue/main/pr-42-%s","base_ref":"refs/heads/main"},"repository":{"full_name":"acme/rag","name":"rag","owner":{"login":"acme"}}}`, sha, sha, sha)
	r := runAct(t, repo, "merge_group", payload, srv.URL)
	if r.exit == 0 || output(r.log, "verdict") != "fail" {
		t.Fatalf("merge group: exit %d verdict %q:\n%s", r.exit, output(r.log, "verdict"), r.log)
	}
	if calls := api.calls(); len(calls) != 3 || calls[0] != "GET /repos/acme/rag/tarball/"+sha || calls[2] != "GET /repos/acme/rag/git/trees/"+sha {
		t.Errorf("a merge group run called the API for more than the base commit's archive and listing: %v", calls)
	}
}

// TestPullRequestUnrelated: a PR that touches no retrieval input (one
// [retriever], the base side from the base commit's archive) is green.
func TestPullRequestUnrelated(t *testing.T) {
	env(t)
	config := `set = "queries.jsonl"

[depth]
candidates = 5
context = 3

[gate]
max_recall_drop = 0.02
max_new_misses = 0

[retriever]
type = "builtin"
corpus = "corpus"
title_boost = 2.0
`
	repo, base := demoRepo(t, config)
	archive := exec.Command("git", "archive", "--format=tar.gz", "--prefix=acme-rag-"+base[:7]+"/", base)
	archive.Dir = repo
	tgz, err := archive.Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte("a change with nothing to do with retrieval\n"), 0o644)
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "docs")
	head := git(t, repo, "rev-parse", "HEAD")
	api := &fakeAPI{tarball: tgz}
	srv := api.start(t)
	r := runAct(t, repo, "pull_request", prPayload(base, head), srv.URL)
	if r.exit != 0 || output(r.log, "verdict") != "pass" {
		t.Fatalf("an unrelated PR: exit %d verdict %q:\n%s", r.exit, output(r.log, "verdict"), r.log)
	}
	calls := strings.Join(api.calls(), "\n")
	if !strings.Contains(calls, "GET /repos/acme/rag/tarball/"+base) || !strings.Contains(calls, "POST /repos/acme/rag/issues/42/comments") {
		t.Errorf("API calls:\n%s", calls)
	}
}

// baseline runs the CLI on the demo with config and returns the head run
// it writes with --write-baseline.
func baseline(t *testing.T, config string) []byte {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "recallgate")
	build := exec.Command("go", "build", "-o", bin, "./cmd/recallgate")
	build.Dir = projectRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	repo, _ := repoWith(t, config, "on: push\n", nil)
	cmd := exec.Command(bin, "gate", "--config", "recallgate.toml", "--allow-identical", "--no-cache", "--write-baseline", "baseline.jsonl")
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		t.Fatalf("write baseline: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(repo, "baseline.jsonl"))
	if err != nil {
		t.Fatalf("no baseline written: %v\n%s", err, out)
	}
	return b
}

// TestScheduledDrift: the documented nightly workflow, as it is, after a
// merged config change (the committed baseline was made with whole
// documents, the config now chunks them): night 1 fails (exit 1), names
// the retriever as the likely cause and opens the drift issue; night 2,
// still drifted, edits the same issue and opens none; night 3, against a
// baseline refreshed with today's config, passes and notes it on the
// issue, which stays open.
func TestScheduledDrift(t *testing.T) {
	env(t)
	demo, err := os.ReadFile(filepath.Join(projectRoot(t), "frozen-set", "recallgate.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// The baseline's config: whole documents; the demo's chunking head is behind it.
	before := strings.Replace(string(demo), "chunk_words = 12", "title_boost = 2.0", 1)
	workflow := readmeWorkflow(t, "## Nightly drift")
	schedule := `{"schedule":"17 3 * * *","repository":{"full_name":"acme/rag","name":"rag","owner":{"login":"acme"}}}`
	repo, _ := repoWith(t, "", workflow, map[string][]byte{"baselines/head.jsonl": baseline(t, before)})
	api := &fakeAPI{}
	srv := api.start(t)

	r := runAct(t, repo, "schedule", schedule, srv.URL)
	if r.exit == 0 || output(r.log, "verdict") != "fail" {
		t.Fatalf("night 1: exit %d verdict %q:\n%s", r.exit, output(r.log, "verdict"), r.log)
	}
	want := "GET /user\nGET /repos/acme/rag/issues\nPOST /repos/acme/rag/issues"
	if got := strings.Join(api.calls(), "\n"); got != want {
		t.Errorf("night 1, API calls:\n%s\nwant:\n%s", got, want)
	}
	if len(api.reqs) == 3 && (!strings.Contains(api.reqs[2].Body, `"labels":["retrieval-drift"]`) || !strings.Contains(api.reqs[2].Body, "Retrieval drift") ||
		!strings.Contains(api.reqs[2].Body, "changed since the baseline (the likely cause): retriever")) {
		t.Errorf("drift issue body: %.600s", api.reqs[2].Body)
	}

	api.mu.Lock()
	api.reqs, api.openIssue = nil, true
	api.mu.Unlock()
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "another day")
	r = runAct(t, repo, "schedule", schedule, srv.URL)
	if r.exit == 0 || output(r.log, "verdict") != "fail" {
		t.Fatalf("night 2: exit %d verdict %q:\n%s", r.exit, output(r.log, "verdict"), r.log)
	}
	want = "GET /user\nGET /repos/acme/rag/issues\nPATCH /repos/acme/rag/issues/9"
	if got := strings.Join(api.calls(), "\n"); got != want {
		t.Errorf("night 2, API calls:\n%s\nwant:\n%s", got, want)
	}

	api.mu.Lock()
	api.reqs = nil
	api.mu.Unlock()
	if err := os.WriteFile(filepath.Join(repo, "baselines", "head.jsonl"), baseline(t, string(demo)), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "commit", "-qam", "baseline refreshed after review")
	r = runAct(t, repo, "schedule", schedule, srv.URL)
	if r.exit != 0 || output(r.log, "verdict") != "pass" {
		t.Fatalf("night 3: exit %d verdict %q:\n%s", r.exit, output(r.log, "verdict"), r.log)
	}
	want = "GET /user\nGET /repos/acme/rag/issues\nPOST /repos/acme/rag/issues/9/comments\nPATCH /repos/acme/rag/issues/9"
	if got := strings.Join(api.calls(), "\n"); got != want {
		t.Errorf("night 3, API calls:\n%s\nwant:\n%s", got, want)
	}
}

// actionsDir is where run.sh built actions/upload-artifact and
// download-artifact v4 from their sources (RECALLGATE_ACT_ACTIONS).
func actionsDir(t *testing.T) string {
	t.Helper()
	d := os.Getenv("RECALLGATE_ACT_ACTIONS")
	if d == "" {
		t.Skip("actions/upload-artifact and download-artifact v4 were not built (test/act/run.sh says why): RECALLGATE_ACT_ACTIONS is not set")
	}
	return d
}

// TestForkTwoWorkflows runs the README's fork pattern: the pull_request
// workflow gates with a read-only token, posts nothing and uploads the
// report with actions/upload-artifact; the workflow_run workflow downloads
// it with actions/download-artifact from the API and posts the comment
// with the published image's recallgate comment, finding the PR by the
// run's head commit (a fork's workflow_run lists no pull requests).
func TestForkTwoWorkflows(t *testing.T) {
	env(t)
	actions := actionsDir(t)
	const heading = "## Fork pull requests: the two-workflow pattern"
	gateWF, commentWF := readmeWorkflowN(t, heading, 0), readmeWorkflowN(t, heading, 1)
	repo, sha := repoWith(t, "", gateWF, map[string][]byte{".github/workflows/recallgate-comment.yml": []byte(commentWF)})
	api := &fakeAPI{prHead: sha, tarball: policyArchive(t, repo, sha)}
	srv := api.start(t)
	arts := t.TempDir()
	r := runActWith(t, repo, "pull_request", prPayload(sha, sha), srv.URL, actOptions{node: true, extra: []string{
		"--artifact-server-path", arts, "--artifact-server-addr", "127.0.0.1", "--artifact-server-port", freePort(t),
		"--local-repository", "actions/upload-artifact@v4=" + filepath.Join(actions, "upload-artifact")}})
	if r.exit == 0 || !stepFailed.MatchString(r.log) || !strings.Contains(r.log, "Success - Main actions/upload-artifact@v4") {
		t.Fatalf("gate workflow (exit %d): want the gate to fail and the upload to run:\n%s", r.exit, r.log)
	}
	// The archive (the tarball call and its redirect) and the commit's own
	// tree listing (what the base commit holds): nothing that writes.
	if calls := api.calls(); len(calls) != 3 || calls[0] != "GET /repos/acme/rag/tarball/"+sha || calls[2] != "GET /repos/acme/rag/git/trees/"+sha {
		t.Errorf("the unprivileged workflow called the API for more than the base commit's archive and listing: %v", calls)
	}
	api.artifact, api.reqs = uploadedZip(t, arts), nil

	// GitHub names the run by the gate workflow's name: (its path when it
	// has none) and fires the comment workflow only when its filter lists
	// that name; act ignores the filter, so the test checks it.
	name := workflowName(gateWF)
	if !slices.Contains(workflowRunFilter(commentWF), name) {
		t.Fatalf("the comment workflow's workflow_run filter %v does not list the gate workflow's name %q: GitHub would never run it", workflowRunFilter(commentWF), name)
	}
	payload := fmt.Sprintf(`{"action":"completed","workflow":{"name":%q,"path":".github/workflows/retrieval.yml"},"workflow_run":{"id":4242,"name":%q,"path":".github/workflows/retrieval.yml","event":"pull_request","status":"completed","conclusion":"failure","head_sha":%q,"head_branch":"feature","head_repository":{"full_name":"fork-owner/rag","owner":{"login":"fork-owner"}},"pull_requests":[]},"repository":{"full_name":"acme/rag","name":"rag","owner":{"login":"acme"}}}`, name, name, sha)
	r = runActWith(t, repo, "workflow_run", payload, srv.URL, actOptions{workflow: "recallgate-comment.yml", node: true, extra: []string{
		"--local-repository", "actions/download-artifact@v4=" + filepath.Join(actions, "download-artifact")}})
	if r.exit != 0 {
		t.Fatalf("comment workflow failed (exit %d):\n%s", r.exit, r.log)
	}
	want := []string{"GET /repos/acme/rag/actions/runs/4242/artifacts", "GET /repos/acme/rag/actions/artifacts/77/zip", "GET /_blob/artifact-77.zip",
		"GET /repos/acme/rag/pulls", "GET /user", "GET /repos/acme/rag/issues/42/comments", "POST /repos/acme/rag/issues/42/comments"}
	if got := api.calls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("API calls:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), r.log)
	}
	if c := api.reqs[len(api.reqs)-1]; !c.Auth || !strings.Contains(c.Body, "q26") {
		t.Errorf("comment: auth %v body %.300s", c.Auth, c.Body)
	}
}

// workflowName is the workflow's top-level name:, or, as GitHub names a
// workflow without one, its path.
func workflowName(wf string) string {
	if m := regexp.MustCompile(`(?m)^name:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$`).FindStringSubmatch(wf); m != nil {
		return m[1]
	}
	return ".github/workflows/retrieval.yml"
}

// workflowRunFilter is the workflows: [...] list of a workflow_run trigger.
func workflowRunFilter(wf string) []string {
	m := regexp.MustCompile(`(?m)^\s+workflows:\s*\[([^\]]*)\]`).FindStringSubmatch(wf)
	if m == nil {
		return nil
	}
	var out []string
	for _, n := range strings.Split(m[1], ",") {
		out = append(out, strings.Trim(strings.TrimSpace(n), `"'`))
	}
	return out
}

// uploadedZip is the artifact act's artifact server holds after the run:
// upload-artifact v4 uploads one zip.
func uploadedZip(t *testing.T, dir string) []byte {
	t.Helper()
	var found []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			found = append(found, p)
		}
		return nil
	})
	for _, p := range found {
		b, err := os.ReadFile(p)
		if err == nil && bytes.HasPrefix(b, []byte("PK\x03\x04")) {
			return b
		}
	}
	t.Fatalf("no uploaded zip under the artifact server's folder: %v", found)
	return nil
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

// searchPy is the team's Python retriever of the native test (the one the
// cmd tests use): it indexes the first MAX_WORDS words of each document
// and ranks by shared terms.
func searchPy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(projectRoot(t), "cmd", "recallgate", "testdata", "terms_retriever.py"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNativeAction runs the README's native workflow: the composite action
// installs the release binary (checksum-checked, from a fake release on
// loopback), and recallgate runs on the runner itself with the team's
// Python command retriever; the head's shorter chunks regress q26 and the
// comment is posted. The job runs on this machine (act's self-hosted
// platform: its bash, curl and Python), and actions/setup-python is a
// stand-in that checks python3 is there (it would download a Python).
func TestNativeAction(t *testing.T) {
	env(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	config := "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[retriever]\ntype = \"command\"\ncommand = [\"python3\", \"retriever/search.py\", \"corpus\"]\n"
	repo, base := repoWith(t, config, readmeWorkflow(t, "## Retrievers that need their own runtime: the native action"), map[string][]byte{
		"retriever/search.py": []byte(searchPy(t)), "retriever/requirements.txt": []byte("# the standard library is enough\n")})
	py := filepath.Join(repo, "retriever", "search.py")
	os.WriteFile(py, []byte(strings.Replace(searchPy(t), "MAX_WORDS = 400", "MAX_WORDS = 3", 1)), 0o644)
	git(t, repo, "commit", "-qam", "head: shorter chunks")
	head := git(t, repo, "rev-parse", "HEAD")

	// The release: the binary built from this tree and its SHA256SUMS.
	dir := t.TempDir()
	bin := filepath.Join(dir, "recallgate_linux_amd64")
	build := exec.Command("go", "build", "-o", bin, "./cmd/recallgate")
	build.Dir, build.Env = projectRoot(t), append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v %s", err, out)
	}
	sumCmd := exec.Command("sha256sum", "recallgate_linux_amd64")
	sumCmd.Dir = dir
	sums, err := sumCmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var downloads []string
	var dmu sync.Mutex
	release := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dmu.Lock()
		downloads = append(downloads, r.URL.Path)
		dmu.Unlock()
		switch r.URL.Path {
		case "/latest/download/recallgate_linux_amd64":
			http.ServeFile(w, r, bin)
		case "/latest/download/SHA256SUMS":
			w.Write(sums)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(release.Close)
	setupPython := filepath.Join(dir, "setup-python")
	os.MkdirAll(setupPython, 0o755)
	os.WriteFile(filepath.Join(setupPython, "action.yml"), []byte(`name: setup-python stand-in
description: The machine's python3 instead of a downloaded one (no network here).
inputs:
  python-version: { description: ignored, required: false }
runs:
  using: composite
  steps:
    - shell: bash
      run: python3 --version
`), 0o644)

	api := &fakeAPI{}
	srv := api.start(t)
	r := runActWith(t, repo, "pull_request", prPayload(base, head), srv.URL, actOptions{host: true, extra: []string{
		"--local-repository", "actions/setup-python@v5=" + setupPython,
		"--env", "RECALLGATE_DOWNLOAD_BASE=" + release.URL}})
	if r.exit == 0 || !strings.Contains(r.log, "Failure - Main recallgate/recallgate/native@v1") {
		t.Fatalf("native action (exit %d): want the gate to fail:\n%s", r.exit, r.log)
	}
	if !strings.Contains(r.log, "(git worktree)") {
		t.Errorf("the base side did not come from the checkout's history (fetch-depth: 0):\n%s", r.log)
	}
	if strings.Join(downloads, ",") != "/latest/download/recallgate_linux_amd64,/latest/download/SHA256SUMS" {
		t.Errorf("release downloads: %v", downloads)
	}
	for name, want := range map[string]string{"verdict": "fail"} {
		if got := output(r.log, name); got != want {
			t.Errorf("output %s = %q, want %q", name, got, want)
		}
	}
	if o := output(r.log, "regressed"); !strings.Contains(o, "q26") {
		t.Errorf("regressed = %q, want q26 among them", o)
	}
	want := []string{"GET /user", "GET /repos/acme/rag/issues/42/comments", "POST /repos/acme/rag/issues/42/comments"}
	if got := api.calls(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("API calls:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), r.log)
	}
	if c := api.reqs[2]; !c.Auth || !strings.Contains(c.Body, "q26") {
		t.Errorf("comment: auth %v body %.300s", c.Auth, c.Body)
	}
}

// policyArchive is the commit's archive the way GitHub serves it: the
// base side's tree for a job whose image has no git.
func policyArchive(t *testing.T, repo, commit string) []byte {
	t.Helper()
	archive := exec.Command("git", "archive", "--format=tar.gz", "--prefix=acme-rag-"+commit[:7]+"/", commit)
	archive.Dir = repo
	tgz, err := archive.Output()
	if err != nil {
		t.Fatal(err)
	}
	return tgz
}

// TestPullRequestRaisesItsOwnThreshold: a PR that regresses and, in the
// same change, raises its own max_recall_drop and max_new_misses fails on
// the base commit's thresholds, and the posted comment says what the PR
// changes in the gate.
func TestPullRequestRaisesItsOwnThreshold(t *testing.T) {
	env(t)
	config := "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[gate]\nmax_recall_drop = 0.02\nmax_new_misses = 0\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n"
	repo, base := demoRepo(t, config)
	tgz := policyArchive(t, repo, base)
	loose := strings.Replace(strings.Replace(config, "max_recall_drop = 0.02", "max_recall_drop = 1.0", 1), "max_new_misses = 0", "max_new_misses = 30", 1)
	os.WriteFile(filepath.Join(repo, "recallgate.toml"), []byte(loose), 0o644)
	os.WriteFile(filepath.Join(repo, "corpus", "security", "audit-log.md"), []byte("# Office plants\n\nWater the ferns on Fridays.\n"), 0o644)
	git(t, repo, "commit", "-qam", "regress, and loosen the gate")
	head := git(t, repo, "rev-parse", "HEAD")
	api := &fakeAPI{tarball: tgz}
	srv := api.start(t)
	r := runAct(t, repo, "pull_request", prPayload(base, head), srv.URL)
	if r.exit == 0 || !stepFailed.MatchString(r.log) || output(r.log, "verdict") != "fail" || !strings.Contains(output(r.log, "regressed"), "q26") {
		t.Fatalf("a PR that loosens its own gate passed (exit %d, verdict %q):\n%s", r.exit, output(r.log, "verdict"), r.log)
	}
	var posted struct{ Body string }
	for _, q := range api.reqs {
		if q.Method == "POST" && q.Path == "/repos/acme/rag/issues/42/comments" {
			json.Unmarshal([]byte(q.Body), &posted)
		}
	}
	const change = "this PR changes the gate: max&#95;recall&#95;drop 0.02 → 1.00; max&#95;new&#95;misses 0 → 30: takes effect after merge"
	var headline string
	for _, line := range strings.Split(posted.Body, "\n") {
		if strings.HasPrefix(line, "### ") {
			headline = line
			break
		}
	}
	if !strings.HasPrefix(headline, "### ❌ recallgate: fail") || !strings.Contains(headline, change) {
		t.Errorf("the comment's headline does not say what the PR changes in the gate (%q):\n%s", change, posted.Body)
	}
	if !strings.Contains(posted.Body, "policy: the base commit's config") {
		t.Errorf("the comment does not say which policy judged:\n%s", posted.Body)
	}
}

// TestDocumentedWorkflowsAreFound needs no runner: each workflow the
// suite runs is still found, whole, under its heading in the
// documentation, so a renamed heading or a moved page fails here, in
// `go test ./...`, and not only under test/act/run.sh.
func TestDocumentedWorkflowsAreFound(t *testing.T) {
	for _, w := range []struct {
		heading string
		n       int
	}{
		{"# GitHub Actions", 0},
		{"## Nightly drift", 0},
		{"## Fork pull requests: the two-workflow pattern", 0},
		{"## Fork pull requests: the two-workflow pattern", 1},
		{"## Retrievers that need their own runtime: the native action", 0},
	} {
		wf := readmeWorkflowN(t, w.heading, w.n)
		if !regexp.MustCompile(`(?m)^on:`).MatchString(wf) || !regexp.MustCompile(`(?m)^jobs:`).MatchString(wf) {
			t.Errorf("%q, workflow %d: not a whole workflow:\n%s", w.heading, w.n, wf)
		}
	}
}
