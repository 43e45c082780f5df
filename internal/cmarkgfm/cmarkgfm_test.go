package cmarkgfm

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestDecide: the binary found is used; missing, the test skips naming it,
// or fails when RECALLGATE_REQUIRE_SHARED=1.
func TestDecide(t *testing.T) {
	found := func(string) (string, error) { return "/bin/cmark-gfm", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	env := func(v string) func(string) string { return func(string) string { return v } }
	if bin, skip, fail := decide(found, env("1")); bin != "/bin/cmark-gfm" || skip != "" || fail != "" {
		t.Errorf("found: %q %q %q", bin, skip, fail)
	}
	if _, skip, fail := decide(missing, env("")); !strings.Contains(skip, "cmark-gfm is not installed") || fail != "" {
		t.Errorf("missing: skip %q fail %q", skip, fail)
	}
	if _, skip, fail := decide(missing, env("1")); skip != "" || !strings.Contains(fail, "RECALLGATE_REQUIRE_SHARED=1") {
		t.Errorf("missing, required: skip %q fail %q", skip, fail)
	}
	if _, skip, _ := decide(missing, env("0")); skip == "" {
		t.Error("missing, RECALLGATE_REQUIRE_SHARED=0: does not skip")
	}
}

// TestHTML: a code span's text comes back as typed (entities decoded),
// and what is outside code is live as GitHub would make it: an autolink,
// a table, strikethrough.
func TestHTML(t *testing.T) {
	h := HTML(t, "see `a <b> @x` and www.example.test ~~gone~~\n\n| a | b |\n|---|---|\n| `x\\|y` | 2 |\n")
	if got := Codes(h); !slices.Equal(got, []string{"a <b> @x", "x|y"}) {
		t.Errorf("codes %q in\n%s", got, h)
	}
	out := OutsideCode(h)
	for _, want := range []string{`<a href="http://www.example.test">`, "<del>gone</del>", "<table>"} {
		if !strings.Contains(out, want) {
			t.Errorf("outside code lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "@x") {
		t.Errorf("the code span's text is outside code:\n%s", out)
	}
}

// TestLive: each thing a hostile value can make live in GitHub's
// rendering is found, named; the same value escaped, or inside a code
// span, is inert; recallgate's own markup (a folded section, a link to
// its docs) is not taken for the value's.
func TestLive(t *testing.T) {
	const evil = "</details><img src=x onerror=alert(1)>@octocat [x](javascript:alert(1)) www.evil.example user@evil.example fixes #12 and o/r#3 GH-4 o/r@0123abc 4f2a9c1\n# pwned heading"
	own := "<details><summary><b>Details</b></summary>\n\nsee [the docs](https://docs.example.test/gate) for @·x\n\n"
	for _, tt := range []struct {
		name, md string
		want     []string // a substring of each sentence Live returns, in order
	}{
		{"raw", own + "text " + evil + "\n\n</details>\n", []string{
			"a tag with an event attribute: <img src=x onerror=alert(1)>",
			`a link or image to "javascript:alert(1)"`,
			`a link or image to "http://www.evil.example"`,
			`a link or image to "mailto:user@evil.example"`,
			"<details> opens 1 times and closes 2 times",
			"a live mention or reference @octocat",
			"a live mention or reference #12",
			"a live mention or reference o/r#3",
			"a live mention or reference GH-4",
			"a live mention or reference o/r@0123abc",
			"a live mention or reference 4f2a9c1",
			`markup around the hostile text "www.evil.example"`,
			`markup around the hostile text "user@evil.example"`,
			`markup around the hostile text "pwned heading": <h1>`,
		}},
		{"block markers", "- - pwned item\n- 1. pwned list\n- ---\n", []string{"a thematic break", `markup around the hostile text "pwned item": <li>`, `markup around the hostile text "pwned list": <li>`}},
		{"raw tag", "x <object data=a></object>\n", []string{"raw HTML tag <object data=a>", "raw HTML tag </object>"}},
		{"tag as typed", "x <a title=\"t\">y</a>\n", nil},
		{"emphasis", "x <b>down</b> **fail:** _went_\n", []string{`markup around the hostile text "down": <b>down</b>`, `markup around the hostile text "went": <em>went</em>`}},
		{"in a code span", own + "``" + strings.ReplaceAll(evil, "\n", " ") + "``\n\n</details>\n", nil},
		{"escaped", own + "&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;@\u200boctocat &#91;x&#93;(javascript:alert(1)) www\u200b.evil.example user@\u200bevil.example fixes #\u200b12 and o/r#\u200b3 GH-\u200b4 o/r@\u200b0123ab\u200bc 4f2a9c\u200b1\n\\# pwned heading\n\n</details>\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hostile := []string{evil, "<a title=\"t\">", "<object data=a>"}
			switch tt.name {
			case "tag as typed":
				hostile = []string{"z"}
			case "block markers":
				hostile = []string{"- pwned item", "1. pwned list", "---"}
			case "emphasis":
				hostile = []string{"HTTP 503: <b>down</b> | _went_"}
			}
			got := Live(HTML(t, tt.md), hostile...)
			if len(got) != len(tt.want) {
				t.Fatalf("Live found %d things, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("finding %d: %q lacks %q", i, got[i], w)
				}
			}
		})
	}
}

// TestLiveGitLab: GitLab's references the hostile value holds are found
// in the rendered text, not inside code nor with a zero-width space after
// the sigil.
func TestLiveGitLab(t *testing.T) {
	const evil = `see !123 and group/proj!4, ~bug ~"needs review" %v1.0 $99 &12 @group/team [vulnerability:6] *iteration:7`
	got := LiveGitLab(HTML(t, evil+"\n"), evil)
	want := []string{"!123", "!4", "~bug", `~"needs review"`, "%v1.0", "$99", "&12", "@group/team", "[vulnerability:6", "*iteration:7"}
	if len(got) != len(want)+1 { // and Live's own mention of @group
		t.Fatalf("LiveGitLab found %d things, want %d:\n%s", len(got), len(want)+1, strings.Join(got, "\n"))
	}
	for i, w := range want {
		if g := got[i+1]; g != "a live GitLab reference "+w {
			t.Errorf("finding %d: %q, want the reference %s", i+1, g, w)
		}
	}
	inert := "see `!123` and group/proj&#33;\u200b4, ~\u200bbug %\u200bv1.0 &#36;\u200b99 &amp;\u200b12 @\u200bgroup/team &#91;\u200bvulnerability:6&#93; &#42;\u200biteration:7\n"
	if got := LiveGitLab(HTML(t, inert), evil); len(got) != 0 {
		t.Errorf("escaped, LiveGitLab finds %q", got)
	}
}

// TestQuickActions: a hostile line that starts with a slash command is
// found, on its own line or after blanks; inside a fence, after a
// zero-width space, or a command the value does not hold, it is not.
func TestQuickActions(t *testing.T) {
	const evil = "/merge\n  /close"
	md := "report\n/merge\n  /close\n\u200b/merge\n```\n/merge\n```\n/label x\n"
	got := QuickActions(md, evil)
	if len(got) != 2 || !strings.Contains(got[0], "line 2 is the quick action /merge") || !strings.Contains(got[1], "line 3 is the quick action /close") {
		t.Errorf("QuickActions: %q", got)
	}
}
