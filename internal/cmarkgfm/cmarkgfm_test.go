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
