package config

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/recallgate/recallgate/gate"
)

// nonFiniteLiteral is a TOML float that is not a number or infinite: nan
// and inf, signed or not.
var nonFiniteLiteral = regexp.MustCompile(`(^|[=\[,\s])[+-]?(nan|inf)\b`)

// checkFinite refuses a config that writes nan or inf for any number
// (TOML reads them as floats): a threshold, a weight, a margin or a BM25
// parameter that is not a finite number would score rows from NaN or
// make a rule that nothing passes or everything does. It walks the whole
// document, so every float any table reads is held to it, and names the
// first such key by its line.
func checkFinite(data []byte, name string) error {
	var all map[string]any
	if _, err := toml.Decode(string(data), &all); err != nil {
		return nil // decodeConfig names a syntax error
	}
	var bad []string
	got := map[string]float64{}
	walkFloats(all, nil, func(path []string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			k := strings.Join(path, ".")
			bad, got[k] = append(bad, k), v
		}
	})
	if len(bad) == 0 {
		return nil
	}
	sort.Slice(bad, func(i, j int) bool {
		li, lj := floatLine(data, bad[i]), floatLine(data, bad[j])
		if li != lj {
			return li < lj
		}
		return bad[i] < bad[j]
	})
	return &gate.InputError{File: name, Line: floatLine(data, bad[0]), Field: bad[0],
		Err: fmt.Errorf("must be a number, got %v (nan and inf are not numbers a config can use)", got[bad[0]])}
}

// walkFloats calls fn with every float in v and the path to it: a table's
// key, an array's element as key[i].
func walkFloats(v any, path []string, fn func([]string, float64)) {
	switch x := v.(type) {
	case float64:
		fn(path, x)
	case map[string]any:
		for k, e := range x {
			walkFloats(e, append(path[:len(path):len(path)], k), fn)
		}
	case []map[string]any:
		for i, e := range x {
			walkFloats(e, indexed(path, i), fn)
		}
	case []any:
		for i, e := range x {
			walkFloats(e, indexed(path, i), fn)
		}
	}
}

// indexed is path with its last part given the index [i].
func indexed(path []string, i int) []string {
	out := append([]string(nil), path...)
	if len(out) == 0 {
		return []string{fmt.Sprintf("[%d]", i)}
	}
	out[len(out)-1] += fmt.Sprintf("[%d]", i)
	return out
}

// floatLine is the line of the key field (dotted, indexes as key[i]): the
// key's own line where it can be found, else the first line that writes
// nan or inf (0 when none).
func floatLine(data []byte, field string) int {
	parts := strings.Split(field, ".")
	// An array of tables: table[i].key is arrayKeyLine's.
	if t, rest, ok := strings.Cut(parts[0], "["); ok && len(parts) > 1 {
		var i int
		if _, err := fmt.Sscanf(rest, "%d]", &i); err == nil {
			if l := arrayKeyLine(data, t, i, strings.Join(parts[1:], ".")); l > 0 {
				return l
			}
		}
	}
	key := make(toml.Key, len(parts))
	for i, p := range parts {
		key[i], _, _ = strings.Cut(p, "[") // an array's element is on its key's line
	}
	if l := keyLine(data, key); l > 0 {
		return l
	}
	for i, line := range strings.Split(string(data), "\n") {
		if c, _, _ := strings.Cut(line, "#"); nonFiniteLiteral.MatchString(c) {
			return i + 1
		}
	}
	return 0
}
