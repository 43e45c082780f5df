package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEPullRequestCheckoutsKeepNoToken: actions/checkout writes the
// job's token into .git/config unless told not to, and a pull request's
// scripts (a command retriever) read that file as easily as any other.
// Every whole workflow the documentation (README.md, docs/*.md) shows that runs on a pull request and
// checks out the code sets persist-credentials: false on each checkout.
func TestREADMEPullRequestCheckoutsKeepNoToken(t *testing.T) {
	// The workflows .ci/run lints: yaml blocks with on: and jobs:.
	checked := 0
	for _, b := range docBlocks(t, "yaml") {
		if regexp.MustCompile(`(?m)^on:`).MatchString(b.Text) && regexp.MustCompile(`(?m)^jobs:`).MatchString(b.Text) {
			checked += checkCheckouts(t, b.Path, b.Line, b.Text)
		}
	}
	if checked < 3 {
		t.Errorf("found %d checkouts in the documentation's pull_request workflows, want at least 3: is the parser still reading them?", checked)
	}
	// The project's own workflows too (the dogfood gate).
	own, _ := filepath.Glob("../../.github/workflows/*.yml")
	for _, p := range own {
		checkCheckouts(t, p, 1, string(must(os.ReadFile(p))))
	}
}

// checkCheckouts fails on each actions/checkout of a pull-request
// workflow (wf, whose first line is line first of file) that keeps the
// token, and returns how many checkouts such a workflow has.
func checkCheckouts(t *testing.T, file string, first int, wf string) int {
	t.Helper()
	if !onPullRequest(wf) {
		return 0
	}
	n := 0
	lines := strings.Split(wf, "\n")
	for i, line := range lines {
		if !strings.Contains(line, "actions/checkout@") {
			continue
		}
		n++
		if step := stepAt(lines, i); !regexp.MustCompile(`persist-credentials:\s*false\b`).MatchString(step) {
			t.Errorf("%s:%d: a pull_request workflow's actions/checkout leaves the token in .git/config: add `with: { persist-credentials: false }`\n%s", file, first+i, step)
		}
	}
	return n
}

// onPullRequest reports whether a workflow's on: runs it for pull
// requests (pull_request or pull_request_target), in the inline or the
// mapping form.
func onPullRequest(wf string) bool {
	trigger := regexp.MustCompile(`\bpull_request(_target)?\b`)
	lines := strings.Split(wf, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "on:") {
			continue
		}
		if trigger.MatchString(line) {
			return true
		}
		for _, next := range lines[i+1:] {
			if next != "" && !strings.HasPrefix(next, " ") && !strings.HasPrefix(next, "#") {
				break
			}
			if k, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(next), "- "), ":"); trigger.MatchString(k) && !strings.Contains(k, " ") {
				return true
			}
		}
	}
	return false
}

// stepAt is the text of the steps list item that holds line i: from its
// "- " to the next line indented no deeper than that dash.
func stepAt(lines []string, i int) string {
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	start := i
	for start > 0 && !strings.HasPrefix(strings.TrimLeft(lines[start], " "), "- ") {
		start--
	}
	end := start + 1
	for end < len(lines) && (strings.TrimSpace(lines[end]) == "" || indent(lines[end]) > indent(lines[start])) {
		end++
	}
	return strings.Join(lines[start:end], "\n")
}
