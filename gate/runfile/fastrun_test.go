package runfile

import (
	"reflect"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// slowResult is the reference: encoding/json with the same strictness.
func slowResult(line []byte) (gate.Result, bool) {
	var raw rawResult
	if err := gate.DecodeStrict(line, &raw); err != nil || raw.ID == nil || raw.Hits == nil {
		return gate.Result{}, false
	}
	return gate.Result{ID: *raw.ID, Hits: *raw.Hits}, true
}

var runLineSeeds = []string{
	`{"id":"q1","hits":[{"doc":"a","chunk":"a#1","score":1.5,"text":"x"}]}`,
	`{ "hits" : [ ] , "id" : "q2" }`,
	`{"id":"q\"3\\","hits":[{"doc":"caf\u00e9"},{"doc":"b","score":-1e-3}]}`,
	`{"id":"q","hits":[{"doc":"a","score":01}]}`,
	`{"id":"q","hits":[{"doc":"a","score":1.}]}`,
	`{"id":"q","hits":[{"doc":"a","extra":1}]}`,
	`{"id":"q","hits":[{"doc":"g","start":0,"end":120,"section":"retention","text":"t"}]}`,
	`{"id":"q","hits":[{"doc":"g","start":01,"end":2}]}`,
	`{"id":"q","hits":[{"doc":"g","start":1e2,"end":200}]}`,
	`{"id":"q","hits":[{"doc":"g","start":-1,"end":2}]}`,
	`{"id":"q","hits":[{"doc":"g","start":1 2}]}`,
	`{"id":"q","hits":[{"doc":"g","start":3.5}]}`,
	`{"id":"q","hits":[{"doc":"a"}],"id":"r"}`,
	`{"id":"q","hits":null}`,
	`{"id":"q","hits":[{"doc":null}]}`,
	`{"id":"q","hits":[{"doc":"a"},]}`,
	`{"id":"q","hits":[{"doc":"a"}]} trailing`,
	`{"id":"q","hits":[{"doc":"a\tb"}]}`,
	`{"id":"q","hits":[{"doc":"\n"}]}`,
	`{"id":"q","hits":[{"doc":"a","score":1e999}]}`,
	`{"id":"q","hits":[{"doc":"a","score":-0.5E+2}]}`,
	"{\"id\":\"q\",\"hits\":[{\"doc\":\"\xff\"}]}",
}

// TestFastResultAgreesWithEncodingJSON: whenever the fast parser accepts a
// line, encoding/json accepts it too and decodes the same values.
func TestFastResultAgreesWithEncodingJSON(t *testing.T) {
	accepted := 0
	for _, s := range runLineSeeds {
		id, hits, ok := fastResult([]byte(s), nil)
		if !ok {
			continue
		}
		accepted++
		want, wok := slowResult([]byte(s))
		if !wok {
			t.Errorf("fast parser accepted what encoding/json rejects: %s", s)
			continue
		}
		if id != want.ID || !reflect.DeepEqual(append([]gate.Hit{}, hits...), append([]gate.Hit{}, want.Hits...)) {
			t.Errorf("%s: fast %q %+v, encoding/json %q %+v", s, id, hits, want.ID, want.Hits)
		}
	}
	if accepted < 4 {
		t.Errorf("fast parser accepted only %d of the plain lines", accepted)
	}
}

func FuzzFastResult(f *testing.F) {
	for _, s := range runLineSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, hits, ok := fastResult([]byte(s), nil)
		if !ok {
			return
		}
		want, wok := slowResult([]byte(s))
		if !wok {
			t.Fatalf("fast parser accepted what encoding/json rejects: %q", s)
		}
		if id != want.ID || !reflect.DeepEqual(append([]gate.Hit{}, hits...), append([]gate.Hit{}, want.Hits...)) {
			t.Fatalf("%q: fast %q %+v, encoding/json %q %+v", s, id, hits, want.ID, want.Hits)
		}
	})
}

// TestFastResultDecodesEscapes: the fast path takes a line with \u
// escapes, surrogate pairs, lone surrogates and invalid UTF-8 itself and
// decodes it as encoding/json does (values by hand); plain values stay
// substrings of the line.
func TestFastResultDecodesEscapes(t *testing.T) {
	for _, tt := range []struct{ line, id, doc, text string }{
		{`{"id":"q\u00e9","hits":[{"doc":"\ud83d\ude00","text":"a\nb"}]}`, "qé", "😀", "a\nb"},
		{`{"id":"q","hits":[{"doc":"\ud83dx","text":"\ude00\uD83D\uDE00"}]}`, "q", "\uFFFDx", "\uFFFD😀"},
		{"{\"id\":\"q\xff\",\"hits\":[{\"doc\":\"d\xc3\",\"text\":\"\xe2\x82\\t\"}]}", "q\uFFFD", "d\uFFFD", "\uFFFD\uFFFD\t"},
		{`{"id":"q 1","hits":[{"doc":"naïve","text":"😀"}]}`, "q 1", "naïve", "😀"},
	} {
		id, hits, ok := fastResult([]byte(tt.line), nil)
		if !ok || id != tt.id || len(hits) != 1 || hits[0].Doc != tt.doc || hits[0].Text != tt.text {
			t.Errorf("%q: %v %q %+v; want %q, doc %q, text %q", tt.line, ok, id, hits, tt.id, tt.doc, tt.text)
			continue
		}
		if want, wok := slowResult([]byte(tt.line)); !wok || want.ID != id || !reflect.DeepEqual(want.Hits, hits) {
			t.Errorf("%q: encoding/json reads %q %+v (%v)", tt.line, want.ID, want.Hits, wok)
		}
	}
	line := []byte(`{"id":"q1","hits":[{"doc":"a","chunk":"a#1","score":2,"text":"x"},{"doc":"b","score":1.5}]}`)
	scratch := make([]gate.Hit, 0, 4)
	if n := testing.AllocsPerRun(50, func() { fastResult(line, scratch) }); n != 1 {
		t.Errorf("%v allocations for a plain line, want 1 (the line as a string)", n)
	}
}
