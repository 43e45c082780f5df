package input

import (
	"strings"
	"testing"
)

// TestClipID: an id up to MaxShownIDChars characters is printed whole;
// a longer one is cut on a character boundary to its first characters,
// "…" and its length, MaxShownIDChars characters in all.
func TestClipID(t *testing.T) {
	for _, tt := range []struct {
		id, want string
	}{
		{"q1", "q1"},
		{strings.Repeat("a", 200), strings.Repeat("a", 200)},
		// "…(201 bytes)" is 12 characters: 188 of the id are kept.
		{strings.Repeat("a", 201), strings.Repeat("a", 188) + "…(201 bytes)"},
		// ü is 2 bytes: 300 characters are 600 bytes, cut between two.
		{strings.Repeat("ü", 300), strings.Repeat("ü", 188) + "…(600 bytes)"},
	} {
		got := ClipID(tt.id)
		if got != tt.want {
			t.Errorf("ClipID(%d bytes) = %q, want %q", len(tt.id), got, tt.want)
		}
		if n := len([]rune(got)); n > MaxShownIDChars {
			t.Errorf("ClipID(%d bytes) has %d characters", len(tt.id), n)
		}
	}
}
