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
	"slices"
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

// AssertInert renders md as GitHub would and fails the test for anything
// one of the hostile values (the untrusted text a test put into the
// report, as it put it) could have made live outside a code span: a raw
// HTML tag (one no Markdown writer of recallgate makes, one with an event
// attribute, one the value holds with its attributes as typed, or a
// closing tag recallgate's own did not open), a link or image whose
// target the value names, a mention or issue reference the value holds,
// emphasis, a heading, a link, a quote or a list item around a part of
// its text, or a thematic break. The value may appear as text or inside
// <code>; AssertInert says nothing about where it appears, only that it
// is nothing else. It returns the HTML for further checks. Like HTML it
// skips tb where cmark-gfm is not installed: a test with other checks to
// run calls it in a subtest (t.Run("cmark-gfm", …)), so they still run.
func AssertInert(tb testing.TB, md string, hostile ...string) string {
	tb.Helper()
	htm := HTML(tb, md)
	live := Live(htm, hostile...)
	for _, p := range live {
		tb.Errorf("cmarkgfm: the Markdown is not inert: %s", p)
	}
	if len(live) > 0 {
		tb.Logf("the Markdown:\n%s\nits HTML outside code:\n%s", md, OutsideCode(htm))
	}
	return htm
}

// ownTags are the elements cmark-gfm makes from Markdown and the raw HTML
// recallgate's Markdown writers use (a folded section, bold in a summary).
var ownTags = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"ul": true, "ol": true, "li": true, "table": true, "thead": true, "tbody": true,
	"tr": true, "th": true, "td": true, "strong": true, "em": true, "del": true,
	"blockquote": true, "pre": true, "code": true, "br": true, "hr": true, "a": true,
	"img": true, "input": true, "details": true, "summary": true, "b": true, "sub": true,
	"sup": true,
}

// pairedTags are the own elements that must open as often as they close:
// a value that closes a <details> early spills the rest of the comment.
var pairedTags = []string{"details", "summary", "b", "table", "blockquote", "ul", "ol", "pre", "strong", "em", "del", "sub", "sup"}

var (
	tagRE    = regexp.MustCompile(`<(/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>`)
	eventRE  = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	targetRE = regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)
	// refRE: a mention, an issue ("#12", "GH-12", "owner/repo#12") or a
	// commit ("owner/repo@0123abc", a bare 7 to 40 hex digits) reference;
	// refs checks what stands either side.
	refRE = regexp.MustCompile(`[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:#[0-9]+|@[0-9a-f]{7,40})|@[A-Za-z0-9][A-Za-z0-9-]*|#[0-9]+|GH-[0-9]+|[0-9a-f]{7,40}`)
	// markupREs match the elements that make text read as something:
	// emphasis, a heading, a link, a quote, a list item (a value that
	// starts with "- " or "1. " in one of recallgate's own), a folded
	// section's title.
	markupREs = func() []*regexp.Regexp {
		var res []*regexp.Regexp
		for _, n := range []string{"b", "strong", "em", "del", "summary", "a", "blockquote", "li", "h1", "h2", "h3", "h4", "h5", "h6"} {
			res = append(res, regexp.MustCompile(`(?s)<`+n+`(?:\s[^>]*)?>(.*?)</`+n+`>`))
		}
		return res
	}()
	hostRE = regexp.MustCompile(`(?i)(?:[a-z][a-z0-9+.-]*://|www\.)([^\s/?#<>"'\x60)\]]+)`)
)

// Live lists, one sentence each, what of the hostile values the HTML
// (cmark-gfm's, from HTML) has made live outside its code elements; none
// is inert. AssertInert is its test form.
func Live(htm string, hostile ...string) []string {
	out := OutsideCode(htm)
	var live []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			live = append(live, s)
		}
	}
	for _, m := range tagRE.FindAllStringSubmatch(out, -1) {
		tag, name, attrs := m[0], strings.ToLower(m[2]), strings.TrimSpace(m[3])
		switch {
		case !ownTags[name]:
			add(fmt.Sprintf("raw HTML tag %s", tag))
		case eventRE.MatchString(" " + attrs):
			add(fmt.Sprintf("a tag with an event attribute: %s", tag))
		case attrs != "" && holds(hostile, tag):
			add(fmt.Sprintf("raw HTML tag %s, as the hostile value has it", tag))
		}
		if t := targetRE.FindStringSubmatch(tag); t != nil {
			if target := html.UnescapeString(t[1]); namesTarget(hostile, target) {
				add(fmt.Sprintf("a link or image to %q, which the hostile value names: %s", target, tag))
			}
		}
	}
	if strings.Contains(out, "<hr") {
		add("a thematic break (<hr />): recallgate's Markdown writes none, a value's \"---\" made it")
	}
	lower := strings.ToLower(out)
	for _, name := range pairedTags {
		if o, c := len(regexp.MustCompile(`<`+name+`[\s>]`).FindAllString(lower, -1)), strings.Count(lower, "</"+name+">"); o != c {
			add(fmt.Sprintf("<%s> opens %d times and closes %d times: a value opened or closed one", name, o, c))
		}
	}
	text := html.UnescapeString(tagRE.ReplaceAllString(out, " "))
	for _, h := range hostile {
		theirs := refs(h)
		for _, r := range refs(text) {
			if slices.Contains(theirs, r) {
				add(fmt.Sprintf("a live mention or reference %s", r))
			}
		}
	}
	for _, re := range markupREs {
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			if inner := strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(m[1], ""))); len(inner) >= 3 && holdsPart(hostile, inner) {
				add(fmt.Sprintf("markup around the hostile text %q: %s", inner, m[0]))
			}
		}
	}
	return live
}

