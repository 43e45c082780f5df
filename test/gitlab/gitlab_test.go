// Package gitlab_test runs the documented .gitlab-ci.yml (docs/gitlab-ci.md), verbatim, under a
// real GitLab CI runner emulator (gitlab-ci-local, shell executor) against
// a fake GitLab API on 127.0.0.1 that follows GitLab's documented shapes,
// with recallgate built from this repository on the job's PATH. The image
// test runs the same job script inside the Dockerfile's gitlab image the
// way GitLab's Docker executor does. test/gitlab/run.sh installs what they
// need and runs them; without it they skip and say why.
package gitlab_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate/mddoc"
	"github.com/recallgate/recallgate/gate/publish"
)

// token is the project access token the pipelines get as the masked
// variable RECALLGATE_GITLAB_TOKEN; it must appear in no log.
const token = "glpat-glTestToken0123456789ab"

// recallgateBin is the folder holding the recallgate binary built from this
// repository for the jobs (TestMain).
var recallgateBin string

func TestMain(m *testing.M) {
	code := func() int {
		if os.Getenv("RECALLGATE_GLCI_BIN") == "" {
			return m.Run() // every test skips
		}
		dir, err := os.MkdirTemp("", "recallgate-gitlab-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "recallgate"), "../../cmd/recallgate")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build recallgate: %v\n%s", err, out)
			return 1
		}
		recallgateBin = dir
		return m.Run()
	}()
	os.Exit(code)
}

// glci is the gitlab-ci-local binary run.sh installed.
func glci(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("RECALLGATE_GLCI_BIN")
	if bin == "" {
		t.Skip("the gitlab-ci-local tests run from test/gitlab/run.sh (rsync, node, gitlab-ci-local@4.60.1): RECALLGATE_GLCI_BIN is not set")
	}
	return bin
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

// readmeHeading is the documentation's section (docs/gitlab-ci.md) whose
// first yaml block is the .gitlab-ci.yml the tests run.
const readmeHeading = "# GitLab CI"

// readmeCI is the documented .gitlab-ci.yml, byte for byte: the tests
// run what users copy.
func readmeCI(t *testing.T) string {
	t.Helper()
	blocks, err := mddoc.Under(projectRoot(t), readmeHeading, "yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatalf("the %q section has no yaml block", readmeHeading)
	}
	return blocks[0].Text
}

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.test", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// oneRetriever is the demo set gated by a single builtin retriever: both
// sides are the same configuration, each in its own commit's tree, so only
// what a merge request changes in the tree can move the recall.
const oneRetriever = "set = \"queries.jsonl\"\n[depth]\ncandidates = 5\ncontext = 3\n[gate]\nmax_recall_drop = 0.02\nmax_new_misses = 0\n[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n"

// regressingEdit is a merge request's change to one corpus document that
// takes q26's answer away.
const (
	editedDoc       = "corpus/security/audit-log.md"
	regressingEdit  = "# Office plants\n\nWater the ferns on Fridays.\n"
	gitlabRemoteURL = "https://gitlab.example.test/acme/rag.git"
)

// origin is the project's repository on the "server": the demo set at the
// root with the README's .gitlab-ci.yml, one commit on main.
type origin struct {
	t    *testing.T
	dir  string
	base string // main's commit
}

func newOrigin(t *testing.T, extra map[string]string) *origin {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(projectRoot(t), "frozen-set")+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy demo: %v %s", err, out)
	}
	os.Remove(filepath.Join(dir, "dogfood.toml"))
	files := map[string]string{"recallgate.toml": oneRetriever, ".gitlab-ci.yml": readmeCI(t), ".gitignore": ".recallgate/\n.gitlab-ci-local/\nrecallgate.xml\n"}
	for k, v := range extra {
		files[k] = v
	}
	o := &origin{t: t, dir: dir}
	o.write(files)
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	o.base = git(t, dir, "rev-parse", "HEAD")
	return o
}

