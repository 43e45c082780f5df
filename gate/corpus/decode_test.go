package corpus

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// decodeCases are corpus lines with what encoding/json (through
// gate.DecodeStrict) decodes them to, by hand; fast says decodeLine takes
// them itself rather than leaving them to encoding/json.
var decodeCases = []struct {
	name, line string
	want       Document
	fast       bool
}{
	{"plain", `{"id":"d1","title":"T","text":"body"}`, Document{ID: "d1", Title: "T", Text: "body"}, true},
	{"keys in another order, spaces", ` { "text" : "b" , "id":"d1" } `, Document{ID: "d1", Text: "b"}, true},
	{"only an id", `{"id":"d1"}`, Document{ID: "d1"}, true},
	{"empty metadata", `{"id":"d1","text":"t","metadata":{}}`, Document{ID: "d1", Text: "t"}, true},
	{"null metadata", `{"id":"d1","metadata":null,"text":"t"}`, Document{ID: "d1", Text: "t"}, true},
	{"simple escapes", `{"id":"a\"b","text":"x\\y\/z\b\f\n\r\t"}`, Document{ID: `a"b`, Text: "x\\y/z\b\f\n\r\t"}, true},
	{"unicode escape", `{"id":"d","text":"caf\u00e9 \u20ac \u0000"}`, Document{ID: "d", Text: "café € \x00"}, true},
	{"surrogate pair", `{"id":"d","text":"\ud83d\ude00!"}`, Document{ID: "d", Text: "😀!"}, true},
	{"upper-case hex", `{"id":"d","text":"\uD83D\uDE00"}`, Document{ID: "d", Text: "😀"}, true},
	{"lone high surrogate", `{"id":"d","text":"a\ud83db"}`, Document{ID: "d", Text: "a\uFFFDb"}, true},
	{"lone low surrogate", `{"id":"d","text":"\ude00"}`, Document{ID: "d", Text: "\uFFFD"}, true},
	{"high then non-surrogate escape", `{"id":"d","text":"\ud83d\u0041"}`, Document{ID: "d", Text: "\uFFFDA"}, true},
	{"two high surrogates", `{"id":"d","text":"\ud83d\ud83d\ude00"}`, Document{ID: "d", Text: "\uFFFD😀"}, true},
	{"raw UTF-8", `{"id":"é","text":"naïve 😀"}`, Document{ID: "é", Text: "naïve 😀"}, true},
	{"invalid UTF-8 bytes", "{\"id\":\"d\",\"text\":\"a\xffb\xc3\"}", Document{ID: "d", Text: "a\uFFFDb\uFFFD"}, true},
	{"invalid UTF-8 beside an escape", "{\"id\":\"d\",\"text\":\"\xe2\x82\\n\"}", Document{ID: "d", Text: "\uFFFD\uFFFD\n"}, true},
	{"truncated UTF-8 in the id", "{\"id\":\"\xf0\x9f\x98\"}", Document{ID: "\uFFFD\uFFFD\uFFFD"}, true},
	// Left to encoding/json, which reads them as it always did.
	{"key in other case", `{"ID":"d1","Text":"t"}`, Document{ID: "d1", Text: "t"}, false},
	{"escaped key", `{"\u0069d":"d1"}`, Document{ID: "d1"}, false},
	{"null title", `{"id":"d1","title":null}`, Document{ID: "d1"}, false},
	{"metadata with content", `{"id":"d1","metadata":{"url":"u","n":[1,2]}}`, Document{ID: "d1"}, false},
}

// refused are lines encoding/json (or the corpus's rules) refuse; the
// error names the line and, where there is one, the field.
var refused = []struct{ name, line, err string }{
	{"duplicate key", `{"id":"a","id":"b"}`, "c.jsonl:1: id: key listed twice"},
	{"duplicate text", `{"id":"a","text":"x","text":"y"}`, "c.jsonl:1: text: key listed twice"},
	{"unknown field", `{"id":"a","body":"x"}`, "c.jsonl:1: body: unknown field"},
	{"number text", `{"id":"a","text":5}`, "c.jsonl:1: text: wrong type"},
	{"empty id", `{"id":"","text":"x"}`, "c.jsonl:1: id: required and must not be empty"},
	{"no id", `{"text":"x"}`, "c.jsonl:1: id: required and must not be empty"},
	{"control character", "{\"id\":\"a\",\"text\":\"x\ty\"}", "c.jsonl:1: invalid JSON"},
	{"bad escape", `{"id":"a","text":"\x"}`, "c.jsonl:1: invalid JSON"},
	{"short unicode escape", `{"id":"a","text":"\u12"}`, "c.jsonl:1: invalid JSON"},
	{"trailing data", `{"id":"a"} {}`, "c.jsonl:1: invalid JSON"},
	{"unterminated", `{"id":"a","text":"x`, "c.jsonl:1: invalid JSON"},
}

