package input

import (
	"strings"
	"testing"
)

// FuzzFields6Fast: the single-space fast path gives exactly the fields of
// the general splitter for every line it accepts.
func FuzzFields6Fast(f *testing.F) {
	for _, s := range []string{"q1 Q0 doc 1 2.5 run", "q1\tQ0 doc 1 2.5 run", "q1  Q0 doc 1 2.5 run", " q1 Q0 d 1 2 r", "q1 Q0 d 1 2 r ", "a b c d e", "a b c d e f g", "q\x01 Q0 d 1 2 r", "q1 Q0 d\v 1 2 r", "query-00001 Q0 document-0000001 1 12.5 recallgate-run", "q\x80\xff Q0 d 1 2 r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fast, ok := Fields6Fast([]byte(line))
		if !ok {
			// It must take every line of the shape it is for: six
			// non-empty fields of bytes above ' ', apart by single spaces.
			parts := strings.Split(line, " ")
			common := len(parts) == 6
			for _, p := range parts {
				common = common && p != "" && strings.IndexFunc(p, func(r rune) bool { return r <= ' ' }) < 0 && !strings.ContainsAny(p, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f")
			}
			if common {
				t.Fatalf("%q: six single-space fields refused by the fast path", line)
			}
			return
		}
		slow, n := Fields6([]byte(line))
		if n != 6 {
			t.Fatalf("%q: the fast path took %d fields as six", line, n)
		}
		for i := range fast {
			if string(fast[i]) != string(slow[i]) {
				t.Fatalf("%q: field %d %q, want %q", line, i, fast[i], slow[i])
			}
		}
	})
}
