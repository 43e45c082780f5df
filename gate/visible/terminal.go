package visible

import "strings"

// Terminal is untrusted text as one line a terminal (or a log a terminal
// shows) prints safely: invalid UTF-8 becomes U+FFFD, line breaks, tabs
// and the line and paragraph separators become spaces, and every other
// control character and invisible character shows as a mark such as
// ⟨U+001B⟩ (Visible), so nothing moves the cursor, recolours the screen or
// hides what the text says.
func Terminal(s string) string {
	return Visible(strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t', '\u2028', '\u2029':
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD")))
}
