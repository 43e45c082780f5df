package section

import (
	"reflect"
	"testing"
)

// TestSlugRules: GitHub's anchors for headings, each worked out by hand
// from the rules in Slug's comment (the github-slugger cases marked so
// are its own fixtures' expectations).
func TestSlugRules(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Retention", "retention"},
		{"Backup & Restore", "backup--restore"},                          // "&" dropped, both spaces kept
		{"What's new?", "whats-new"},                                     // apostrophe and "?" dropped
		{"heading with a - dash", "heading-with-a---dash"},               // github-slugger
		{"heading with an _ underscore", "heading-with-an-_-underscore"}, // github-slugger: "_" is Pc, kept
		{"exchange.bind_headers(exchange, routing [, bindCallback])", "exchangebind_headersexchange-routing--bindcallback"}, // github-slugger
		{"I ♥ unicode", "i--unicode"},                  // a symbol dropped
		{"en–dash em—dash", "endash-emdash"},           // Pd other than "-" dropped
		{"Привет non-latin 你好", "привет-non-latin-你好"}, // letters of every script kept, lower-cased
		{"😄 unicode emoji", "-unicode-emoji"},          // emoji dropped, the space stays
		{"Ⓐ circled", "ⓐ-circled"},                     // So but alphabetic: kept
		{"x² and ½", "x-and-"},                         // No dropped
		{"Café Ⅻ", "café-ⅻ"},                           // a mark-bearing letter, Nl kept
		{"tab\there", "tabhere"},                       // a control character dropped, not "-"
		{"no\u00a0break", "nobreak"},                   // a separator other than U+0020 dropped
		{"Version 2.0", "version-20"},
		{"", ""},
	} {
		if got := Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSluggerCountsRepeats: a repeated slug gets the first free -N
// (github-slugger's fixtures "Repetition" and "More repetition").
func TestSluggerCountsRepeats(t *testing.T) {
	for _, c := range []struct {
		in, want []string
	}{
		{[]string{"echo", "echo", "echo 1", "echo-1", "echo"}, []string{"echo", "echo-1", "echo-1-1", "echo-1-2", "echo-2"}},
		{[]string{"foxtrot-1", "foxtrot", "foxtrot"}, []string{"foxtrot-1", "foxtrot", "foxtrot-2"}},
		{[]string{"Notes", "notes", "NOTES!"}, []string{"notes", "notes-1", "notes-2"}},
	} {
		var s Slugger
		var got []string
		for _, h := range c.in {
			got = append(got, s.Slug(h))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
	var s Slugger
	s.Take("keep")
	if got := s.Slug("Keep"); got != "keep-1" {
		t.Errorf("a heading slugging to an explicit id taken before: got %q, want keep-1", got)
	}
}
