package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestContainerContract runs `recallgate action` the way GitHub runs the
// Docker action: a static binary built as the Dockerfile builds it, inside
// a root that holds only what the action image holds (the binary, CA
// certificates, /etc/passwd, /tmp; no git, no shell), the checkout
// bind-mounted at /github/workspace, the file commands under
// /github/file_commands, and only the environment a Docker action gets.
// RUNNER_TEMP names a runner folder the container does not have, as it
// does on GitHub. The GitHub API is a fake on loopback.
//
// The pull request changes one corpus document and nothing else, so the
// gate fails only if the base side really ran on the base commit's corpus.
func TestContainerContract(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs Linux and root (mount namespace, bind mount, chroot)")
	}
	for _, tool := range []string{"unshare", "mount", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	if out, err := exec.Command("unshare", "-m", "--propagation", "private", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot make a mount namespace here: %v %s", err, out)
	}

	// The image: what the Dockerfile's build stage makes, in a bare root.
	root := t.TempDir()
	bin := filepath.Join(root, "usr/local/bin/recallgate")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=container-test", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if ef, err := elf.Open(bin); err != nil {
		t.Fatal(err)
	} else {
		for _, p := range ef.Progs {
			if p.Type == elf.PT_INTERP {
				t.Fatal("the binary needs a dynamic loader; the image has none")
			}
		}
		ef.Close()
	}
	certs, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		certs = []byte("# no CA bundle on this machine\n")
	}
	write(t, root, "etc/ssl/certs/ca-certificates.crt", string(certs))
	write(t, root, "etc/passwd", "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")
	for _, d := range []string{"tmp", "github/workspace", "github/home", "github/workflow", "github/file_commands"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(root, "tmp"), 0o1777)

	// The checkout: a shallow-like workspace (no .git) whose PR edits one
	// corpus document. The base commit comes from the fake API's archive.
	f := newFixture(t, builtinConfig)
	g := &fakeGitHub{tarball: archiveFixture(t, f)}
	f.put("rag/corpus/security/audit-log.md", "# Office plants\n\nWater the ferns on Fridays.\n")
	srv := g.server(t)
	write(t, root, "github/workflow/event.json", fmt.Sprintf(prEvent, f.base))

	runOnce := func() (int, string, string) {
		for _, fc := range []string{"set_output_1", "step_summary_1"} {
			write(t, root, "github/file_commands/"+fc, "")
		}
		env := []string{
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"HOME=/github/home",
			"CI=true",
			"GITHUB_ACTIONS=true",
			"GITHUB_API_URL=" + srv.URL,
			"GITHUB_REPOSITORY=acme/rag",
			"GITHUB_EVENT_NAME=pull_request",
			"GITHUB_EVENT_PATH=/github/workflow/event.json",
			"GITHUB_WORKSPACE=/github/workspace",
			"GITHUB_OUTPUT=/github/file_commands/set_output_1",
			"GITHUB_STEP_SUMMARY=/github/file_commands/step_summary_1",
			"GITHUB_SHA=" + strings.Repeat("e", 40),
			"RUNNER_TEMP=/home/runner/work/_temp",
			"INPUT_CONFIG=rag/recallgate.toml",
			"INPUT_GITHUB-TOKEN=ghs_secret123",
			"INPUT_COMMENT=always",
			"INPUT_FAIL-ON-REGRESSION=true",
			"INPUT_MODE=auto",
		}
		// sh and mount run outside the new root; inside it runs only the
		// binary. The shell would drop INPUT_GITHUB-TOKEN (not a POSIX name;
		// Docker passes it), so env -i sets the action's environment after it.
		args := []string{"-m", "--propagation", "private", "--", "sh", "-c",
			`mount --bind "$0" "$1/github/workspace" && shift && exec env -i "$@"`, f.dir, root}
		args = append(args, env...)
		args = append(args, "unshare", "--root="+root, "--wd=/github/workspace", "/usr/local/bin/recallgate", "action")
		cmd := exec.Command("unshare", args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("run: %v", err)
		}
		if strings.Contains(strings.ReplaceAll(out.String()+errb.String(), "::add-mask::ghs_secret123", ""), "ghs_secret123") {
			t.Errorf("the token was printed:\n%s\n%s", out.String(), errb.String())
		}
		return code, out.String(), errb.String()
	}

	code, out, errs := runOnce()
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the corpus edit regresses q26)\n%s\n%s", code, out, errs)
	}
	outputs := parseOutputs(t, filepath.Join(root, "github/file_commands/set_output_1"))
	if outputs["verdict"] != "fail" || !strings.Contains(outputs["regressed"], "q26") {
		t.Errorf("outputs %v", outputs)
	}
	if !regexp.MustCompile(`^\.recallgate/recallgate-report[\w.-]*\.json$`).MatchString(outputs["report"]) {
		t.Errorf("report output %q: later steps need a path they can open", outputs["report"])
	}
	if data, err := os.ReadFile(filepath.Join(f.dir, outputs["report"])); err != nil || !bytes.Contains(data, []byte(`"verdict": "fail"`)) {
		t.Errorf("report in the workspace: %v", err)
	}
	summary, _ := os.ReadFile(filepath.Join(root, "github/file_commands/step_summary_1"))
	if !bytes.Contains(summary, []byte("recallgate · rag: fail")) || !bytes.Contains(summary, []byte("(archive)")) {
		t.Errorf("step summary:\n%s", summary)
	}
	if len(g.tarballRefs) != 1 || g.tarballRefs[0] != f.base {
		t.Errorf("archive asked for %v, want the base commit", g.tarballRefs)
	}
	if len(g.comments) != 1 || !strings.Contains(g.comments[0], "q26") {
		t.Fatalf("comments %d", len(g.comments))
	}

	// A second push edits the sticky comment in place.
	g.existing = g.comments[0]
	if code, out, errs := runOnce(); code != 1 || len(g.edits) != 1 || len(g.comments) != 1 {
		t.Errorf("second run: exit %d, %d edits, %d comments\n%s\n%s", code, len(g.edits), len(g.comments), out, errs)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "tmp", "recallgate-base-*")); len(left) != 0 {
		t.Errorf("the base tree was left in the container's /tmp: %v", left)
	}
}

// parseOutputs reads a GITHUB_OUTPUT file (name<<delimiter blocks).
func parseOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, _ := os.ReadFile(path)
	out := map[string]string{}
	re := regexp.MustCompile(`(?s)([\w-]+)<<(\S+)\n(.*?)\n(\S+)\n`)
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out[m[1]] = m[3]
	}
	return out
}
