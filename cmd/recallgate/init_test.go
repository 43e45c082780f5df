package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitThenValidateThenGate: in a fresh git repository, `init` writes
// the files and exits 0, `validate --config recallgate.toml` accepts them,
// and once they are on main a pull request that rewords the starter
// corpus's billing pages (refunds no longer says "refunds"; invoices now
// says "take") is gated: q1 finds only billing/invoices and loses
// billing/refunds, exit 1. The starter works out of the box.
func TestInitThenValidateThenGate(t *testing.T) {
	f := &fixture{t: t, dir: gitDir(t)}
	f.git("init", "-q", "-b", "main")
	f.put("README.md", "# our service\n")
	t.Chdir(f.dir)
	code, out, errs := rg(t, "init")
	if code != 0 || !strings.Contains(out, "wrote .github/workflows/recallgate.yml\n") || !strings.Contains(out, "next steps:") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := rg(t, "validate", "--config", "recallgate.toml"); code != 0 {
		t.Fatalf("validate of what init wrote: exit %d\n%s%s", code, out, errs)
	}
	f.commit("recallgate init")
	f.git("checkout", "-q", "-b", "pr")
	f.put("eval/corpus/billing/refunds.md", "# Money back\n\nMoney goes back to the card you paid with.\n")
	f.put("eval/corpus/billing/invoices.md", "# Invoices\n\nInvoices take a day to appear on the billing page.\n")
	f.commit("reword the billing pages")
	code, out, errs = rg(t, "gate", "--config", "recallgate.toml", "--base-ref", "main")
	if code != 1 || !strings.Contains(out, "q1  recall@50 1.000 → 0.000  lost: billing/refunds") {
		t.Errorf("gate on a pull request after init: exit %d, want 1 with q1 regressed\n%s%s", code, out, errs)
	}
}

