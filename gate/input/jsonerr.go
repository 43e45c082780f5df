package input

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// JSONLineError turns an encoding/json error of a JSON line of file, at
// line n, into an *InputError naming the field when it can (a duplicate
// key, bad syntax, a wrong type, an unknown field).
func JSONLineError(file string, n int, err error) *InputError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var dup *DuplicateKeyError
	msg := err.Error()
	switch {
	case errors.As(err, &dup):
		field := strings.TrimPrefix(strings.TrimPrefix(dup.Path, "$"), ".")
		if field != "" {
			field += "."
		}
		what := "key listed twice"
		if field == "gold." || strings.HasPrefix(field, "judgments.") {
			what = "document listed twice"
		}
		return Errf(file, n, field+dup.Key, "%s (a reader would keep only one of them)", what)
	case errors.As(err, &syn):
		return Errf(file, n, "", "invalid JSON at column %d: %s", syn.Offset, strings.TrimPrefix(msg, "json: "))
	case errors.As(err, &typ):
		return Errf(file, n, typ.Field, "wrong type: got JSON %s, want %s", typ.Value, JSONTypeName(typ.Type))
	case strings.HasPrefix(msg, "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
		return Errf(file, n, field, "unknown field")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Errf(file, n, "", "invalid JSON: the line ends inside the object")
	}
	return Errf(file, n, "", "invalid JSON: %s", strings.TrimPrefix(msg, "json: "))
}

// ControlChar finds the first control character of s (line and paragraph
// separators included): the rune, its byte offset, and whether there is one.
func ControlChar(s string) (rune, int, bool) {
	for i, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return r, i, true
		}
	}
	return 0, 0, false
}

// JSONTypeName says what JSON a Go type takes, for messages that must not
// speak Go ("a string", not "string"; "an object", not "map[string]gate.goldMap").
func JSONTypeName(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a finite number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// JSONShown writes a JSON token as the line gave it: a string quoted
// ("1", not 1), an object or array named.
func JSONShown(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "an object"
	}
	return fmt.Sprint(tok)
}

// Errf builds an *InputError of file, line and field, its message made as
// fmt.Errorf makes it.
func Errf(file string, line int, field, format string, args ...any) *InputError {
	return &InputError{File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
}