func (o *origin) write(files map[string]string) {
	for name, body := range files {
		p := filepath.Join(o.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			o.t.Fatal(err)
		}
	}
}

// commit writes files on branch (created from its current head, or main's
// commit when new) and returns the new commit.
func (o *origin) commit(branch string, files map[string]string, msg string) string {
	o.t.Helper()
	if strings.Contains(git(o.t, o.dir, "branch", "--list", branch), branch) {
		git(o.t, o.dir, "checkout", "-q", branch)
	} else {
		git(o.t, o.dir, "checkout", "-q", "-b", branch, o.base)
	}
	o.write(files)
	git(o.t, o.dir, "add", "-A")
	git(o.t, o.dir, "commit", "-qm", msg)
	sha := git(o.t, o.dir, "rev-parse", "HEAD")
	git(o.t, o.dir, "checkout", "-q", "main")
	return sha
}

// archive is commit's tree as GitLab's archive endpoint serves it: a gzip
// tar with one top folder <project>-<sha>-<sha>.
func (o *origin) archive(sha string) []byte {
	o.t.Helper()
	cmd := exec.Command("git", "archive", "--format=tar.gz", "--prefix=rag-"+sha+"-"+sha+"/", sha)
	cmd.Dir = o.dir
	out, err := cmd.Output()
	if err != nil {
		o.t.Fatalf("git archive: %v", err)
	}
	return out
}

// checkout is what GitLab's runner clones for a pipeline: a shallow clone
// (GitLab's default fetch depth) of branch, without the base commit, its
// remote the project's GitLab URL.
func (o *origin) checkout(branch string) string {
	o.t.Helper()
	dir := filepath.Join(o.t.TempDir(), "rag")
	git(o.t, filepath.Dir(dir), "clone", "-q", "--depth", "1", "--branch", branch, "file://"+o.dir, dir)
	git(o.t, dir, "remote", "set-url", "origin", gitlabRemoteURL)
	return dir
}

// pipeline is one gitlab-ci-local run of the checkout's .gitlab-ci.yml.
type pipeline struct {
	exit int
	log  string
}

// runPipeline runs every job of dir's .gitlab-ci.yml whose rules match, on
// the shell executor, with recallgate on PATH and vars as the pipeline's
// predefined and CI/CD variables (the API URL and project id always set).
func runPipeline(t *testing.T, dir, api string, vars map[string]string) pipeline {
	t.Helper()
	bin := glci(t)
	all := map[string]string{
		"GITLAB_CI":               "true",
		"CI_API_V4_URL":           api + "/api/v4",
		"CI_SERVER_URL":           api,
		"CI_PROJECT_ID":           projectID,
		"CI_PROJECT_PATH":         projectPath,
		"RECALLGATE_GITLAB_TOKEN": token,
		// The folder the script runs in, as a runner sets it: for a job with
		// an image:, gitlab-ci-local says /builds/<group>/<project> (the
		// Docker executor's) also when --force-shell-executor runs it here.
		"CI_PROJECT_DIR": dir,
		"CI_BUILDS_DIR":  filepath.Dir(dir),
	}
	for k, v := range vars {
		all[k] = v
	}
	args := []string{"--force-shell-executor", "--color=false", "--home", t.TempDir()}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	for _, k := range sorted(keys) {
		if all[k] == "<unset>" {
			args = append(args, "--unset-variable", k)
			continue
		}
		args = append(args, "--variable", k+"="+all[k])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+recallgateBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("gitlab-ci-local: %v\n%s", err, out)
	}
	if ctx.Err() != nil {
		t.Fatalf("gitlab-ci-local did not finish in 3 minutes\n%s", out)
	}
	log := string(out)
	if strings.Contains(log, token) {
		t.Errorf("the token is in the pipeline's log:\n%s", log)
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, ".gitlab-ci-local", "output", "*.log")); len(logs) > 0 {
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			if bytes.Contains(b, []byte(token)) {
				t.Errorf("the token is in the job log %s", l)
			}
		}
	}
	t.Logf("gitlab-ci-local %s: exit %d\n%s", strings.Join(args[:3], " "), code, log)
	return pipeline{exit: code, log: log}
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