// TestInitGitLabAndRefusal: --ci gitlab writes .gitlab-ci.yml (whose job
// is the documented merge request job) and validates; a second init
// exits 2 naming every file that is there and writes nothing.
func TestInitGitLabAndRefusal(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := rg(t, "init", "--dir", dir, "--ci", "gitlab")
	if code != 0 {
		t.Fatalf("init --ci gitlab: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".github")); err == nil {
		t.Error("init --ci gitlab wrote a GitHub workflow")
	}
	ci := string(must(os.ReadFile(filepath.Join(dir, ".gitlab-ci.yml"))))
	documented := strings.Join(gitlabScript(t), "\n")
	if _, job, ok := strings.Cut(ci, "\nretrieval-gate:\n"); !ok || !strings.Contains(job, "    - "+documented+"\n") {
		t.Errorf("the init .gitlab-ci.yml's retrieval-gate job does not run the documented %q:\n%s", documented, ci)
	}
	if code, out, errs := rg(t, "validate", "--config", filepath.Join(dir, "recallgate.toml")); code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}
	if err := os.Remove(filepath.Join(dir, "recallgate.toml")); err != nil {
		t.Fatal(err)
	}
	code, out, errs = rg(t, "init", "--dir", dir)
	if code != 2 || !strings.Contains(errs, "eval/queries.jsonl, eval/corpus/billing/refunds.md, eval/corpus/billing/invoices.md already exist: init never overwrites a file") || out != "" {
		t.Errorf("a second init: exit %d, want 2 naming the files\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "recallgate.toml")); err == nil {
		t.Error("the refused init wrote recallgate.toml")
	}
}

// TestInitWorkflowIsTheDocumentedOne: the workflow init writes is the
// pull-request workflow docs/github-actions.md shows, from its on: line.
func TestInitWorkflowIsTheDocumentedOne(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := rg(t, "init", "--dir", dir); code != 0 {
		t.Fatal(errs)
	}
	written := string(must(os.ReadFile(filepath.Join(dir, ".github", "workflows", "recallgate.yml"))))
	blocks := docSection(t, "# GitHub Actions")
	documented := blockOf(t, blocks, "yaml").Text
	_, w, ok1 := strings.Cut(written, "\non: ")
	_, d, ok2 := strings.Cut(documented, "\non: ")
	if !ok1 || !ok2 || w != d {
		t.Errorf("init's workflow:\n%s\nthe documented one:\n%s", written, documented)
	}
}

// gitDir is a temporary folder by its real path (git prints real paths).
func gitDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInitFirstPullRequest: the pull request that adds what init wrote
// (config, set and corpus all new) is not red for want of a base: the base
// commit cannot run the config it brings, so the head stands for both
// sides, exit 0, and the report says why.
func TestInitFirstPullRequest(t *testing.T) {
	f := &fixture{t: t, dir: gitDir(t)}
	f.git("init", "-q", "-b", "main")
	f.put("README.md", "# our service\n")
	f.commit("start")
	f.git("checkout", "-q", "-b", "adopt")
	t.Chdir(f.dir)
	if code, out, errs := rg(t, "init"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	f.commit("recallgate init")
	code, out, errs := rg(t, "gate", "--config", "recallgate.toml", "--base-ref", "main")
	if code != 0 || !strings.Contains(out+errs, "this change adopts recallgate: the base commit") || !strings.Contains(out, "the head's run stands for both sides") {
		t.Errorf("gate on the pull request that adds init's files: exit %d, want 0 saying it adopts recallgate\n%s%s", code, out, errs)
	}
}

// TestInitForACommandRetriever: `init --retriever command` writes a
// command retriever (retriever.py over the starter corpus) and the
// native action's workflow (the Docker action's image cannot start
// python3); validate accepts it, and a pull request that rewords the
// refunds page fails on q1 as the builtin starter does. `--retriever
// http` writes search_service.py, started by the table's start, and the
// native action's workflow (TestInitForAnHTTPService); a GitLab job
// cannot start a command.
func TestInitForACommandRetriever(t *testing.T) {
	f := &fixture{t: t, dir: gitDir(t)}
	f.git("init", "-q", "-b", "main")
	t.Chdir(f.dir)
	code, out, errs := rg(t, "init", "--retriever", "command")
	if code != 0 || !strings.Contains(out, "wrote retriever.py\n") || !strings.Contains(out, "wrote .github/workflows/recallgate.yml\n") {
		t.Fatalf("init --retriever command: exit %d\n%s%s", code, out, errs)
	}
	wf := string(must(os.ReadFile(".github/workflows/recallgate.yml")))
	if !strings.Contains(wf, "uses: recallgate/recallgate/native@v1") || strings.Contains(wf, "uses: recallgate/recallgate@v1") || !strings.Contains(wf, "actions/setup-python@") {
		t.Errorf("the workflow for a command retriever is not the native action's:\n%s", wf)
	}
	conf := string(must(os.ReadFile("recallgate.toml")))
	if !strings.Contains(conf, "type = \"command\"\ncommand = [\"python3\", \"retriever.py\"]") || !strings.Contains(conf, "\ncorpus = \"eval/corpus\"\n") {
		t.Errorf("recallgate.toml:\n%s", conf)
	}
	if code, out, errs := rg(t, "validate", "--config", "recallgate.toml"); code != 0 {
		t.Fatalf("validate of what init --retriever command wrote: exit %d\n%s%s", code, out, errs)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		f.commit("recallgate init")
		f.git("checkout", "-q", "-b", "pr")
		f.put("eval/corpus/billing/refunds.md", "# Money back\n\nMoney goes back to the card you paid with.\n")
		f.commit("reword the refunds page")
		code, out, errs = rg(t, "gate", "--config", "recallgate.toml", "--base-ref", "main")
		if code != 1 || !strings.Contains(out, "q1  recall@50 1.000 → 0.000  lost: billing/refunds") {
			t.Errorf("gate with the command starter: exit %d, want 1 with q1 regressed\n%s%s", code, out, errs)
		}
	} else {
		t.Log("python3 is not installed: the command starter's gate is not run")
	}

	dir := t.TempDir()
	if code, out, errs := rg(t, "init", "--dir", dir, "--retriever", "http"); code != 0 {
		t.Fatalf("init --retriever http: exit %d\n%s%s", code, out, errs)
	}
	if wf := string(must(os.ReadFile(filepath.Join(dir, ".github/workflows/recallgate.yml")))); !strings.Contains(wf, "uses: recallgate/recallgate/native@v1") {
		t.Errorf("the workflow for an http retriever (a service recallgate starts) is not the native action's:\n%s", wf)
	}
	if conf := string(must(os.ReadFile(filepath.Join(dir, "recallgate.toml")))); !strings.Contains(conf, "type = \"http\"\nstart = [\"python3\", \"search_service.py\", \"--port\", \"{port}\"]\nurl = \"http://127.0.0.1:{port}/search\"") ||
		!strings.Contains(conf, "#   [head.retriever]  url = \"${PREVIEW_SEARCH_URL}/docs/_search\"") {
		t.Errorf("init --retriever http: the table does not start search_service.py, or the deployed form is not in a comment:\n%s", conf)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		// validate starts the starter service and sends it the preflight.
		if code, out, errs := rg(t, "validate", "--config", filepath.Join(dir, "recallgate.toml")); code != 0 || !strings.Contains(out, "ok: retriever (this checkout): http://127.0.0.1:") {
			t.Errorf("validate of what init --retriever http wrote: exit %d\n%s%s", code, out, errs)
		}
	}
	if code, out, errs := rg(t, "validate", "--offline", "--config", filepath.Join(dir, "recallgate.toml")); code != 0 {
		t.Errorf("validate --offline of what init --retriever http wrote: exit %d\n%s%s", code, out, errs)
	}
	dir = t.TempDir()
	if code, out, errs := rg(t, "init", "--dir", dir, "--ci", "gitlab", "--retriever", "http"); code != 0 {
		t.Fatalf("init --ci gitlab --retriever http: exit %d\n%s%s", code, out, errs)
	}
	if conf := string(must(os.ReadFile(filepath.Join(dir, "recallgate.toml")))); !strings.Contains(conf, "[head.retriever]\ntype = \"http\"\nurl = \"${PREVIEW_SEARCH_URL}/docs/_search\"") {
		t.Errorf("init --ci gitlab --retriever http: no per-side deployments:\n%s", conf)
	}
	if _, err := os.Stat(filepath.Join(dir, "search_service.py")); err == nil {
		t.Errorf("init --ci gitlab --retriever http wrote a service its job cannot start")
	}
	dir = t.TempDir()
	if code, _, errs := rg(t, "init", "--dir", dir, "--ci", "gitlab", "--retriever", "command"); code != 2 || !strings.Contains(errs, "cannot start a program such as python3") {
		t.Errorf("init --ci gitlab --retriever command: exit %d, want 2 saying why\n%s", code, errs)
	}
	if code, _, errs := rg(t, "init", "--dir", dir, "--retriever", "vector"); code != 2 || !strings.Contains(errs, `--retriever "vector": want builtin, command, http`) {
		t.Errorf("init --retriever vector: exit %d\n%s", code, errs)
	}
}

// TestDepthWarnsOverHalfTheCorpus: init's candidates = 50 over a corpus
// of 120 documents does not warn (under half); over 100 both validate
// and the gate warn that recall@50 hides drops.
func TestDepthWarnsOverHalfTheCorpus(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := rg(t, "init", "--dir", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	cfg := filepath.Join(dir, "recallgate.toml")
	conf := string(must(os.ReadFile(cfg)))
	write(t, dir, "recallgate.toml", strings.Replace(conf, "[retriever]\ntype = \"builtin\"", "[base.retriever]\ntype = \"builtin\"\ncorpus = \"eval/corpus\"\n[head.retriever]\ntype = \"builtin\"\nchunk_words = 40", 1))
	const warn = "warning: [depth] candidates = 50 is half or more of the corpus's"
	for _, docs := range []int{120, 100} {
		for i := 2; i < docs; i++ {
			write(t, dir, fmt.Sprintf("eval/corpus/more/page%03d.md", i), "# Page\n\nSomething else entirely.\n")
		}
		_, vout, _ := rg(t, "validate", "--config", cfg)
		_, gout, gerrs := rg(t, "gate", "--config", cfg)
		if got := strings.Contains(vout, warn) && strings.Contains(gout+gerrs, strings.TrimPrefix(warn, "warning: ")); got != (docs == 100) {
			t.Errorf("%d documents: warned %v, want %v\nvalidate:\n%s\ngate:\n%s%s", docs, got, docs == 100, vout, gout, gerrs)
		}
		if err := os.RemoveAll(filepath.Join(dir, "eval/corpus/more")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInitForAnHTTPService: `init --retriever http` writes a search
// service kept in the repository and a table that starts it; a pull
// request that breaks the service (it answers nothing for "refund")
// fails on q1, because the base side starts the base commit's service;
// one that only rewords the README passes.
func TestInitForAnHTTPService(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f := &fixture{t: t, dir: gitDir(t)}
	f.git("init", "-q", "-b", "main")
	t.Chdir(f.dir)
	if code, out, errs := rg(t, "init", "--retriever", "http"); code != 0 || !strings.Contains(out, "wrote search_service.py\n") {
		t.Fatalf("init --retriever http: exit %d\n%s%s", code, out, errs)
	}
	f.put("README.md", "# our service\n")
	f.commit("recallgate init")
	f.git("checkout", "-q", "-b", "pr")
	f.edit("search_service.py", `words = req["query"].lower().split()`, `words = [w for w in req["query"].lower().split() if "refund" not in w]`)
	f.commit("search: skip a word")
	code, out, errs := rg(t, "gate", "--config", "recallgate.toml", "--base-ref", "main")
	if code != 1 || !strings.Contains(out, "q1  recall@50 1.000 → 0.000") {
		t.Errorf("gate on a pull request that breaks the starter service: exit %d, want 1 with q1 regressed\n%s%s", code, out, errs)
	}
	f.git("checkout", "-q", "main")
	f.git("checkout", "-q", "-b", "docs")
	f.put("README.md", "# our service, documented\n")
	f.commit("docs")
	if code, out, errs := rg(t, "gate", "--config", "recallgate.toml", "--base-ref", "main"); code != 0 {
		t.Errorf("gate on a README-only pull request: exit %d, want 0\n%s%s", code, out, errs)
	}
}
