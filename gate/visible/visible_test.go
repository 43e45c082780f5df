package visible

import (
	"testing"
)

func TestVisible(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain q1", "plain q1"},
		{"access\u202e\u2066cod\u2069\u2066", "access⟨U+202E⟩⟨U+2066⟩cod⟨U+2069⟩⟨U+2066⟩"},
		{"q1\u200b", "q1⟨U+200B⟩"},
		{"\ufeffa\u2060b\u00adc\u200ed\u200ff\u061cg", "⟨U+FEFF⟩a⟨U+2060⟩b⟨U+00AD⟩c⟨U+200E⟩d⟨U+200F⟩f⟨U+061C⟩g"},
		{"tag\U000E0041\U000E0042", "tag⟨U+E0041⟩⟨U+E0042⟩"},
		{"esc\x1b[31m", "esc⟨U+001B⟩[31m"},
		{"tab\tline\n", "tab\tline\n"},
		// Joiners and variation selectors that do visible work stay.
		{"می\u200cخواهم", "می\u200cخواهم"},
		{"👩\u200d💻", "👩\u200d💻"},
		{"⚠\ufe0f", "⚠\ufe0f"},
		// Next to ASCII or at an edge they show nothing: marked.
		{"q\u200d1", "q⟨U+200D⟩1"},
		{"q1\ufe0f", "q1⟨U+FE0F⟩"},
		{"\u200dé", "⟨U+200D⟩é"},
		{"bad\xffutf8", "bad\xffutf8"},
	} {
		if got := Visible(tt.in); got != tt.want {
			t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFoldName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ｑ１", "q1"}, {"q1\u200b", "q1"}, {"Ｑ\u202e1", "Q1"}, {"a\u3000b", "a b"}, {"q1", "q1"}, {"Cafe", "Cafe"},
	} {
		if got := FoldName(tt.in); got != tt.want {
			t.Errorf("FoldName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestVisibleID: an id shows what would make it read as another id: white
// space at either end, invisible characters (as Visible), full-width forms
// and no-break spaces anywhere; plain ids, inner spaces and other scripts
// stay as written.
func TestVisibleID(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"d01", "d01"},
		{"d01 ", "d01⟨U+0020⟩"},
		{" d01", "⟨U+0020⟩d01"},
		{"  d01  ", "⟨U+0020⟩⟨U+0020⟩d01⟨U+0020⟩⟨U+0020⟩"},
		{"d01\n", "d01⟨U+000A⟩"},
		{"d\u200b01", "d⟨U+200B⟩01"},
		{"\uff44\uff10\uff11", "⟨U+FF44⟩⟨U+FF10⟩⟨U+FF11⟩"},
		{"d01\u00a0", "d01⟨U+00A0⟩"},
		{"d\u300001", "d⟨U+3000⟩01"},
		{"my doc", "my doc"},
		{"文書1", "文書1"},
		{"cafe\u0301", "cafe⟨U+0301⟩"},
		{"cafe\u0301\u0302s", "cafe⟨U+0301⟩⟨U+0302⟩s"},
		{"caf\u00e9", "caf\u00e9"},
		{"हिंदी", "हिंदी"},
		{" ", "⟨U+0020⟩"},
		{"", ""},
	} {
		if got := VisibleID(tt.in); got != tt.want {
			t.Errorf("VisibleID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestVisibleIDOtherScripts: letters of other scripts drawn as ASCII
// (Unicode's confusables) are marked in an id that mixes them with ASCII
// letters, or whose every letter reads as ASCII; an id in its own script,
// or with an accented letter of its own, is left as written; blank-drawn
// characters are marked anywhere.
func TestVisibleIDOtherScripts(t *testing.T) {
	for in, want := range map[string]string{
		"\u050101":           "⟨U+0501⟩01",               // Cyrillic komi de
		"\u0441hunk8":        "⟨U+0441⟩hunk8",            // Cyrillic es
		"v\u03bf":            "v⟨U+03BF⟩",                // Greek omicron
		"\u0441\u043e\u0440": "⟨U+0441⟩⟨U+043E⟩⟨U+0440⟩", // сор reads as cop
		"d01\u2800":          "d01⟨U+2800⟩",              // braille blank
		"d\u316401":          "d⟨U+3164⟩01",              // Hangul filler
		"документ":           "документ",
		"документ-7":         "документ-7", // д and к are not drawn as ASCII, so neither is the rest
		"café":               "café",
		"東京-1":               "東京-1",
		"d01":                "d01",
	} {
		if got := VisibleID(in); got != want {
			t.Errorf("VisibleID(%q) = %q, want %q", in, got, want)
		}
	}
}