// mrVars are the variables GitLab sets in a merge request pipeline of
// merge request !7 from feature into main.
func mrVars(base string) map[string]string {
	return map[string]string{
		"CI_PIPELINE_SOURCE":                  "merge_request_event",
		"CI_MERGE_REQUEST_IID":                "7",
		"CI_MERGE_REQUEST_PROJECT_ID":         projectID,
		"CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature",
		"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
		"CI_MERGE_REQUEST_DIFF_BASE_SHA":      base,
		"CI_MERGE_REQUEST_EVENT_TYPE":         "detached",
		"CI_COMMIT_BRANCH":                    "<unset>", // not set in merge request pipelines
	}
}

// calls are the recorded calls as "METHOD path".
func callNames(cs []call) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}

func count(cs []call, method, pathRE string) int {
	re := regexp.MustCompile("^" + pathRE + "$")
	n := 0
	for _, c := range cs {
		if c.Method == method && re.MatchString(c.Path) {
			n++
		}
	}
	return n
}

// gateMarker is the hidden marker of the README job's gate.
var gateMarker = publish.Marker("recallgate.toml", "")

// TestMergeRequestGate: a merge request whose change regresses q26 fails
// its job, writes the JUnit report GitLab's widget reads with the failing
// queries, and creates one note, found on the notes' second page at the
// next pipeline and edited in place; a person's note quoting the marker
// (on the first page) is never taken; the base side is the base commit's
// tree from the archive endpoint (the shallow clone lacks it).
func TestMergeRequestGate(t *testing.T) {
	glci(t)
	o := newOrigin(t, nil)
	head := o.commit("feature", map[string]string{editedDoc: regressingEdit}, "shorter audit-log doc")

	f := newFakeGitLab(t, token)
	f.archives[o.base] = o.archive(o.base)
	// A person's note that begins as the gate's would (the marker first,
	// pasted from the bot's note's source): it is never the sticky note.
	quoted := f.addNote(7, person, gateMarker+"\n### ❌ recallgate: fail\n\nPasted from the last run: why did q26 go?")
	for i := 0; i < 120; i++ { // the discussion: the bot's note lands on page 2
		f.addNote(7, person, fmt.Sprintf("review note %d", i))
	}
	srv := f.start()
	dir := o.checkout("feature")

	p := runPipeline(t, dir, srv.URL, mrVars(o.base))
	if p.exit == 0 {
		t.Fatalf("the merge request pipeline passed; the change regresses q26\n%s", p.log)
	}
	if !regexp.MustCompile(`retrieval-gate[^\n]*FAIL 1`).MatchString(p.log) {
		t.Errorf("the gate job did not fail with exit 1:\n%s", p.log)
	}
	if strings.Contains(p.log, "retrieval-drift") {
		t.Errorf("the drift job ran in a merge request pipeline:\n%s", p.log)
	}
	cs := f.recorded()
	if n := count(cs, "GET", `/projects/42/repository/archive\.tar\.gz`); n != 1 {
		t.Errorf("archive asked %d times, want once: %v", n, callNames(cs))
	}
	for _, c := range cs {
		if c.Token != token {
			t.Errorf("%s without the token", c)
		}
		if strings.HasSuffix(c.Path, "/archive.tar.gz") && !strings.Contains(c.Query, "sha="+o.base) {
			t.Errorf("archive of %q, want the merge request's diff base %s", c.Query, o.base)
		}
	}
	if count(cs, "GET", `/user`) < 1 {
		t.Errorf("the token's user was not asked (GET /user): %v", callNames(cs))
	}
	if count(cs, "GET", `/projects/42/merge_requests/7/notes`) < 2 {
		t.Errorf("the notes' second page was not read: %v", callNames(cs))
	}
	if n := count(cs, "POST", `/projects/42/merge_requests/7/notes`); n != 1 {
		t.Fatalf("%d notes created, want 1: %v", n, callNames(cs))
	}
	if n := count(cs, "PUT", `/projects/42/merge_requests/7/notes/\d+`); n != 0 {
		t.Errorf("%d notes edited on the first pipeline, want 0 (the person's quote is not the gate's)", n)
	}
	notes := f.mrNotes(7)
	mine := notes[len(notes)-1]
	if mine.Author.ID != botUser.ID || !strings.Contains(mine.Body, gateMarker) || !strings.Contains(mine.Body, "q26") {
		t.Errorf("the gate's note:\n%+v", mine)
	}
	junit, err := os.ReadFile(filepath.Join(dir, junitPath(t)))
	if err != nil {
		t.Fatalf("the JUnit report for artifacts:reports:junit: %v", err)
	}
	if !bytes.Contains(junit, []byte("<failure")) || !bytes.Contains(junit, []byte("q26")) {
		t.Errorf("JUnit report has no failing q26 case:\n%s", junit)
	}
	_ = head

	// The next pipeline on the merge request edits that note in place.
	f.reset()
	p = runPipeline(t, dir, srv.URL, mrVars(o.base))
	if p.exit == 0 {
		t.Fatalf("second pipeline passed\n%s", p.log)
	}
	cs = f.recorded()
	if n := count(cs, "POST", `/projects/42/merge_requests/7/notes`); n != 0 {
		t.Errorf("second pipeline created %d notes, want 0: %v", n, callNames(cs))
	}
	if n := count(cs, "PUT", fmt.Sprintf(`/projects/42/merge_requests/7/notes/%d`, mine.ID)); n != 1 {
		t.Errorf("second pipeline edited the gate's note %d times, want 1: %v", n, callNames(cs))
	}
	for _, n := range f.mrNotes(7) {
		if n.ID == quoted.ID && n.Body != quoted.Body {
			t.Errorf("the person's note quoting the marker was changed:\n%s", n.Body)
		}
	}
}

