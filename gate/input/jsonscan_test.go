package input

import (
	"encoding/json"
	"math"
	"testing"
)

// TestJSONScannerStrings: StringSpan reads a string token as encoding/json
// does, says whether its bytes are its value as they are, and UnquoteJSON
// decodes the rest to what encoding/json gives (values by hand, and
// checked against encoding/json).
func TestJSONScannerStrings(t *testing.T) {
	for _, tt := range []struct {
		name, in  string
		ok, plain bool
		want      string
		rest      string // what is left after the string
	}{
		{"plain", `"abc"`, true, true, "abc", ""},
		{"empty", `""`, true, true, "", ""},
		{"white space before, not after", " \t\r\n\"a\" ,", true, true, "a", " ,"},
		{"raw UTF-8", `"naïve 😀"`, true, true, "naïve 😀", ""},
		{"simple escapes", `"\"\\\/\b\f\n\r\t"`, true, false, "\"\\/\b\f\n\r\t", ""},
		{"unicode escapes", `"caf\u00e9 \u20AC \u0000"`, true, false, "café € \x00", ""},
		{"surrogate pair", `"\ud83d\ude00!"`, true, false, "😀!", ""},
		{"surrogate pair, upper case", `"\uD83D\uDE00"`, true, false, "😀", ""},
		{"lone high surrogate", `"a\ud83db"`, true, false, "a\uFFFDb", ""},
		{"lone high surrogate at the end", `"\ud83d"`, true, false, "\uFFFD", ""},
		{"lone low surrogate", `"\ude00x"`, true, false, "\uFFFDx", ""},
		{"high surrogate, then another escape", `"\ud83d\u0041"`, true, false, "\uFFFDA", ""},
		{"high surrogate, then a simple escape", `"\ud83d\n"`, true, false, "\uFFFD\n", ""},
		{"two high surrogates, then a low", `"\ud83d\ud83d\ude00"`, true, false, "\uFFFD😀", ""},
		{"reversed pair", `"\ude00\ud83d"`, true, false, "\uFFFD\uFFFD", ""},
		{"invalid UTF-8 bytes", "\"a\xffb\xc3\"", true, false, "a\uFFFDb\uFFFD", ""},
		{"truncated UTF-8", "\"\xf0\x9f\x98\"", true, false, "\uFFFD\uFFFD\uFFFD", ""},
		{"invalid UTF-8 beside an escape", "\"\xe2\x82\\n\"", true, false, "\uFFFD\uFFFD\n", ""},
		{"encoded surrogate (invalid UTF-8)", "\"\xed\xa0\x80\"", true, false, "\uFFFD\uFFFD\uFFFD", ""},
		{"DEL and U+2028 are not control characters to JSON", "\"\x7f\u2028\"", true, true, "\x7f\u2028", ""},
		{"tab", "\"a\tb\"", false, false, "", ""},
		{"newline", "\"a\nb\"", false, false, "", ""},
		{"NUL", "\"\x00\"", false, false, "", ""},
		{"unit separator", "\"\x1f\"", false, false, "", ""},
		{"unknown escape", `"\x41"`, false, false, "", ""},
		{"escaped apostrophe", `"\'"`, false, false, "", ""},
		{"short unicode escape", `"\u12"`, false, false, "", ""},
		{"unicode escape, bad hex", `"\u12g4"`, false, false, "", ""},
		{"unterminated", `"abc`, false, false, "", ""},
		{"ends in a backslash", `"abc\`, false, false, "", ""},
		{"escaped closing quote only", `"abc\"`, false, false, "", ""},
		{"single quotes", `'a'`, false, false, "", ""},
		{"not a string", `12`, false, false, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewJSONScanner([]byte(tt.in))
			start, end, plain, ok := s.StringSpan()
			if ok != tt.ok || plain != tt.plain {
				t.Fatalf("StringSpan(%q): plain %v, ok %v; want plain %v, ok %v", tt.in, plain, ok, tt.plain, tt.ok)
			}
			var ref string
			refErr := json.Unmarshal([]byte(tt.in+tt.rest), &ref)
			if !ok {
				if refErr == nil {
					t.Errorf("StringSpan refused %q, which encoding/json reads as %q", tt.in, ref)
				}
				return
			}
			got := string(s.b[start:end])
			if !plain {
				got = UnquoteJSON(s.b[start:end])
			}
			if got != tt.want {
				t.Errorf("%q read as %q, want %q", tt.in, got, tt.want)
			}
			if rest := string(s.b[s.i:]); rest != tt.rest {
				t.Errorf("%q: %q left, want %q", tt.in, rest, tt.rest)
			}
			if tt.rest == "" && (refErr != nil || ref != tt.want) {
				t.Errorf("encoding/json reads %q as %q (%v), want %q", tt.in, ref, refErr, tt.want)
			}
		})
	}
}