// refs are the references GitHub would make live in text: refRE's
// matches with no ASCII word character (nor "/", "." or "-" before) on
// either side, a bare hexadecimal run only with a digit in it; in order.
func refs(text string) []string {
	var out []string
	word := func(b byte) bool {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
	}
	for _, loc := range refRE.FindAllStringIndex(text, -1) {
		i, j := loc[0], loc[1]
		if i > 0 && (word(text[i-1]) || strings.ContainsRune("/.-", rune(text[i-1]))) || j < len(text) && word(text[j]) {
			continue
		}
		r := text[i:j]
		if !strings.ContainsAny(r, "@#/-") && !strings.ContainsAny(r, "0123456789") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// holds reports whether one of the hostile values holds s as typed.
func holds(hostile []string, s string) bool {
	for _, h := range hostile {
		if strings.Contains(h, s) {
			return true
		}
	}
	return false
}

// holdsPart reports whether one of the hostile values holds s as a part
// of it, not the whole: recallgate may show a whole value in its own
// heading or emphasis (a gate's name), a value's own markup makes one of
// a part ("x\n# pwned", "<b>down</b> here").
func holdsPart(hostile []string, s string) bool {
	for _, h := range hostile {
		if strings.Contains(h, s) && strings.TrimSpace(h) != s {
			return true
		}
	}
	return false
}

// namesTarget reports whether a link's or image's target comes from a
// hostile value: the value holds the target (an e-mail address's without
// its "mailto:"), or names its host.
func namesTarget(hostile []string, target string) bool {
	if target == "" {
		return false
	}
	if holds(hostile, target) || holds(hostile, strings.TrimPrefix(target, "mailto:")) {
		return true
	}
	m := hostRE.FindStringSubmatch(target)
	if m == nil {
		return false
	}
	host := strings.ToLower(strings.TrimPrefix(strings.ToLower(m[1]), "www."))
	for _, h := range hostile {
		for _, hm := range hostRE.FindAllStringSubmatch(h, -1) {
			if strings.TrimPrefix(strings.ToLower(hm[1]), "www.") == host {
				return true
			}
		}
	}
	return false
}

// AssertInertGitLab is AssertInert for a GitLab note: GitLab's renderer is
// CommonMark with GitHub's extensions too, and besides mentions it
// resolves !MR, ~label, %milestone, $snippet, &epic, [kind:ref] and
// *iteration: references in the text outside code, which must not hold
// one the hostile values do; nor may a line of the note's Markdown be a
// quick action of theirs (QuickActions).
func AssertInertGitLab(tb testing.TB, md string, hostile ...string) string {
	tb.Helper()
	htm := HTML(tb, md)
	live := append(LiveGitLab(htm, hostile...), QuickActions(md, hostile...)...)
	for _, p := range live {
		tb.Errorf("cmarkgfm: the GitLab note is not inert: %s", p)
	}
	if len(live) > 0 {
		tb.Logf("the Markdown:\n%s\nits HTML outside code:\n%s", md, OutsideCode(htm))
	}
	return htm
}

// gitlabRefRE finds a reference GitLab resolves in rendered text: a sigil
// right before what it names, not after a word (but "p!4", "p#6" are
// project references), a bracket kind or an iteration.
var gitlabRefRE = regexp.MustCompile(`(?:^|[^\w\x{200b}])([!$&#]\d+|[~%](?:"[^"\n]*"|[\w.]+)|@[\w/.-]+|\[\w+:[^\]\s]*|\*iteration:\S+)|\w([!#]\d+)`)

// LiveGitLab is Live with GitLab's references too.
func LiveGitLab(htm string, hostile ...string) []string {
	live := Live(htm, hostile...)
	text := html.UnescapeString(tagRE.ReplaceAllString(OutsideCode(htm), " "))
	seen := map[string]bool{}
	for _, m := range gitlabRefRE.FindAllStringSubmatch(text, -1) {
		ref := m[1] + m[2]
		if !seen[ref] && holds(hostile, ref) {
			seen[ref] = true
			live = append(live, fmt.Sprintf("a live GitLab reference %s", ref))
		}
	}
	return live
}

// quickRE is a line GitLab takes for a quick action: a slash command at
// its start (after blanks).
var quickRE = regexp.MustCompile(`^[ \t]*(/[a-z_]+)`)

// QuickActions lists the lines of md, outside fenced code, that GitLab
// would run as a quick action a hostile value holds ("/merge",
// "/approve"): GitLab reads them from the Markdown, before rendering.
func QuickActions(md string, hostile ...string) []string {
	var live []string
	fence := ""
	for i, line := range strings.Split(md, "\n") {
		t := strings.TrimLeft(line, " ")
		if f := fenceOf(t); f != "" && (fence == "" || strings.HasPrefix(t, fence)) {
			if fence == "" {
				fence = f
			} else {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := quickRE.FindStringSubmatch(line); m != nil && holds(hostile, m[1]) {
			live = append(live, fmt.Sprintf("line %d is the quick action %s: %q", i+1, m[1], line))
		}
	}
	return live
}

// fenceOf is the run of backticks or tildes a line opens a fenced code
// block with, or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		if n := len(line) - len(strings.TrimLeft(line, c)); n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}
