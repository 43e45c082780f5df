package config

import (
	"encoding"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/recallgate/recallgate/gate"
)

// tomlTypeErr matches the decoder's type errors, which it gives as plain
// text: `toml: line 4 (last key "retriever.command"): incompatible types:
// TOML value has type string; destination has type slice`, or "type
// mismatch for spec.Retriever: expected table but found int64".
var tomlTypeErr = regexp.MustCompile(`^toml: (?:line \d+ )?\(last key "([^"]*)"\): (?:incompatible types|type mismatch for )`)

// examples are a value of the right shape for the keys people most often
// get wrong, keyed by the key's last part and its kind.
var examples = map[string]string{
	"command/slice":         `["python3", "retriever.py"]`,
	"env/slice":             `["EMBEDDER_KEY"]`,
	"set/string":            `"queries.jsonl"`,
	"corpus/string":         `"docs"`,
	"url/string":            `"http://127.0.0.1:8000/search"`,
	"timeout/string":        `"30s"`,
	"type/string":           `"command"`,
	"candidates/int":        `50`,
	"context/int":           `5`,
	"headers/map":           `{ Authorization = "Bearer ${TOKEN}" }`,
	"grades/slice":          `["irrelevant", "relevant"]`,
	"max_recall_drop/float": `0.02`,
}

// typeError turns the decoder's type error into one a person can act on:
// the key, its line, the shape the key takes with an example, and the
// value as given (`retriever.command: must be an array, e.g. ["python3",
// "retriever.py"]; got the string "python3 r.py"`). ok is false when err
// is not a type error.
func typeError(data []byte, name string, err error) (ie *gate.InputError, ok bool) {
	m := tomlTypeErr.FindStringSubmatch(err.Error())
	if m == nil || m[1] == "" {
		return nil, false
	}
	key := toml.Key(strings.Split(m[1], "."))
	t, found := keyType(key)
	if !found {
		return nil, false
	}
	shape, kind := shapeOf(t)
	msg := "must be " + shape
	if ex, ok := examples[key[len(key)-1]+"/"+kind]; ok {
		msg += ", e.g. " + ex
	}
	if got, ok := givenValue(data, key); ok {
		msg += "; got " + got
	}
	return &gate.InputError{File: name, Line: keyLine(data, key), Field: key.String(), Err: fmt.Errorf("%s", msg)}, true
}

var textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()

// shapeOf says in words what a value of type t looks like in TOML, and
// its kind for the examples table.
func shapeOf(t reflect.Type) (shape, kind string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string in quotes", "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string in quotes", "string"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Struct {
			return "a table repeated with [[…]]", "tables"
		}
		if t.Elem().Kind() == reflect.String {
			return "an array of strings", "slice"
		}
		return "an array", "slice"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number (no quotes)", "int"
	case reflect.Float32, reflect.Float64:
		return "a number (no quotes)", "float"
	case reflect.Bool:
		return "true or false (no quotes)", "bool"
	case reflect.Map:
		return "a table", "map"
	case reflect.Struct:
		return "a table", "struct"
	}
	return "a " + t.Kind().String(), t.Kind().String()
}

// keyType is the Go type recallgate decodes key into.
func keyType(key toml.Key) (reflect.Type, bool) {
	t, ok := tableType(key[:len(key)-1])
	if !ok {
		return nil, false
	}
	f, ok := fieldByTag(t, key[len(key)-1])
	if !ok {
		return nil, false
	}
	return f.Type, true
}

// givenValue shows the value the file gave key, as TOML writes it (a
// string quoted: "1", not 1), with a word for its type; false when the
// file cannot be read as TOML or key is not plainly in it.
func givenValue(data []byte, key toml.Key) (string, bool) {
	var all map[string]any
	if _, err := toml.Decode(string(data), &all); err != nil {
		return "", false
	}
	var v any = all
	for _, part := range key {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if v, ok = m[part]; !ok {
			return "", false
		}
	}
	word := ""
	switch v.(type) {
	case string:
		word = "the string "
	case int64, float64:
		word = "the number "
	case []any, []map[string]any:
		word = "the array "
	case map[string]any:
		return "a table", true
	}
	return word + gate.Visible(clipValue(tomlValue(v), 80)), true
}

// tomlValue writes v as TOML would: strings quoted, arrays bracketed.
func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return "{…}"
	}
	return fmt.Sprint(v)
}

// clipValue shortens s to n runes, ending with "…" when cut.
func clipValue(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