// TestJSONScannerNumbers: Number reads the longest JSON number the bytes
// start with, per the grammar -? (0 | [1-9][0-9]*) (. [0-9]+)?
// ([eE] [+-]? [0-9]+)?, and nothing when they start with none (or one
// out of float64's range).
func TestJSONScannerNumbers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		ok   bool
		want float64
		rest string // left after a number read
	}{
		{"0", true, 0, ""},
		{"-0", true, math.Copysign(0, -1), ""},
		{"7", true, 7, ""},
		{"1.5", true, 1.5, ""},
		{"-12.25", true, -12.25, ""},
		{"1e3", true, 1000, ""},
		{"1E+2", true, 100, ""},
		{"-1e-3", true, -0.001, ""},
		{"2.5E-1", true, 0.25, ""},
		{" \n\t12 ,", true, 12, " ,"},
		{"100]", true, 100, "]"},
		{"1e308", true, 1e308, ""},
		{"01", true, 0, "1"},       // a leading zero ends the number
		{"0x10", true, 0, "x10"},   // no hex
		{"1.5.2", true, 1.5, ".2"}, // one fraction
		{"-", false, 0, ""},        // a sign alone
		{"+1", false, 0, ""},       // no plus sign before
		{".5", false, 0, ""},       // a digit before the point
		{"1.", false, 0, ""},       // a digit after it
		{"1.e3", false, 0, ""},     // the same
		{"1e", false, 0, ""},       // a digit in the exponent
		{"1e+", false, 0, ""},      // the same
		{"1e999", false, 0, ""},    // past float64
		{"-1e999", false, 0, ""},
		{"NaN", false, 0, ""},
		{"Infinity", false, 0, ""},
		{"-Infinity", false, 0, ""},
		{`"1"`, false, 0, ""},
		{"", false, 0, ""},
	} {
		s := NewJSONScanner([]byte(tt.in))
		got, ok := s.Number()
		if ok != tt.ok || got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
			t.Errorf("Number(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if rest := string(s.b[s.i:]); ok && rest != tt.rest {
			t.Errorf("Number(%q) left %q, want %q", tt.in, rest, tt.rest)
		}
		if !ok && s.i != 0 {
			t.Errorf("Number(%q) refused, but moved to %d", tt.in, s.i)
		}
		var ref float64
		err := json.Unmarshal([]byte(tt.in), &ref)
		if !tt.ok && err == nil || tt.ok && tt.rest == "" && (err != nil || ref != tt.want) {
			t.Errorf("encoding/json reads %q as %v (%v)", tt.in, ref, err)
		}
	}
}

// TestJSONScannerKeys: Key reads a short ASCII key written without
// escapes and the colon after it; any other is left to encoding/json.
func TestJSONScannerKeys(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
		rest     string
	}{
		{`"id":"x"`, "id", true, `"x"`},
		{` "text" : 1`, "text", true, " 1"},
		{`"ID":1`, "ID", true, "1"}, // as written: the caller decides
		{`"":1`, "", true, "1"},
		{`"abcdefghijklmnop":1`, "abcdefghijklmnop", true, "1"}, // 16 bytes
		{`"abcdefghijklmnopq":1`, "", false, ""},                // 17
		{`"i\u0064":1`, "", false, ""},
		{`"a\"b":1`, "", false, ""},
		{`"é":1`, "", false, ""},
		{"\"a\tb\":1", "", false, ""},
		{`"id" 1`, "", false, ""},
		{`"id"`, "", false, ""},
		{`"id`, "", false, ""},
		{`id:1`, "", false, ""},
	} {
		s := NewJSONScanner([]byte(tt.in))
		got, ok := s.Key()
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("Key(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if rest := string(s.b[s.i:]); ok && rest != tt.rest {
			t.Errorf("Key(%q) left %q, want %q", tt.in, rest, tt.rest)
		}
	}
}

// TestJSONScannerSpace: JSON white space is space, tab, CR and LF only;
// Peek, Byte and End skip it, and Byte reads only the byte asked for.
func TestJSONScannerSpace(t *testing.T) {
	for _, tt := range []struct {
		in   string
		peek byte
		end  bool
	}{
		{"", 0, true},
		{" \t\r\n", 0, true},
		{" \t\r\n{", '{', false},
		{"\v{", '\v', false},           // vertical tab is not JSON white space
		{"\f{", '\f', false},           // nor form feed
		{"\u00a0{", 0xc2, false},       // nor no-break space
		{"\xef\xbb\xbf{", 0xef, false}, // nor a byte order mark
		{"  }  ", '}', false},
	} {
		s := NewJSONScanner([]byte(tt.in))
		if got := s.Peek(); got != tt.peek {
			t.Errorf("Peek(%q) = %q, want %q", tt.in, got, tt.peek)
		}
		if got := s.End(); got != tt.end {
			t.Errorf("End(%q) = %v, want %v", tt.in, got, tt.end)
		}
	}
	s := NewJSONScanner([]byte(" [ \n] x"))
	if s.Byte(']') || !s.Byte('[') || s.Byte('[') || !s.Byte(']') || s.End() || !s.Byte('x') || !s.End() {
		t.Errorf("Byte over %q went wrong at %d", s.b, s.i)
	}
}

// TestJSONScannerEmptyValue: EmptyValue reads {} (white space inside
// allowed) and null, nothing else.
func TestJSONScannerEmptyValue(t *testing.T) {
	for in, want := range map[string]bool{
		"{}": true, " { \n } ": true, "null": true, " null,": true,
		"nul": false, "Null": false, "[]": false, `{"a":1}`: false, "{": false, `""`: false, "0": false,
	} {
		s := NewJSONScanner([]byte(in))
		if got := s.EmptyValue(); got != want {
			t.Errorf("EmptyValue(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestOffsetReadsPlainDigitsOnly: what encoding/json reads into an int,
// and nothing it would refuse there.
func TestOffsetReadsPlainDigitsOnly(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0,", 0, true}, {" 123}", 123, true}, {"999999999999999", 999999999999999, true},
		{"-1", 0, false}, {"01", 0, false}, {"1.0", 0, false}, {"1e2", 0, false}, {"x", 0, false},
		{"1234567890123456", 0, false},
	} {
		s := NewJSONScanner([]byte(c.in))
		got, ok := s.Offset()
		if got != c.want || ok != c.ok {
			t.Errorf("Offset(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
