package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// gitlabSecrets are the GitLab job's credentials, with a value each: the
// token recallgate writes with and what GitLab puts in every job.
var gitlabSecrets = map[string]string{
	"RECALLGATE_GITLAB_TOKEN":      glToken,
	"CI_JOB_TOKEN":                 "glcbt-jobtoken",
	"CI_JOB_JWT":                   "jwt-v1-secret",
	"CI_JOB_JWT_V2":                "jwt-v2-secret",
	"CI_REGISTRY_PASSWORD":         "registry-secret",
	"CI_DEPLOY_PASSWORD":           "deploy-secret",
	"CI_DEPENDENCY_PROXY_PASSWORD": "proxy-secret",
	"CI_REPOSITORY_URL":            "https://gitlab-ci-token:glcbt-in-url@gitlab.example/acme/rag.git",
	"GITLAB_TOKEN":                 "glpat-glab-cli",
	"GL_TOKEN":                     "glpat-semantic-release",
}

// TestGitLabTokensOutOfReach: under GitLab CI a command retriever's
// environment never holds the job's credentials, and a config that asks
// for one by name (env = [...], or an http header's ${VAR}) is refused with
// exit 2 before anything runs, as GITHUB_TOKEN is.
func TestGitLabTokensOutOfReach(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	envOut := filepath.Join(dir, "child-env.txt")
	write(t, dir, "spy.py", `import json, os, sys
with open(sys.argv[1], "w") as f:
    for k, v in sorted(os.environ.items()):
        f.write(k + "=" + v + "\n")
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps({"id": req["id"], "hits": [{"doc": "a"}, {"doc": "c"}]}), flush=True)
`)
	cfg := write(t, dir, "spy.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"spy.py\", %q]\nenv = [\"EMBEDDER_KEY\"]\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", envOut))
	vars := glJob("http://127.0.0.1:1", dir, "")
	vars["CI_PIPELINE_SOURCE"] = "push"
	vars["RECALLGATE_CONFIG"] = cfg
	vars["RECALLGATE_ALLOW_IDENTICAL"] = "true"
	vars["RECALLGATE_JUNIT"] = ""
	vars["PATH"] = os.Getenv("PATH")
	vars["EMBEDDER_KEY"] = "the-embedder-key"
	for k, v := range gitlabSecrets {
		vars[k] = v
	}
	if code, out, errs := runCI(t, vars); code > 1 {
		t.Fatalf("ci: exit %d\n%s\n%s", code, out, errs)
	}
	child := string(must(os.ReadFile(envOut)))
	for name, v := range gitlabSecrets {
		if strings.Contains(child, v) || strings.Contains(child, name+"=") {
			t.Errorf("the command retriever's environment holds %s:\n%s", name, child)
		}
	}
	if !strings.Contains(child, "EMBEDDER_KEY=the-embedder-key\n") {
		t.Errorf("the command retriever lacks the variable its config names:\n%s", child)
	}

	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		fmt.Fprint(w, `{"hits":[{"doc":"a"}]}`)
	}))
	t.Cleanup(srv.Close)
	getenv := func(k string) string { return vars[k] }
	for name := range gitlabSecrets {
		for _, name := range []string{name, strings.ToLower(name)} {
			bad := write(t, dir, "bad-env.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"spy.py\", %q]\nenv = [%q]\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", envOut, name))
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"gate", "--config", bad}, getenv, &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), "base.retriever.env: "+name+" is one of the runner's credentials") {
				t.Errorf("env = [%q]: exit %d %s", name, code, errb.String())
			}
		}
		hdr := write(t, dir, "hdr.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"http\"\nurl = %q\nheaders = { Authorization = \"Bearer ${%s}\" }\nhits = \"hits\"\ndoc = \"doc\"\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", srv.URL, name))
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"gate", "--config", hdr}, getenv, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "base.retriever: header Authorization reads "+name) || !strings.Contains(errb.String(), "never sent to a retriever") {
			t.Errorf("header ${%s}: exit %d %s", name, code, errb.String())
		}
	}
	if len(got) != 0 {
		t.Errorf("the service was called with %q", got)
	}
}

