package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// refKeys is the reference CheckDuplicateKeys: the decoder's tokens walked
// recursively (quadratic in depth, but plainly right).
func refKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(path string, depth int) error
	walk = func(path string, depth int) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		if depth >= MaxJSONDepth {
			return &DepthError{Path: path}
		}
		if d == '{' {
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if seen[k] {
					return &DuplicateKeyError{Path: path, Key: k}
				}
				seen[k] = true
				if err := walk(path+"."+k, depth+1); err != nil {
					return err
				}
			}
		} else {
			for i := 0; dec.More(); i++ {
				if err := walk(fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token()
		return err
	}
	err := walk("$", 0)
	var dk *DuplicateKeyError
	var de *DepthError
	if errors.Is(err, io.EOF) || !(errors.As(err, &dk) || errors.As(err, &de)) {
		return nil
	}
	return err
}

func checkKeysAgree(t *testing.T, doc string) {
	t.Helper()
	got, want := CheckDuplicateKeys([]byte(doc)), refKeys([]byte(doc))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil && want == nil {
			return // malformed: left to the decoder either way
		}
		t.Errorf("%q: %v, want %v", doc, got, want)
	}
}

var keyDocs = []string{
	`{"a":1,"b":2}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":1,"c":2}]}}`, `[{"x":1},{"x":1,"y":[],"x":3}]`,
	`{"a\u0062":1,"ab":2}`, `{"\u00e9":1,"é":2}`, `{"a":"}","a":"{"}`, `{"a":"\"","b":{},"a":1}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7,"k3":1}`,
	`{"a":{"x":1},"b":{"x":1}}`, `{"a":{"x":1},"a":{}}`, `[] {"a":1,"a":1}`, `{"a":tru,"a":1}`, `{"a":1,}`, `"str"`, `12`,
	strings.Repeat("[", 64) + strings.Repeat("]", 64), strings.Repeat("[", 65) + strings.Repeat("]", 65),
	strings.Repeat(`{"a":[`, 40) + "1" + strings.Repeat("]}", 40), `{"q":[1,2,[3,[4,{"z":1,"z":2}]]]}`,
	"{\"a\xff\":1,\"a\xfe\":2}", `{"a":1 , "b" : [ 1 , 2 ] , "a" : 3 }`,
}

// TestCheckDuplicateKeysMatchesTheDecoder: the one-pass scanner finds
// what the decoder's tokens show, with the same paths.
func TestCheckDuplicateKeysMatchesTheDecoder(t *testing.T) {
	for _, doc := range keyDocs {
		checkKeysAgree(t, doc)
	}
	var de *DepthError
	if err := CheckDuplicateKeys([]byte(strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000))); !errors.As(err, &de) || de.Path != "$"+strings.Repeat(".a", MaxJSONDepth) {
		t.Errorf("deep: %v", err)
	}
}

func FuzzCheckDuplicateKeys(f *testing.F) {
	for _, doc := range keyDocs {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) { checkKeysAgree(t, doc) })
}
