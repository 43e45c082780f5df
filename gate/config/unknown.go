package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// unknownKeyError describes the first key recallgate does not know: its
// line, the key, and the closest known key of the same table.
func unknownKeyError(data []byte, keys []toml.Key) (line int, field, msg string) {
	first := keys[0]
	field = first.String()
	line = keyLine(data, first)
	msg = "unknown key"
	table, name := first[:len(first)-1], first[len(first)-1]
	if best := closest(name, knownKeys(table)); best != "" {
		msg += fmt.Sprintf("; did you mean %s?", best)
	} else if known := knownKeys(table); len(known) > 0 {
		msg += fmt.Sprintf(" (this table takes %s)", strings.Join(known, ", "))
	}
	var rest []string
	for _, k := range keys[1:] {
		if !strings.HasPrefix(k.String(), field+".") { // keys inside an unknown table say nothing new
			rest = append(rest, k.String())
		}
	}
	if len(rest) > 0 {
		msg += fmt.Sprintf("; also unknown: %s", strings.Join(rest, ", "))
	}
	return line, field, msg
}

// knownKeys lists the keys recallgate reads in a table, from the toml tags
// of the raw config, in declaration order.
func knownKeys(table []string) []string {
	t, ok := tableType(table)
	if !ok || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if tag := t.Field(i).Tag.Get("toml"); tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	return out
}

// tableType is the Go type recallgate decodes the table into (pointers
// and arrays of tables looked through); false for a table it does not read.
func tableType(table []string) (reflect.Type, bool) {
	t := rawType
	for i := 0; i < len(table); i++ {
		part := table[i]
		if i == 0 && (part == "base" || part == "head") && len(table) > 1 && table[1] == "retriever" {
			t, i = reflect.TypeOf(Retriever{}), 1
			continue
		}
		if i == 0 && part == "fusion" && len(table) > 1 {
			t, i = reflect.TypeOf(rawFusion{}), 1
			continue
		}
		if i == 0 && part == "variant" && len(table) > 2 && table[2] == "retriever" {
			t, i = reflect.TypeOf(Retriever{}), 2
			continue
		}
		f, ok := fieldByTag(t, part)
		if !ok {
			return nil, false
		}
		t = f.Type
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
	}
	return t, true
}

func fieldByTag(t reflect.Type, tag string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("toml") == tag {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// closest returns the known key nearest to name by edit distance, when it
// is near enough to be a typo (at most a third of the name, at least 1).
func closest(name string, known []string) string {
	best, bestD := "", max(1, len(name)/3)+1
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the edit distance between a and b counting an insertion,
// a deletion, a substitution or a swap of two neighbours as one edit (the
// optimal string alignment distance), so "gaet" is one edit from "gate".
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

var (
	headerLine = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
	keyRe      = regexp.MustCompile(`^\s*([A-Za-z0-9_\-."' ]+?)\s*=`)
)

// keyLine finds the 1-based line that defines key, following table
// headers; 0 when the text does not show it plainly (an inline table).
func keyLine(data []byte, key toml.Key) int {
	want := strings.Join(key, ".")
	var table string
	for i, line := range strings.Split(string(data), "\n") {
		if m := headerLine.FindStringSubmatch(line); m != nil {
			table = unquoteKey(m[1])
			if table == want {
				return i + 1
			}
			continue
		}
		if m := keyRe.FindStringSubmatch(line); m != nil {
			full := unquoteKey(m[1])
			if table != "" {
				full = table + "." + full
			}
			if full == want {
				return i + 1
			}
		}
	}
	return 0
}

// unquoteKey normalises a dotted TOML key: spaces around dots and quotes
// around parts removed, a basic string's escapes (\u00a0) read.
func unquoteKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if u, err := strconv.Unquote(p); err == nil && strings.HasPrefix(p, `"`) {
			parts[i] = u
			continue
		}
		parts[i] = strings.Trim(p, `"'`)
	}
	return strings.Join(parts, ".")
}