// echoing wraps the fake GitLab so that the answers to the paths in codes
// are refusals whose body repeats the token, as a proxy or a misconfigured
// server may.
func echoing(t *testing.T, g *fakeGitLab, codes map[string]int) *httptest.Server {
	inner := g.server(t).Config.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, ok := codes[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"message":"%d refused: token %s (PRIVATE-TOKEN %s) may not"}`, code, r.Header.Get("PRIVATE-TOKEN"), r.Header.Get("PRIVATE-TOKEN"))
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCIGitLabTokenMasked: GitLab masks a variable in the job log only
// when its owner ticked "masked"; recallgate masks the token itself. An
// API answer that repeats the token (GET /user refused, the archive
// refused: exit 3, its error in the note and the JSON report) never puts it
// in the log, the note or the report.
func TestCIGitLabTokenMasked(t *testing.T) {
	t.Run("user refused", func(t *testing.T) {
		g := &fakeGitLab{}
		srv := echoing(t, g, map[string]int{"/api/v4/user": 401})
		ws, base := frozenSetRepo(t)
		vars := glJob(srv.URL, ws, base)
		vars["RECALLGATE_CONFIG"] = filepath.Join(ws, "frozen-set", "recallgate.toml")
		vars["RECALLGATE_JUNIT"] = filepath.Join(t.TempDir(), "j.xml")
		code, out, errs := runCI(t, vars)
		if code != 1 || !strings.Contains(errs, "GitLab answered 401") || !strings.Contains(errs, "[MASKED]") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
	})
	t.Run("archive refused", func(t *testing.T) {
		f := newFixture(t, builtinConfig)
		g := &fakeGitLab{archive: archiveFixture(t, f)}
		srv := echoing(t, g, map[string]int{"/api/v4/projects/42/repository/archive.tar.gz": 403})
		f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
		vars := glJob(srv.URL, f.dir, f.base)
		vars["RECALLGATE_WORKING_DIRECTORY"] = filepath.Join(f.dir, "rag")
		vars["RECALLGATE_JUNIT"] = filepath.Join(t.TempDir(), "j.xml")
		code, out, errs := runCI(t, vars)
		if code != 3 || len(g.notes) != 1 || !strings.Contains(errs, "[MASKED]") {
			t.Fatalf("exit %d, %d notes\n%s\n%s", code, len(g.notes), out, errs)
		}
		files, _ := filepath.Glob(filepath.Join(f.dir, ".recallgate", "*.json"))
		texts := map[string]string{"the note": g.notes[0]["body"].(string), "the JUnit report": string(must(os.ReadFile(vars["RECALLGATE_JUNIT"])))}
		for _, p := range files {
			texts[p] = string(must(os.ReadFile(p)))
		}
		if len(files) == 0 {
			t.Errorf("no JSON report in .recallgate/")
		}
		for what, text := range texts {
			if strings.Contains(text, glToken) {
				t.Errorf("%s holds the token:\n%.1500s", what, text)
			}
		}
	})
}

// liveInNote finds, in the text a GitLab note renders to (entities
// decoded, code blocks left out), a reference GitLab would resolve or a
// quick action it would run.
var liveInNote = regexp.MustCompile(`(?:^|[^\w\x{200b}])(?:[!$&#]\d|[~%][\w"]|@\w)|\w[!#]\d|\[\w+:|\*iteration:|^\s*/\w`)

// TestCIGitLabErrorNoteInert: a retriever that dies with hostile stderr
// (quick actions on their own lines, @all, GitLab references, HTML) makes
// the error note (exit 3) say so with nothing in it live.
func TestCIGitLabErrorNoteInert(t *testing.T) {
	needTool(t, "python3", "git")
	g := &fakeGitLab{}
	srv := g.server(t)
	dir := t.TempDir()
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	hostile := "/merge\n/approve\n  /close\n@all see !12 ~bug %v1 &3 $4 #5 [vulnerability:6] *iteration:7 <img src=x onerror=alert(1)>"
	write(t, dir, "die.py", fmt.Sprintf("import sys\nsys.stderr.write(%q)\nsys.exit(1)\n", hostile))
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n[base.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n[head.retriever]\ntype = \"command\"\ncommand = [\"python3\", \"die.py\"]\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	base := strings.TrimSpace(string(must(exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output())))
	vars := glJob(srv.URL, dir, base)
	vars["RECALLGATE_CONFIG"], vars["RECALLGATE_JUNIT"], vars["PATH"] = cfg, "", os.Getenv("PATH")
	code, out, errs := runCI(t, vars)
	if code != 3 || len(g.notes) != 1 {
		t.Fatalf("exit %d, %d notes\n%s\n%s", code, len(g.notes), out, errs)
	}
	note := g.notes[0]["body"].(string)
	if !strings.Contains(note, "could not run") || !strings.Contains(note, "vulnerability:") || !strings.Contains(note, "onerror") {
		t.Errorf("the error note does not carry the retriever's words:\n%s", note)
	}
	if strings.Contains(note, "<img") {
		t.Errorf("the note carries HTML:\n%s", note)
	}
	t.Run("cmark-gfm", func(t *testing.T) { cmarkgfm.AssertInertGitLab(t, note, hostile) })
	fence := false
	for i, line := range strings.Split(html.UnescapeString(note), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence {
			continue
		}
		if loc := liveInNote.FindStringIndex(line); loc != nil {
			t.Errorf("note line %d is live at %q: %s", i+1, line[loc[0]:loc[1]], line)
		}
	}
}

// githubWords are GitHub's words that have no place in a GitLab job's log,
// note or error report.
var githubWords = []string{"PR comment", "job summary", "pull request", "owner/name", "actions/checkout", "fetch-depth", "action mode", "contents: read"}

// TestCIGitLabSpeaksGitLab: what a GitLab job writes (log, note, error
// report) says "merge request note", "the job log", GIT_DEPTH: never
// GitHub's words.
func TestCIGitLabSpeaksGitLab(t *testing.T) {
	check := func(t *testing.T, what, text string) {
		t.Helper()
		for _, w := range githubWords {
			if strings.Contains(text, w) {
				t.Errorf("%s says %q:\n%s", what, w, text)
			}
		}
	}
	t.Run("no token", func(t *testing.T) {
		ws, base := frozenSetRepo(t)
		vars := glJob("http://127.0.0.1:1", ws, base)
		delete(vars, "RECALLGATE_GITLAB_TOKEN")
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_JUNIT"] = filepath.Join(ws, "frozen-set", "recallgate.toml"), ""
		code, out, errs := runCI(t, vars)
		if code != 1 || !strings.Contains(errs, "the merge request note is skipped (the job log has the report)") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
		check(t, "the log", out+errs)
	})
	t.Run("refused", func(t *testing.T) {
		g := &fakeGitLab{userCode: 403}
		srv := g.server(t)
		ws, base := frozenSetRepo(t)
		vars := glJob(srv.URL, ws, base)
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_JUNIT"] = filepath.Join(ws, "frozen-set", "recallgate.toml"), ""
		code, out, errs := runCI(t, vars)
		if code != 1 || !strings.Contains(errs, "Merge request note not posted: ") || !strings.Contains(errs, "the report is in the job log.") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
		check(t, "the log", out+errs)
	})
	t.Run("base unreachable", func(t *testing.T) {
		f := newFixture(t, builtinConfig)
		archiveFixture(t, f)
		g := &fakeGitLab{} // no archive: 404
		srv := g.server(t)
		vars := glJob(srv.URL, f.dir, f.base)
		vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = filepath.Join(f.dir, "rag"), ""
		code, out, errs := runCI(t, vars)
		if code != 3 || len(g.notes) != 1 {
			t.Fatalf("exit %d, %d notes\n%s\n%s", code, len(g.notes), out, errs)
		}
		note := g.notes[0]["body"].(string)
		if !strings.Contains(note, "**fix:** make the base commit reachable: GitLab clones shallow") {
			t.Errorf("the note's fix is not GitLab's:\n%s", note)
		}
		check(t, "the note", note)
		files, _ := filepath.Glob(filepath.Join(f.dir, ".recallgate", "*.json"))
		for _, p := range files {
			check(t, p, string(must(os.ReadFile(p))))
		}
		check(t, "the log", out+errs)
	})
	t.Run("push", func(t *testing.T) {
		ws := t.TempDir()
		src, _ := filepath.Abs("../../frozen-set")
		if err := os.CopyFS(filepath.Join(ws, "frozen-set"), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		vars := glJob("http://127.0.0.1:1", ws, "")
		vars["CI_PIPELINE_SOURCE"], vars["CI_MERGE_REQUEST_IID"] = "push", ""
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_JUNIT"] = filepath.Join(ws, "frozen-set", "recallgate.toml"), ""
		vars["RECALLGATE_WORKING_DIRECTORY"] = filepath.Join(ws, "frozen-set")
		vars["RECALLGATE_BASE_RESULTS"], vars["RECALLGATE_HEAD_RESULTS"] = "runs/base.jsonl", "runs/head.jsonl"
		code, out, errs := runCI(t, vars)
		if code != 1 || !strings.Contains(errs, "(no merge request)") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
		check(t, "the log", out+errs)
	})
	t.Run("drift error", func(t *testing.T) {
		g := &fakeGitLab{}
		srv := g.server(t)
		dir := t.TempDir()
		vars := glJob(srv.URL, dir, "")
		vars["CI_PIPELINE_SOURCE"], vars["CI_MERGE_REQUEST_IID"] = "schedule", ""
		vars["RECALLGATE_CONFIG"], vars["RECALLGATE_JUNIT"] = filepath.Join(dir, "missing.toml"), ""
		vars["RECALLGATE_BASELINE"] = filepath.Join(dir, "base.jsonl")
		code, out, errs := runCI(t, vars)
		if code != 2 || !strings.Contains(errs, "the drift issue is not updated: the run could not finish (the job log says why)") || len(g.issues) != 0 {
			t.Errorf("exit %d, %d issues\n%s\n%s", code, len(g.issues), out, errs)
		}
		check(t, "the log", out+errs)
	})
}

// TestCIGitLabTwoGatesTwoNotes: a project with a gate at its root
// (recallgate.toml) and one in frozen-set/ (its recallgate.toml, the same
// config input) keeps two notes on the merge request: GitLab has no
// earlier release's marker to take over, so the second gate never
// overwrites the first's note.
func TestCIGitLabTwoGatesTwoNotes(t *testing.T) {
	g := &fakeGitLab{}
	srv := g.server(t)
	ws, base := frozenSetRepo(t)
	root := "<!-- recallgate: recallgate.toml -->\n### ✅ recallgate · the root gate: pass"
	g.notes = append(g.notes, map[string]any{"id": 60, "body": root, "system": false, "author": map[string]any{"id": 900, "username": "project_42_bot_1"}})
	vars := glJob(srv.URL, ws, base)
	vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_CONFIG"], vars["RECALLGATE_JUNIT"] = filepath.Join(ws, "frozen-set"), "recallgate.toml", ""
	code, out, errs := runCI(t, vars)
	if code != 1 || len(g.notes) != 2 || g.notes[0]["body"] != root || !strings.HasPrefix(g.notes[1]["body"].(string), "<!-- recallgate: frozen-set/recallgate.toml -->\n") {
		t.Errorf("exit %d, notes %.300v\n%s\n%s", code, g.notes, out, errs)
	}
}

// TestCIHelpMatchesREADME: `recallgate ci --help` shows the documented
// .gitlab-ci.yml (docs/gitlab-ci.md): its image (the :v1-gitlab tag with
// a shell) and its recallgate lines, so a team copying either gets the
// same jobs.
func TestCIHelpMatchesREADME(t *testing.T) {
	block := ""
	for _, b := range docBlocks(t, "yaml") {
		if strings.HasPrefix(b.Text, "# .gitlab-ci.yml\n") {
			block = b.Text
			break
		}
	}
	if block == "" {
		t.Fatal("README.md and docs/*.md show no .gitlab-ci.yml block")
	}
	help := examples("ci")
	var want []string
	for _, line := range strings.Split(block, "\n") {
		l := strings.TrimSpace(line)
		if i := strings.Index(l, "   #"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if strings.HasPrefix(l, "image:") || strings.HasPrefix(l, "- recallgate ") {
			want = append(want, l)
		}
	}
	if len(want) < 3 {
		t.Fatalf("the documented .gitlab-ci.yml: found %q", want)
	}
	for _, l := range want {
		if !strings.Contains(help, l) {
			t.Errorf("recallgate ci --help lacks the documented %q:\n%s", l, help)
		}
	}
}

// hostileArchive is a tar.gz in GitLab's layout (one top folder) with one
// entry of the given kind.
func hostileArchive(t *testing.T, hdr *tar.Header, body string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	ok := &tar.Header{Name: "rag-c0ffee/rag/recallgate.toml", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg}
	for _, h := range []*tar.Header{ok, hdr} {
		b := "x\n"
		if h == hdr {
			b = body
		}
		h.Size = int64(len(b))
		if h.Typeflag == tar.TypeSymlink {
			h.Size, b = 0, ""
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(b))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// TestCIGitLabUnsafeArchiveRefused: GitLab's archive of the base commit
// goes through basetree's checks as GitHub's does: an entry that climbs
// out with "..", an absolute name, or a link out of the tree stops the job
// (exit 3) naming the entry, and nothing lands outside the base tree.
func TestCIGitLabUnsafeArchiveRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		hdr  *tar.Header
		want string
	}{
		"dotdot":   {&tar.Header{Name: "rag-c0ffee/../../escaped.txt", Mode: 0o644, Typeflag: tar.TypeReg}, `climbs out with ".."`},
		"absolute": {&tar.Header{Name: "/tmp/escaped-abs.txt", Mode: 0o644, Typeflag: tar.TypeReg}, "absolute or malformed name"},
		"symlink":  {&tar.Header{Name: "rag-c0ffee/rag/link", Linkname: "../../../../../../etc", Typeflag: tar.TypeSymlink}, "rag-c0ffee/rag/link"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, builtinConfig)
			archiveFixture(t, f)
			g := &fakeGitLab{archive: hostileArchive(t, tc.hdr, "pwned\n")}
			srv := g.server(t)
			vars := glJob(srv.URL, f.dir, f.base)
			vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"], vars["RECALLGATE_COMMENT"] = filepath.Join(f.dir, "rag"), "", "never"
			vars["TMPDIR"] = t.TempDir()
			code, out, errs := runCI(t, vars)
			if code != 3 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 3 naming %q\n%s\n%s", code, tc.want, out, errs)
			}
			for _, p := range []string{filepath.Join(filepath.Dir(f.dir), "escaped.txt"), "/tmp/escaped-abs.txt"} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
}

// TestCIGitLabPolicyFromBase: a merge request that regresses and loosens
// its own [gate] is judged on GitLab by the base commit's config, as on
// GitHub, and the note says what it changes (in GitLab's words: "this
// merge request", not "this PR").
func TestCIGitLabPolicyFromBase(t *testing.T) {
	f := newFixture(t, builtinConfig)
	regressCorpus(f)
	f.put("rag/recallgate.toml", builtinConfig+"[gate]\nmax_recall_drop = 1.0\nmax_new_misses = 30\n")
	f.commit("regress and loosen the gate")
	g := &fakeGitLab{}
	srv := g.server(t)
	vars := glJob(srv.URL, f.dir, f.base)
	vars["RECALLGATE_WORKING_DIRECTORY"], vars["RECALLGATE_JUNIT"] = filepath.Join(f.dir, "rag"), ""
	code, out, errs := runCI(t, vars)
	if code != 1 || len(g.notes) != 1 {
		t.Fatalf("exit %d, %d notes\n%s\n%s", code, len(g.notes), out, errs)
	}
	if note := g.notes[0]["body"].(string); !strings.Contains(note, "this merge request changes the gate: max&#95;recall&#95;drop 0.02 → 1.00") || !strings.Contains(note, "takes effect after merge") || strings.Contains(note, "PR") {
		t.Errorf("the note does not say the merge request loosens the gate:\n%.2000s", note)
	}
}
