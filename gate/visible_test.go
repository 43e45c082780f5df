package gate

import (
	"strings"
	"testing"
)

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