// junitPath is where the README's job writes the JUnit report its
// artifacts:reports:junit names.
func junitPath(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s+junit:\s*(\S+)\s*$`).FindStringSubmatch(readmeCI(t))
	if m == nil {
		m = regexp.MustCompile(`junit:\s*([^\s}]+)`).FindStringSubmatch(readmeCI(t))
	}
	if m == nil {
		t.Fatal("the README's .gitlab-ci.yml names no artifacts:reports:junit file")
	}
	return m[1]
}

// deadURL is an http URL on 127.0.0.1 where nothing listens.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/search"
}

// TestMergeRequestRetrieverDown: a merge request whose head retriever is a
// search service that is down exits 3, and the gate's note, a pass from an
// earlier pipeline, is edited to the error state: never a stale pass.
func TestMergeRequestRetrieverDown(t *testing.T) {
	glci(t)
	o := newOrigin(t, nil)
	down := strings.Replace(oneRetriever, "[retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\ntitle_boost = 2.0\n",
		"[retriever]\ntype = \"http\"\nurl = \""+deadURL(t)+"\"\nhits = \"results\"\ndoc = \"doc\"\nretries = 0\n", 1)
	o.commit("feature", map[string]string{"recallgate.toml": down}, "search service")
	f := newFakeGitLab(t, token)
	f.archives[o.base] = o.archive(o.base)
	pass := f.addNote(7, botUser, gateMarker+"\n### ✅ recallgate: pass\n\nmean recall@5 0.833 → 0.833")
	srv := f.start()
	dir := o.checkout("feature")

	p := runPipeline(t, dir, srv.URL, mrVars(o.base))
	if !regexp.MustCompile(`retrieval-gate[^\n]*FAIL 3`).MatchString(p.log) {
		t.Fatalf("the gate job did not fail with exit 3:\n%s", p.log)
	}
	cs := f.recorded()
	if n := count(cs, "PUT", fmt.Sprintf(`/projects/42/merge_requests/7/notes/%d`, pass.ID)); n != 1 {
		t.Fatalf("the pass note was edited %d times, want 1: %v", n, callNames(cs))
	}
	got := f.mrNotes(7)[0]
	if strings.Contains(got.Body, "✅") || !strings.Contains(got.Body, "could not run") || !strings.Contains(got.Body, gateMarker) {
		t.Errorf("the note after exit 3:\n%s", got.Body)
	}
	if b, err := os.ReadFile(filepath.Join(dir, junitPath(t))); err != nil || !bytes.Contains(b, []byte("<error")) {
		t.Errorf("the JUnit report after exit 3 holds no <error>: %v\n%s", err, b)
	}
}

// TestScheduleDrift: the documented schedule pipeline after a merged
// config change (the committed baseline was made before it) fails with
// exit 1, naming the retriever as the likely cause, and opens one issue
// labelled retrieval-drift; the next night, still drifted, it edits the
// same issue; the night after the change is reverted it passes and notes
// that on the same issue, which stays open.
func TestScheduleDrift(t *testing.T) {
	glci(t)
	o := newOrigin(t, nil)
	baseline := filepath.Join(o.dir, "baselines", "head.jsonl")
	os.MkdirAll(filepath.Dir(baseline), 0o755)
	gate := exec.Command(filepath.Join(recallgateBin, "recallgate"), "gate", "--config", "recallgate.toml", "--allow-identical", "--write-baseline", "baselines/head.jsonl")
	gate.Dir = o.dir
	if out, err := gate.CombinedOutput(); err != nil {
		t.Fatalf("write the baseline: %v\n%s", err, out)
	}
	git(t, o.dir, "add", "-A")
	git(t, o.dir, "commit", "-qm", "baseline")
	o.base = git(t, o.dir, "rev-parse", "HEAD")
	changed := strings.Replace(oneRetriever, "title_boost = 2.0", "chunk_words = 12", 1)
	o.commit("main", map[string]string{"recallgate.toml": changed}, "retriever: chunk the documents (merged without the gate)")

	f := newFakeGitLab(t, token)
	// A person's open issue with the label: never taken for the drift issue.
	theirs := &issue{ID: 77, IID: 1, ProjectID: 42, Title: "Retrieval drift: what is this label for?", Description: "Asking.", State: "opened", Labels: []string{publish.DriftLabel}, Author: person, WebURL: "http://gitlab.example.test/acme/rag/-/issues/1", CreatedAt: stamp, UpdatedAt: stamp}
	f.issues = append(f.issues, theirs)
	srv := f.start()
	// The documented job as it is: no variable but the schedule's.
	schedule := map[string]string{"CI_PIPELINE_SOURCE": "schedule", "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main"}

	night1 := runPipeline(t, o.checkout("main"), srv.URL, schedule)
	if night1.exit == 0 || !regexp.MustCompile(`retrieval-drift[^\n]*FAIL 1`).MatchString(night1.log) {
		t.Fatalf("night 1: the drift job did not fail with exit 1:\n%s", night1.log)
	}
	if strings.Contains(night1.log, "retrieval-gate ") {
		t.Errorf("the merge request gate ran in a schedule pipeline:\n%s", night1.log)
	}
	cs := f.recorded()
	if n := count(cs, "POST", `/projects/42/issues`); n != 1 || len(f.issues) != 2 {
		t.Fatalf("night 1: %d issues opened, want 1: %v", n, callNames(cs))
	}
	if n := count(cs, "PUT", `/projects/42/issues/1`) + count(cs, "POST", `/projects/42/issues/1/notes`); n != 0 || theirs.Description != "Asking." {
		t.Errorf("the person's labelled issue was written to: %v", callNames(cs))
	}
	is := f.issues[1]
	if !hasAll(is.Labels, []string{publish.DriftLabel}) || !strings.Contains(is.Description, "changed since the baseline (the likely cause): retriever") {
		t.Errorf("the drift issue: labels %v\n%s", is.Labels, is.Description)
	}
	for _, c := range cs {
		if c.Method == "GET" && c.Path == "/projects/42/issues" && !strings.Contains(c.Query, "labels="+publish.DriftLabel) {
			t.Errorf("issues listed without the label: %s?%s", c.Path, c.Query)
		}
	}

	// Night 2: still drifted; the same issue is edited, no other opened.
	f.reset()
	o.commit("main", map[string]string{"NOTES.md": "nothing retrieval reads\n"}, "notes")
	night2 := runPipeline(t, o.checkout("main"), srv.URL, schedule)
	cs = f.recorded()
	if night2.exit == 0 || count(cs, "POST", `/projects/42/issues`) != 0 || count(cs, "PUT", fmt.Sprintf(`/projects/42/issues/%d`, is.IID)) != 1 || len(f.issues) != 2 {
		t.Fatalf("night 2: exit %d, want a failure editing issue %d only: %v\n%s", night2.exit, is.IID, callNames(cs), night2.log)
	}

	// Night 3: the change reverted, back at the baseline: it passes and
	// notes that on the same issue.
	f.reset()
	o.commit("main", map[string]string{"recallgate.toml": oneRetriever}, "retriever: revert the chunking")
	night3 := runPipeline(t, o.checkout("main"), srv.URL, schedule)
	if night3.exit != 0 {
		t.Fatalf("night 3 (back at the baseline) failed:\n%s", night3.log)
	}
	cs = f.recorded()
	if n := count(cs, "POST", `/projects/42/issues`); n != 0 || len(f.issueNts[theirs.IID]) != 0 {
		t.Errorf("night 3 opened %d more issues or noted the person's: %v", n, callNames(cs))
	}
	if n := count(cs, "POST", fmt.Sprintf(`/projects/42/issues/%d/notes`, is.IID)); n != 1 {
		t.Errorf("night 3 noted the issue %d times, want 1: %v", n, callNames(cs))
	}
	if len(f.issueNts[is.IID]) != 1 || !strings.Contains(f.issueNts[is.IID][0].Body, "passes") || is.State != "opened" {
		t.Errorf("issue after night 3: %s, notes %v", is.State, f.issueNts[is.IID])
	}
}

// TestMergedResultsPipeline: a merged results pipeline (the same for a
// merge train) runs on the merge of the change into the target branch's
// newer commit; the gate's base side is that target commit
// (CI_MERGE_REQUEST_TARGET_BRANCH_SHA), not the merge request's older diff
// base, whose archive the fake does not even have.
func TestMergedResultsPipeline(t *testing.T) {
	glci(t)
	o := newOrigin(t, nil)
	feature := o.commit("feature", map[string]string{editedDoc: regressingEdit}, "shorter audit-log doc")
	target := o.commit("main", map[string]string{"NOTES.md": "main moved on\n"}, "main moves on")
	git(t, o.dir, "checkout", "-q", "-b", "merged", target)
	git(t, o.dir, "merge", "-q", "--no-ff", "-m", "merge feature", feature)
	git(t, o.dir, "checkout", "-q", "main")

	f := newFakeGitLab(t, token)
	f.archives[target] = o.archive(target)
	srv := f.start()
	vars := mrVars(o.base)
	vars["CI_MERGE_REQUEST_EVENT_TYPE"] = "merged_result"
	vars["CI_MERGE_REQUEST_TARGET_BRANCH_SHA"] = target
	vars["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"] = feature
	p := runPipeline(t, o.checkout("merged"), srv.URL, vars)
	if !regexp.MustCompile(`retrieval-gate[^\n]*FAIL 1`).MatchString(p.log) {
		t.Fatalf("the merged results job did not fail with exit 1:\n%s", p.log)
	}
	cs := f.recorded()
	for _, c := range cs {
		if strings.HasSuffix(c.Path, "/archive.tar.gz") && !strings.Contains(c.Query, "sha="+target) {
			t.Errorf("archive of %q, want the target branch's commit %s", c.Query, target)
		}
	}
	if n := count(cs, "POST", `/projects/42/merge_requests/7/notes`); n != 1 {
		t.Errorf("%d notes created, want 1: %v", n, callNames(cs))
	}
}

// fullCheckout is a clone of branch with its whole history (GIT_DEPTH: 0),
// so the base commit is in it.
func (o *origin) fullCheckout(branch string) string {
	o.t.Helper()
	dir := filepath.Join(o.t.TempDir(), "rag")
	git(o.t, filepath.Dir(dir), "clone", "-q", "--branch", branch, "file://"+o.dir, dir)
	git(o.t, dir, "fetch", "-q", "origin", "main:refs/remotes/origin/main")
	git(o.t, dir, "remote", "set-url", "origin", gitlabRemoteURL)
	return dir
}

// TestMergeRequestBadInput: under the runner, a token GitLab refuses (401:
// no api scope, expired) warns and keeps the verdict and exit code (the
// base side then comes from the full clone's history); a merge request
// pipeline without CI_MERGE_REQUEST_DIFF_BASE_SHA stops with exit 2
// naming the variable.
func TestMergeRequestBadInput(t *testing.T) {
	glci(t)
	o := newOrigin(t, nil)
	o.commit("feature", map[string]string{editedDoc: regressingEdit}, "shorter audit-log doc")
	f := newFakeGitLab(t, "glpat-theTokenGitLabKnows000000")
	srv := f.start()
	dir := o.fullCheckout("feature")

	p := runPipeline(t, dir, srv.URL, mrVars(o.base))
	if !regexp.MustCompile(`retrieval-gate[^\n]*FAIL 1`).MatchString(p.log) {
		t.Errorf("with a refused token the job did not keep exit 1:\n%s", p.log)
	}
	if !strings.Contains(p.log, "401") || !strings.Contains(p.log, "warning") {
		t.Errorf("no warning naming GitLab's 401:\n%s", p.log)
	}
	if n := count(f.recorded(), "POST", `/projects/42/merge_requests/\d+/notes`) + len(f.mrNotes(7)); n != 0 {
		t.Errorf("a note was written with a refused token")
	}

	vars := mrVars(o.base)
	delete(vars, "CI_MERGE_REQUEST_DIFF_BASE_SHA")
	p = runPipeline(t, dir, srv.URL, vars)
	if !regexp.MustCompile(`retrieval-gate[^\n]*FAIL 2`).MatchString(p.log) || !strings.Contains(p.log, "CI_MERGE_REQUEST_DIFF_BASE_SHA") {
		t.Errorf("without the diff base the job did not stop with exit 2 naming CI_MERGE_REQUEST_DIFF_BASE_SHA:\n%s", p.log)
	}
}

// TestDocumentedCIIsFound needs no runner: the .gitlab-ci.yml the suite
// runs is still found under its heading, with both jobs' scripts, so a
// moved page fails here and not only under test/gitlab/run.sh.
func TestDocumentedCIIsFound(t *testing.T) {
	for _, job := range []string{"retrieval-gate", "retrieval-drift"} {
		if s := jobScript(t, job); !strings.HasPrefix(s[0], "recallgate ci ") {
			t.Errorf("the %s job's script starts %q, want a recallgate ci line", job, s[0])
		}
	}
}
