package visible

import "testing"

// TestTerminal: line breaks and tabs become spaces, controls and invisible
// characters show as marks, invalid UTF-8 becomes U+FFFD.
func TestTerminal(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\nb\r\nc\td", "a b  c d"},
		{"line\u2028para\u2029end", "line para end"},
		{"\x1b[31mred", "⟨U+001B⟩[31mred"},
		{"c1\u009bx", "c1⟨U+009B⟩x"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"x\u202ey", "x⟨U+202E⟩y"},
		{"zero\u200bwidth", "zero⟨U+200B⟩width"},
	} {
		if got := Terminal(tt.in); got != tt.want {
			t.Errorf("Terminal(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
