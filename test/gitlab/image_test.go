package gitlab_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// detectShell is the command GitLab Runner's Docker executor starts a job
// container with: it looks for a shell in the image and runs the job's
// script, piped to its standard input, in it.
const detectShell = `if [ -x /usr/local/bin/bash ]; then
	exec /usr/local/bin/bash
elif [ -x /usr/bin/bash ]; then
	exec /usr/bin/bash
elif [ -x /bin/bash ]; then
	exec /bin/bash
elif [ -x /usr/local/bin/sh ]; then
	exec /usr/local/bin/sh
elif [ -x /usr/bin/sh ]; then
	exec /usr/bin/sh
elif [ -x /bin/sh ]; then
	exec /bin/sh
elif [ -x /busybox/sh ]; then
	exec /busybox/sh
else
	echo shell not found
	exit 1
fi`

// jobScript is the script: list of job in the README's .gitlab-ci.yml, the
// lines as written (the README's yml keeps them as "    - command").
func jobScript(t *testing.T, job string) []string {
	t.Helper()
	lines := strings.Split(readmeCI(t), "\n")
	var out []string
	in, script := false, false
	for _, l := range lines {
		switch {
		case l == job+":":
			in = true
		case in && l != "" && !strings.HasPrefix(l, " "):
			in = false
		case in && strings.TrimSpace(l) == "script:":
			script = true
		case in && script && strings.HasPrefix(l, "    - "):
			out = append(out, strings.TrimPrefix(l, "    - "))
		case in && script:
			script = false
		}
	}
	if len(out) == 0 {
		t.Fatalf("the README's %s job has no script lines", job)
	}
	return out
}

// TestJobImage runs the README's merge request job in the Dockerfile's
// gitlab image the way GitLab's Docker executor does: the clone mounted at
// /builds/acme/rag, the pipeline's variables in the environment, the
// shell found by GitLab's detection command and the script on its input.
// The image's shell must be there and recallgate on its PATH; the job
// fails on q26 and writes the note and the JUnit file.
func TestJobImage(t *testing.T) {
	glci(t)
	image := os.Getenv("RECALLGATE_GITLAB_IMAGE")
	if image == "" {
		t.Skip("no gitlab image: test/gitlab/run.sh builds it with podman (RECALLGATE_GITLAB_IMAGE is not set)")
	}
	o := newOrigin(t, nil)
	o.commit("feature", map[string]string{editedDoc: regressingEdit}, "shorter audit-log doc")
	f := newFakeGitLab(t, token)
	f.archives[o.base] = o.archive(o.base)
	srv := f.start()
	dir := o.checkout("feature")

	vars := map[string]string{
		"CI": "true", "GITLAB_CI": "true", "CI_API_V4_URL": srv.URL + "/api/v4", "CI_SERVER_URL": srv.URL,
		"CI_PROJECT_ID": projectID, "CI_PROJECT_PATH": projectPath, "CI_PROJECT_DIR": "/builds/acme/rag",
		"CI_COMMIT_SHA": git(t, dir, "rev-parse", "HEAD"), "CI_JOB_NAME": "retrieval-gate",
		"CI_JOB_TOKEN": "glcbt-64_jobTokenNotForNotes", "RECALLGATE_GITLAB_TOKEN": token,
	}
	for k, v := range mrVars(o.base) {
		if v != "<unset>" {
			vars[k] = v
		}
	}
	args := []string{"--runtime", "runc", "run", "--rm", "-i", "--network", "host", "--pull=never",
		"-v", dir + ":/builds/acme/rag", "-w", "/builds/acme/rag"}
	for _, k := range sorted(keysOf(vars)) {
		args = append(args, "-e", k+"="+vars[k])
	}
	args = append(args, image, "sh", "-c", detectShell)
	script := "set -eo pipefail\n" + strings.Join(jobScript(t, "retrieval-gate"), "\n") + "\n"

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "podman", args...)
	cmd.Stdin = strings.NewReader(script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("podman: %v\n%s", err, out.String())
	}
	t.Logf("job in %s: exit %d\n%s", image, code, out.String())
	if strings.Contains(out.String(), token) {
		t.Errorf("the token is in the job's log")
	}
	if strings.Contains(out.String(), "shell not found") || code != 1 {
		t.Fatalf("exit %d, want 1 (the change regresses q26)\n%s", code, out.String())
	}
	cs := f.recorded()
	if n := count(cs, "POST", `/projects/42/merge_requests/7/notes`); n != 1 {
		t.Errorf("%d notes created, want 1: %v", n, callNames(cs))
	}
	if n := count(cs, "GET", `/projects/42/repository/archive\.tar\.gz`); n != 1 {
		t.Errorf("archive asked %d times, want once (the image has no git): %v", n, callNames(cs))
	}
	if b, err := os.ReadFile(dir + "/" + junitPath(t)); err != nil || !bytes.Contains(b, []byte("q26")) {
		t.Errorf("JUnit report in the clone: %v\n%s", err, b)
	}
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
