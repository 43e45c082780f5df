package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/internal/confine"
)

// specialRoots hold files that look regular but are the machine's state
// (a process's environment, kernel settings, devices): never an input.
var specialRoots = []string{"/proc", "/sys", "/dev"}

// ErrNotRegular is wrapped by CheckInputFile for a path that is not a
// regular file (a FIFO would hang the run, a device or /proc would leak the
// machine's state into a report).
var ErrNotRegular = errors.New("not a regular file")

// CheckInputFile resolves path (symbolic links followed) and refuses it
// unless it is a regular file outside /proc, /sys and /dev. It returns the
// resolved path.
func CheckInputFile(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(real)
	if err != nil {
		return "", err
	}
	for _, root := range specialRoots {
		if abs == root || strings.HasPrefix(abs, root+string(filepath.Separator)) {
			return "", fmt.Errorf("%s resolves to %s: %w (files under %s are the machine's, never an input)", path, abs, ErrNotRegular, root)
		}
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, info.Mode().Type())
	}
	return abs, nil
}

// lfsPointer starts a Git LFS pointer file: what a checkout without LFS
// (or a repository archive) holds instead of the file.
const lfsPointer = "version https://git-lfs.github.com/spec/v1"

// checkoutFix says how to get the real files into a CI checkout.
const checkoutFix = "check out with actions/checkout and lfs: true (submodules: true, fetch-depth: 0 for the base side), and use the native action or the CLI: a repository archive holds LFS pointers and no submodules"

// LFSPointerError means an input is a Git LFS pointer, not the file: the
// checkout did not fetch LFS objects. Scoring it would be silently wrong,
// so it is an infrastructure error.
func LFSPointerError(path string) error {
	return &InfraError{Err: fmt.Errorf("%s is a Git LFS pointer, not the file: %s", path, checkoutFix)}
}

// isLFSPointer reports whether data starts like a Git LFS pointer.
func isLFSPointer(data []byte) bool { return bytes.HasPrefix(data, []byte(lfsPointer)) }

// openInput opens a file recallgate reads as input after CheckInputFile,
// refusing a Git LFS pointer.
func openInput(path string) (*os.File, error) {
	if _, err := CheckInputFile(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, len(lfsPointer))
	n, _ := io.ReadFull(f, head)
	if isLFSPointer(head[:n]) {
		f.Close()
		return nil, LFSPointerError(path)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// within reports whether the resolved path p lies inside the resolved root.
func within(root, p string) bool {
	return confine.Within(root, p)
}

// RunnerSecret reports whether an environment variable holds the CI
// runner's credentials. On GitHub Actions: GITHUB_TOKEN, GH_TOKEN, the
// action's inputs (INPUT_GITHUB-TOKEN among them) and the ACTIONS_* runtime
// and OIDC tokens. On GitLab CI: RECALLGATE_GITLAB_TOKEN (the note's
// token), the job's CI_JOB_TOKEN, CI_JOB_JWT* ID tokens, the registry,
// deploy and dependency proxy passwords, CI_REPOSITORY_URL (the job token
// is in it), and the GITLAB_TOKEN and GL_TOKEN tools read. A pull
// request's or merge request's config is code that runs next to them, so
// they are never handed to a retriever, whatever the config asks.
func RunnerSecret(name string) bool {
	n := strings.ToUpper(name)
	return slices.Contains(gitlabSecrets, n) || n == "GITHUB_TOKEN" || n == "GH_TOKEN" ||
		strings.HasPrefix(n, "INPUT_") || strings.HasPrefix(n, "ACTIONS_") || strings.HasPrefix(n, "CI_JOB_JWT")
}

// gitlabSecrets are the GitLab job's credentials RunnerSecret names one by
// one (CI_JOB_JWT* by prefix).
var gitlabSecrets = []string{"RECALLGATE_GITLAB_TOKEN", "CI_JOB_TOKEN", "CI_REGISTRY_PASSWORD", "CI_DEPLOY_PASSWORD",
	"CI_DEPENDENCY_PROXY_PASSWORD", "CI_REPOSITORY_URL", "GITLAB_TOKEN", "GL_TOKEN"}

// RunnerSecretNames says which names RunnerSecret refuses, for messages.
const RunnerSecretNames = "GITHUB_TOKEN, GH_TOKEN, INPUT_*, ACTIONS_*; RECALLGATE_GITLAB_TOKEN, CI_JOB_TOKEN, CI_JOB_JWT*, CI_REGISTRY_PASSWORD, CI_DEPLOY_PASSWORD, CI_DEPENDENCY_PROXY_PASSWORD, CI_REPOSITORY_URL, GITLAB_TOKEN, GL_TOKEN"

// RunnerFiles name the runner's command files: what a step writes there
// sets the environment (BASH_ENV among it), PATH, outputs, state or
// summary of the job's later steps.
var RunnerFiles = []string{"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"}

// RunnerFile reports whether an environment variable names one of the
// RunnerFiles. A retriever handed one could run its code in every later
// step, so none is ever passed to a retriever, whatever the config asks.
func RunnerFile(name string) bool { return slices.Contains(RunnerFiles, strings.ToUpper(name)) }

// ChildEnvNames are the variables a command retriever always gets (when
// set): what a program needs to find itself, its language runtime, the
// locale, temp space, certificates and proxies. The config adds more by
// name with `env`; RunnerSecret names are never passed.
var ChildEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"TMPDIR", "TMP", "TEMP", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "XDG_CACHE_HOME", "HF_HOME", "CI", "RUNNER_TEMP",
}

// ChildEnv builds a command retriever's environment from getenv: the
// ChildEnvNames and the extra names, each only when set.
func ChildEnv(getenv func(string) string, extra []string) []string {
	var env []string
	seen := map[string]bool{}
	for _, name := range append(append([]string{}, ChildEnvNames...), extra...) {
		if seen[name] || RunnerSecret(name) || RunnerFile(name) {
			continue
		}
		seen[name] = true
		if v := getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	return env
}
