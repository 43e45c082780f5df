// Package shareddata finds, for the tests that read it, the data kept
// beside the repository in ../shared (the SciFact files, for one). A clone
// from GitHub has no ../shared: there such a test skips with a message
// naming the missing path. In CI (CI=true), where .ci/run runs the full
// suite with ../shared beside the checkout, a missing path fails the test
// instead, so nothing skips there for lack of it.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Path returns the path of rel (slash-separated, e.g.
// "data/scifact/queries.jsonl") inside ../shared beside the repository's
// root. When it is not there the test skips, naming the missing path, or
// fails when the environment says CI=true.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatalf("shareddata: %v", err)
	}
	p, skip, fail := decide(wd, rel, os.Getenv)
	switch {
	case fail != "":
		tb.Fatal(fail)
	case skip != "":
		tb.Skip(skip)
	}
	return p
}

// decide says what a test started in dir does about rel: use path, skip
// with the message skip, or fail with the message fail (CI=true).
func decide(dir, rel string, getenv func(string) string) (path, skip, fail string) {
	path, problem := locate(dir, rel)
	switch {
	case problem == "":
		return path, "", ""
	case inCI(getenv):
		return "", "", fmt.Sprintf("%s (CI=%s: the full suite runs with ../shared beside the checkout)", problem, getenv("CI"))
	}
	return "", fmt.Sprintf("skipping: %s (a fresh clone has no ../shared; put the data there to run this test)", problem), ""
}

// locate finds the repository's root (the nearest directory holding
// go.mod, from dir up) and rel inside ../shared beside it. problem says
// what is missing, naming the path, or is "" when the path is there.
func locate(dir, rel string) (path, problem string) {
	root := dir
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			return "", fmt.Sprintf("no go.mod above %s, so ../shared/%s cannot be found", dir, rel)
		}
		root = up
	}
	path = filepath.Join(filepath.Dir(root), "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		return path, fmt.Sprintf("../shared/%s is missing (%s)", rel, path)
	}
	return path, ""
}

// inCI reports whether the environment says this is a CI run (CI set to
// a true value, as GitHub Actions and GitLab CI set it).
func inCI(getenv func(string) string) bool {
	ci, err := strconv.ParseBool(getenv("CI"))
	return err == nil && ci
}