// TestDecodeLineAsEncodingJSON: decodeLine decodes what it takes exactly
// as encoding/json does, and leaves the rest (and every refusal) to it.
func TestDecodeLineAsEncodingJSON(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := decodeStrict([]byte(tc.line), "c.jsonl", 1)
			if err != nil || !reflect.DeepEqual(ref, tc.want) {
				t.Fatalf("encoding/json: %#v, %v; want %#v", ref, err, tc.want)
			}
			got, ok := decodeLine([]byte(tc.line))
			if ok != tc.fast || (ok && !reflect.DeepEqual(got, tc.want)) {
				t.Errorf("decodeLine: %#v, %v; want %#v, %v", got, ok, tc.want, tc.fast)
			}
		})
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			if d, ok := decodeLine([]byte(tc.line)); ok {
				t.Errorf("decodeLine took a line encoding/json refuses: %#v", d)
			}
			path := filepath.Join(t.TempDir(), "c.jsonl")
			if err := os.WriteFile(path, []byte(tc.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := Walk(path, func(Document) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Walk: %v; want it to say %q", err, tc.err)
			}
		})
	}
}

// TestDecodeLineAllocations: a plain line is one allocation, the line as
// a string, its fields substrings of it.
func TestDecodeLineAllocations(t *testing.T) {
	line := []byte(`{"id":"d1","title":"Title","text":"body"}`)
	if n := testing.AllocsPerRun(50, func() { decodeLine(line) }); n != 1 {
		t.Errorf("%s: %v allocations, want 1", line, n)
	}
}

// FuzzDecodeLine: whatever decodeLine takes, encoding/json takes too and
// decodes to the same document.
func FuzzDecodeLine(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range refused {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := decodeLine(line)
		if !ok {
			return
		}
		ref, err := decodeStrict(line, "c.jsonl", 1)
		if err != nil || !reflect.DeepEqual(ref, got) {
			t.Errorf("%q: decodeLine %#v, encoding/json %#v (%v)", line, got, ref, err)
		}
	})
}

// TestReadAheadStopsEarly: a gzip corpus whose third line is refused
// is an error naming the line; a whole one reads every document in
// order; and a reader stopped early over an endless stream ends its read
// goroutine before Close returns.
func TestReadAheadStopsEarly(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for i := range 30000 { // 18 MB: more than the blocks read ahead
		line := fmt.Sprintf(`{"id":"d%d","text":"%s"}`, i, strings.Repeat("w ", 300))
		if i == 2 {
			line = `{"id":"d2","text":5}`
		}
		fmt.Fprintln(zw, line)
	}
	zw.Close()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl.gz")
	if err := os.WriteFile(bad, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Walk(bad, func(Document) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl.gz:3: text: wrong type") {
		t.Errorf("%v", err)
	}
	b.Reset()
	zw = gzip.NewWriter(&b)
	for i := range 5000 {
		fmt.Fprintf(zw, `{"id":"d%d","text":"%s"}`+"\n", i, strings.Repeat("w ", 300))
	}
	zw.Close()
	good := filepath.Join(dir, "good.jsonl.gz")
	if err := os.WriteFile(good, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = Walk(good, func(d Document) error {
		if d.ID != fmt.Sprintf("d%d", n) || len(d.Text) != 600 {
			return fmt.Errorf("document %d is %q", n, d.ID)
		}
		n++
		return nil
	})
	if err != nil || n != 5000 {
		t.Errorf("%d documents, %v", n, err)
	}
	before := runtime.NumGoroutine()
	ra := newReadAhead(endless{})
	if _, err := io.ReadFull(ra, make([]byte, 3*readAheadBlock)); err != nil {
		t.Fatal(err)
	}
	ra.Close()
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", after, before, buf[:runtime.Stack(buf, true)])
	}
}

// endless is a stream that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }
