// The rule keys of [gate] and [[gate.segment]], from the rule registry.

package config

import (
	"fmt"
	"reflect"

	"github.com/recallgate/recallgate/gate"
)

// ruleValues are the registered rules a [gate] or [[gate.segment]] table
// sets, by rule key: a count's value is whole.
type ruleValues map[string]float64

// rawType is rawConfig as the decoder reads it: its [gate] table with one
// field per registered rule after its own fields, and its segment tables
// with one per rule a segment may set, each tagged with the rule's key and
// typed as the rule reads its value (*int for a count, else *float64).
// The unknown-key message, the type errors and the known keys read this
// type, so a registered rule is a key of both tables without a field of
// its own; takeRules moves the values into ruleValues.
var rawType = func() reflect.Type {
	top := reflect.TypeOf(rawConfig{})
	fields := make([]reflect.StructField, top.NumField())
	for i := range fields {
		fields[i] = top.Field(i)
		if fields[i].Name != "Gate" {
			continue
		}
		g := fields[i].Type
		own := make([]reflect.StructField, g.NumField())
		for j := range own {
			own[j] = g.Field(j)
			if own[j].Name == "Segment" {
				own[j].Type = reflect.SliceOf(withRules(reflect.TypeOf(rawSegment{}), true))
			}
		}
		fields[i].Type = reflect.StructOf(append(own, ruleFields(false)...))
	}
	return reflect.StructOf(fields)
}()

// withRules is struct type t with the rule fields after its own.
func withRules(t reflect.Type, segment bool) reflect.Type {
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		fields[i] = t.Field(i)
	}
	return reflect.StructOf(append(fields, ruleFields(segment)...))
}

// ruleFields are a field per registered rule (per segment rule with
// segment), in registry order.
func ruleFields(segment bool) []reflect.StructField {
	var out []reflect.StructField
	for i, r := range gate.Rules() {
		if segment && !r.Segments {
			continue
		}
		t := reflect.TypeOf((*float64)(nil))
		if r.IsCount() {
			t = reflect.TypeOf((*int)(nil))
		}
		out = append(out, reflect.StructField{Name: fmt.Sprintf("Rule%d", i), Type: t, Tag: reflect.StructTag(`toml:"` + r.Key + `"`)})
	}
	return out
}

// takeRules copies a value of rawType into raw: every field as it is, the
// rule fields of the gate and segment tables into their Rules.
func takeRules(from reflect.Value, raw *rawConfig) {
	to := reflect.ValueOf(raw).Elem()
	for i := 0; i < to.NumField(); i++ {
		if to.Type().Field(i).Name != "Gate" {
			to.Field(i).Set(from.Field(i))
			continue
		}
		g, tg := from.Field(i), to.Field(i)
		for j := 0; j < tg.NumField(); j++ {
			switch tg.Type().Field(j).Name {
			case "Rules":
				tg.Field(j).Set(reflect.ValueOf(rulesOf(g, tg.NumField())))
			case "Segment":
				segs := g.Field(j)
				for k := 0; k < segs.Len(); k++ {
					s := segs.Index(k)
					var seg rawSegment
					ts := reflect.ValueOf(&seg).Elem()
					for n := 0; n < ts.NumField(); n++ {
						if ts.Type().Field(n).Name != "Rules" {
							ts.Field(n).Set(s.Field(n))
						}
					}
					seg.Rules = rulesOf(s, ts.NumField())
					raw.Gate.Segment = append(raw.Gate.Segment, seg)
				}
			default:
				tg.Field(j).Set(g.Field(j))
			}
		}
	}
}

// rulesOf reads the rule fields of table, those from index first on.
func rulesOf(table reflect.Value, first int) ruleValues {
	out := ruleValues{}
	for i := first; i < table.NumField(); i++ {
		f := table.Field(i)
		if f.IsNil() {
			continue
		}
		key := table.Type().Field(i).Tag.Get("toml")
		switch v := f.Interface().(type) {
		case *float64:
			out[key] = *v
		case *int:
			out[key] = float64(*v)
		}
	}
	return out
}
