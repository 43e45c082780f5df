package report

import "testing"

// TestTerminalOneSanitiser: the text report, the experiment and the commit
// list share visible.Terminal, so a control character in untrusted text is
// shown as a mark (it was deleted here, shown by the experiment and
// replaced by U+FFFD in the commit list).
func TestTerminalOneSanitiser(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a\x1b[2Jb", "a⟨U+001B⟩[2Jb"},
		{"q\n1", "q 1"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
	} {
		if got := terminal(tt.in); got != tt.want {
			t.Errorf("terminal(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
