package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestParentOutOfReach: a command retriever runs as the same user as
// recallgate, so while recallgate is dumpable it can read the job token
// from /proc/<recallgate>/environ and write workflow commands straight to
// recallgate's stdout through /proc/<recallgate>/fd/1, past every filter.
// The real binary, run as an unprivileged user (root reads any process),
// must keep both closed: the token appears nowhere, the reads fail.
func TestParentOutOfReach(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/environ and PR_SET_DUMPABLE are Linux's")
	}
	// The system's Python: one under root's home is not the other user's.
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("/usr/bin/python3 is not installed")
	}
	// A folder the unprivileged user can read and write; t.TempDir's
	// parents are private to the test's user.
	dir, err := os.MkdirTemp("", "recallgate-nodump-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "recallgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	write(t, dir, "set.jsonl", setJSONL)
	write(t, dir, "run.jsonl", runJSONL)
	probe := write(t, dir, "probe.txt", "")
	if err := os.Chmod(probe, 0o666); err != nil {
		t.Fatal(err)
	}
	// The retriever looks at its parent before answering, and writes what
	// it found (the environ's bytes included) to probe.txt and stderr.
	write(t, dir, "spy.py", `import json, os, sys
parent = os.getppid()
found = []
try:
    with open("/proc/%d/environ" % parent, "rb") as f:
        found.append("environ read: " + f.read().decode("utf-8", "replace").replace("\0", " "))
except OSError as e:
    found.append("environ refused: " + type(e).__name__)
try:
    found.append("fd listed: " + " ".join(os.listdir("/proc/%d/fd" % parent)))
except OSError as e:
    found.append("fd refused: " + type(e).__name__)
try:
    with open("/proc/%d/fd/1" % parent, "w") as f:
        f.write("::error::INJECTED through the parent's stdout\n")
    found.append("stdout written")
except OSError as e:
    found.append("stdout refused: " + type(e).__name__)
with open(sys.argv[1], "w") as f:
    f.write("\n".join(found) + "\n")
sys.stderr.write("\n".join(found) + "\n")
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps({"id": req["id"], "hits": [{"doc": "a"}, {"doc": "c"}]}), flush=True)
`)
	cfg := write(t, dir, "spy.toml", fmt.Sprintf("set = \"set.jsonl\"\n[base.retriever]\ntype = \"command\"\ncommand = [%q, \"spy.py\", %q]\n[head.retriever]\ntype = \"file\"\npath = \"run.jsonl\"\n", python, probe))
	for _, tc := range []struct {
		name    string
		args    []string
		secrets []string
		env     func(secrets []string) []string
	}{
		{"gate under GitHub Actions", []string{"gate", "--config", cfg}, []string{"ghs_nodump_token", "ghs_nodump_input", "nodump-runtime-token"}, func(s []string) []string {
			return []string{"GITHUB_TOKEN=" + s[0], "INPUT_GITHUB-TOKEN=" + s[1], "ACTIONS_RUNTIME_TOKEN=" + s[2]}
		}},
		{"ci under GitLab CI", []string{"ci", "--config", cfg, "--junit", ""}, []string{"glpat-nodump-token", "glcbt-nodump-job-token"}, func(s []string) []string {
			return []string{"GITLAB_CI=true", "CI_PIPELINE_SOURCE=push", "CI_PROJECT_ID=42", "CI_API_V4_URL=http://127.0.0.1:1/api/v4", "CI_PROJECT_DIR=" + dir,
				"RECALLGATE_GITLAB_TOKEN=" + s[0], "CI_JOB_TOKEN=" + s[1]}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { parentOutOfReach(t, bin, dir, probe, tc.args, tc.secrets, tc.env(tc.secrets)) })
	}
}

// parentOutOfReach runs the binary as an unprivileged user with the
// secrets in its environment and checks what the spy retriever found.
func parentOutOfReach(t *testing.T, bin, dir, probe string, args, secrets, env []string) {
	if err := os.Truncate(probe, 0); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + dir}, env...)
	// stdout is a pipe the user owns, as the runner's pipe is the
	// runner's user's: only recallgate's own /proc entry may keep it out.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if err := w.Chown(65534, 65534); err != nil {
			t.Skipf("cannot give the pipe to an unprivileged user: %v", err)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	copied := make(chan error, 1)
	go func() { _, err := stdout.ReadFrom(r); copied <- err }()
	err = cmd.Run()
	w.Close()
	<-copied
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("cannot run the binary as an unprivileged user: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code > 1 {
		t.Fatalf("gate: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	found := string(must(os.ReadFile(probe)))
	for _, s := range secrets {
		for what, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "the retriever's notes": found} {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the token %q:\n%s", what, s, text)
			}
		}
	}
	for _, want := range []string{"environ refused: PermissionError", "fd refused: PermissionError", "stdout refused: PermissionError"} {
		if !strings.Contains(found, want) {
			t.Errorf("the retriever reached its parent: want %q in\n%s", want, found)
		}
	}
	if strings.Contains(stdout.String(), "INJECTED through") {
		t.Errorf("the retriever wrote to recallgate's stdout:\n%s", stdout.String())
	}
}
