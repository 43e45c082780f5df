// Package shareddata finds, for the tests that read it, the data kept
// beside the repository in ../shared (the SciFact files, for one). A clone
// from GitHub has no ../shared: there such a test skips with a message
// naming the missing path. Where ../shared must be there (.ci/run sets
// RECALLGATE_REQUIRE_SHARED=1: the project's CI runs the full suite with
// ../shared beside the checkout), a missing path fails the test instead,
// so nothing skips there for lack of it. A CI elsewhere (GitHub's runner in
// the release workflow) has no ../shared and sets it to 0.
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
// fails when RECALLGATE_REQUIRE_SHARED=1.
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
// with the message skip, or fail with the message fail (RECALLGATE_REQUIRE_SHARED=1).
func decide(dir, rel string, getenv func(string) string) (path, skip, fail string) {
	path, problem := locate(dir, rel)
	switch {
	case problem == "":
		return path, "", ""
	case required(getenv):
		return "", "", fmt.Sprintf("%s (RECALLGATE_REQUIRE_SHARED=%s: this run needs ../shared beside the checkout)", problem, getenv("RECALLGATE_REQUIRE_SHARED"))
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

// required reports whether the environment says ../shared must be there
// (RECALLGATE_REQUIRE_SHARED set to a true value).
func required(getenv func(string) string) bool {
	v, err := strconv.ParseBool(getenv("RECALLGATE_REQUIRE_SHARED"))
	return err == nil && v
}
