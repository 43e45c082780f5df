// Package childenv says which environment variables a child process
// recallgate starts (a command retriever) may see: the runner's secrets and
// command files are never passed, whatever the config asks.
package childenv

import (
	"slices"
	"strings"
)

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
