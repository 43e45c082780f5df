package gate

import (
	"strings"
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

// TestSetRefusesNamesThatReadFalsely: an id, gold document or segment
// holding a bidi control or an invisible character is refused outright;
// two that read the same (a full-width twin) are refused, naming both.
func TestSetRefusesNamesThatReadFalsely(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"id":"q1","query":"x","gold":{"a":1}}` + "\n" + `{"id":"q1\u200b","query":"y","gold":{"a":1}}`,
			`s.jsonl:2: id: query id "q1⟨U+200B⟩" (q1\u200b) has an invisible character (U+200B at byte 2)`},
		{`{"id":"ｑ1","query":"x","gold":{"a":1}}` + "\n" + `{"id":"q1","query":"y","gold":{"a":1}}`,
			`s.jsonl:2: id: query id "q1" reads the same as "ｑ1" (\uff511) (line 1): they differ only by invisible or full-width characters`},
		{`{"id":"q1","query":"x","gold":{"a":1}}` + "\n" + `{"id":"ｑ1","query":"y","gold":{"a":1}}`,
			`s.jsonl:2: id: query id "ｑ1" (\uff511) reads the same as "q1" (line 1)`},
		{`{"id":"q\u202e1","query":"x","gold":{"a":1}}`, `s.jsonl:1: id: query id "q⟨U+202E⟩1" (q\u202e1) has a bidi control (U+202E at byte 1)`},
		{`{"id":"q1","query":"x","gold":{"doc\u2066":1}}`, `s.jsonl:1: gold: document id "doc⟨U+2066⟩" (doc\u2066) has a bidi control (U+2066 at byte 3)`},
		{`{"id":"q1","query":"x","gold":{"a":1},"segments":["kw\ufeff"]}`, `s.jsonl:1: segments: segment "kw⟨U+FEFF⟩" (kw\ufeff) has an invisible character`},
		{`{"id":"q1","query":"x","gold":{"ａ":1}}` + "\n" + `{"id":"q2","query":"y","gold":{"a":1}}`,
			`s.jsonl:2: gold: document id "a" reads the same as "ａ" (\uff41) (line 1)`},
		{`{"id":"q1","query":"x","gold":{"a":1},"segments":["kw"]}` + "\n" + `{"id":"q2","query":"y","gold":{"a":1},"segments":["ｋｗ"]}`,
			`s.jsonl:2: segments: segment "ｋｗ" (\uff4b\uff57) reads the same as "kw" (line 1)`},
		{`{"id":"éé","query":"x","gold":{"a":1}}` + "\n" + `{"id":"é\u200dé","query":"y","gold":{"a":1}}`,
			"s.jsonl:2: id: query id \"é\u200dé\" (\\u00e9\\u200d\\u00e9) reads the same as \"éé\" (\\u00e9\\u00e9) (line 1)"},
		{"q1 0 a 1\nq\u200b1 0 a 1\n", `s.jsonl:2: query id "q⟨U+200B⟩1" (q\u200b1) has an invisible character`},
	} {
		_, err := ParseSet(strings.NewReader(tt.in), "s.jsonl")
		if err == nil || !IsInput(err) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tt.in, err, tt.want)
		}
	}
	// Query text may hold them (reports show them marked); a joiner
	// between two letters of a script that needs it is a name as written.
	if _, err := ParseSet(strings.NewReader(`{"id":"می`+"\u200c"+`خواهم","query":"a\u202eb\u200b","gold":{"a":1}}`), "s.jsonl"); err != nil {
		t.Errorf("a Persian id with its non-joiner, hidden characters in the text: %v", err)
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
