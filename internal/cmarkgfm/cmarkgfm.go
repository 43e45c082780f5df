// Package cmarkgfm renders Markdown with cmark-gfm, GitHub's own renderer
// (Debian's package cmark-gfm), for the tests that ask whether Markdown
// recallgate writes (a PR comment, a job summary, a GitLab note) is inert:
// a value inside a code span is inert there, and only the HTML the
// renderer makes can tell a code span from text that merely holds
// backticks. A machine without the binary skips such a test with a
// message naming it; where it must be there (.ci/run sets
// RECALLGATE_REQUIRE_SHARED=1 and installs the package), its absence fails
// the test instead, as internal/shareddata does for the data in ../shared.
// Test support: imported by tests only, it imports nothing of recallgate's.
package cmarkgfm

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Binary is the renderer's command name, looked up on PATH.
const Binary = "cmark-gfm"

// Extensions are the GFM extensions GitHub's renderer turns on.
var Extensions = []string{"table", "autolink", "strikethrough", "tagfilter", "tasklist"}

// Args are the renderer's arguments: raw HTML kept (GitHub keeps it, then
// sanitises; a test must see a tag that got through) and every extension.
func Args() []string {
	args := []string{"--unsafe"}
	for _, e := range Extensions {
		args = append(args, "--extension", e)
	}
	return args
}

// MaxInput bounds the Markdown one call renders (GitHub's comment limit is
// 65,536 characters; a step summary's 1 MiB).
const MaxInput = 4 << 20

// Timeout bounds one rendering.
const Timeout = 30 * time.Second

// HTML renders md as GitHub would and returns the HTML. The test skips
// when cmark-gfm is not installed, or fails when
// RECALLGATE_REQUIRE_SHARED=1 says it must be.
func HTML(tb testing.TB, md string) string {
	tb.Helper()
	bin, skip, fail := decide(exec.LookPath, os.Getenv)
	switch {
	case fail != "":
		tb.Fatal(fail)
	case skip != "":
		tb.Skip(skip)
	}
	if len(md) > MaxInput {
		tb.Fatalf("cmarkgfm: %d bytes of Markdown, more than the %d one rendering takes", len(md), MaxInput)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, Args()...)
	cmd.Stdin = strings.NewReader(md)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("cmarkgfm: %s %s: %v\n%s", bin, strings.Join(Args(), " "), err, errb.String())
	}
	return out.String()
}

// decide says what a test does: render with bin, skip with the message
// skip, or fail with the message fail (RECALLGATE_REQUIRE_SHARED=1).
func decide(lookPath func(string) (string, error), getenv func(string) string) (bin, skip, fail string) {
	bin, err := lookPath(Binary)
	switch {
	case err == nil:
		return bin, "", ""
	case required(getenv):
		return "", "", fmt.Sprintf("%s is not installed (%v) and RECALLGATE_REQUIRE_SHARED=%s: this run needs it (.ci/run installs Debian's package cmark-gfm)", Binary, err, getenv("RECALLGATE_REQUIRE_SHARED"))
	}
	return "", fmt.Sprintf("skipping: %s is not installed (%v): install Debian's package cmark-gfm, GitHub's renderer, to run this test", Binary, err), ""
}

// required reports whether the environment says the binary must be there
// (RECALLGATE_REQUIRE_SHARED set to a true value).
func required(getenv func(string) string) bool {
	v, err := strconv.ParseBool(getenv("RECALLGATE_REQUIRE_SHARED"))
	return err == nil && v
}

// codeRE matches one code element of cmark-gfm's HTML (code spans and the
// code of fenced blocks); cmark-gfm writes no other tag inside one.
var codeRE = regexp.MustCompile(`(?s)<code(?: [^>]*)?>(.*?)</code>`)

// Codes are the texts of the HTML's code elements, in order, entities
// decoded: what a reader sees (and copies) inside each code span.
func Codes(htm string) []string {
	var out []string
	for _, m := range codeRE.FindAllStringSubmatch(htm, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// OutsideCode is the HTML with every code element taken out: where a
// link, a mention, a tag or emphasis would be live.
func OutsideCode(htm string) string {
	return codeRE.ReplaceAllString(htm, "<code></code>")
}
