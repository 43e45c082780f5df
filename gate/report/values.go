package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/recallgate/recallgate/gate"
)

// The report's value structs (Scores, SideSummary, TrecEvalMeans,
// DeltaSummary, QueryDelta) carry every document metric of the registry
// (gate.Metrics) under its JSON key: the historic four in fields of their
// own, tagged with the key, a metric the registry adds in More. Every
// format reads them through metricValue and the converter writes them
// through setValues, so a registered metric reaches every format.

// Values are the values of the registry's added metrics, by JSON key.
type Values map[string]float64

// fieldIndex finds the field of struct type t tagged with the JSON key.
func fieldIndex(t reflect.Type, key string) (int, bool) {
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == key {
			return i, true
		}
	}
	return 0, false
}

// metricValue is the metric's value in a value struct (a pointer to one).
func metricValue(v any, m *gate.Metric) float64 {
	rv := reflect.ValueOf(v).Elem()
	if i, ok := fieldIndex(rv.Type(), m.Key); ok {
		return rv.Field(i).Float()
	}
	if more, ok := rv.FieldByName("More").Interface().(Values); ok {
		return more[m.Key]
	}
	return 0
}

// setValues sets every document metric of a value struct (a pointer to
// one) to get's value.
func setValues(v any, get func(*gate.Metric) float64) {
	rv := reflect.ValueOf(v).Elem()
	for _, m := range gate.Metrics() {
		if i, ok := fieldIndex(rv.Type(), m.Key); ok {
			rv.Field(i).SetFloat(get(m))
			continue
		}
		f := rv.FieldByName("More")
		if f.IsNil() {
			f.Set(reflect.ValueOf(Values{}))
		}
		f.Interface().(Values)[m.Key] = get(m)
	}
}

// marshalValues is the JSON of a value struct (converted to a type of the
// same fields without methods): its fields, with the added metrics right
// after its "rr", in registry order.
func marshalValues(plain any, more Values) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil || len(more) == 0 {
		return b, err
	}
	var extra bytes.Buffer
	for _, m := range gate.Metrics() {
		v, ok := more[m.Key]
		if !ok {
			continue
		}
		num, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Key, err)
		}
		fmt.Fprintf(&extra, ",%q:%s", m.Key, num)
	}
	// "rr" is a number among the leading fields, before any nested
	// object, so its first occurrence is the struct's own.
	at := bytes.Index(b, []byte(`"rr":`))
	if at < 0 {
		return nil, fmt.Errorf("value struct without rr: %s", b)
	}
	end := at + len(`"rr":`)
	for end < len(b) && b[end] != ',' && b[end] != '}' {
		end++
	}
	out := make([]byte, 0, len(b)+extra.Len())
	out = append(append(append(out, b[:end]...), extra.Bytes()...), b[end:]...)
	return out, nil
}

// unmarshalValues reads a value struct (a pointer to its plain type) as
// strictly as the report reader does: the added metrics into more, every
// other key into the struct, an unknown key an error.
func unmarshalValues(data []byte, plain any, more *Values) error {
	var keys []string
	for _, m := range gate.Metrics() {
		keys = append(keys, m.Key)
	}
	return unmarshalAdded(data, plain, more, keys)
}

// unmarshalAdded reads a struct (a pointer to its plain type) strictly:
// each of keys no field holds into more, every other key into the
// struct, an unknown key an error.
func unmarshalAdded(data []byte, plain any, more *Values, keys []string) error {
	rt := reflect.TypeOf(plain).Elem()
	added := false
	for _, k := range keys {
		if _, own := fieldIndex(rt, k); !own {
			added = true
		}
	}
	if !added {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		return dec.Decode(plain)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		return nil
	}
	for _, k := range keys {
		if _, own := fieldIndex(rt, k); own {
			continue
		}
		v, ok := raw[k]
		if !ok {
			continue
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		if *more == nil {
			*more = Values{}
		}
		(*more)[k] = f
		delete(raw, k)
	}
	rest, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	return dec.Decode(plain)
}

// MarshalJSON writes the scores with the registry's added metrics.
func (s Scores) MarshalJSON() ([]byte, error) {
	type plain Scores
	return marshalValues(plain(s), s.More)
}

// UnmarshalJSON reads the scores with the registry's added metrics.
func (s *Scores) UnmarshalJSON(b []byte) error {
	type plain Scores
	return unmarshalValues(b, (*plain)(s), &s.More)
}

// MarshalJSON writes the summary with the registry's added metrics.
func (s SideSummary) MarshalJSON() ([]byte, error) {
	type plain SideSummary
	return marshalValues(plain(s), s.More)
}

// UnmarshalJSON reads the summary with the registry's added metrics.
func (s *SideSummary) UnmarshalJSON(b []byte) error {
	type plain SideSummary
	return unmarshalValues(b, (*plain)(s), &s.More)
}

// MarshalJSON writes the means with the registry's added metrics.
func (s TrecEvalMeans) MarshalJSON() ([]byte, error) {
	type plain TrecEvalMeans
	return marshalValues(plain(s), s.More)
}

// UnmarshalJSON reads the means with the registry's added metrics.
func (s *TrecEvalMeans) UnmarshalJSON(b []byte) error {
	type plain TrecEvalMeans
	return unmarshalValues(b, (*plain)(s), &s.More)
}

// MarshalJSON writes the deltas with the registry's added metrics.
func (s DeltaSummary) MarshalJSON() ([]byte, error) {
	type plain DeltaSummary
	return marshalValues(plain(s), s.More)
}

// UnmarshalJSON reads the deltas with the registry's added metrics.
func (s *DeltaSummary) UnmarshalJSON(b []byte) error {
	type plain DeltaSummary
	return unmarshalValues(b, (*plain)(s), &s.More)
}

// MarshalJSON writes the deltas with the registry's added metrics.
func (s QueryDelta) MarshalJSON() ([]byte, error) {
	type plain QueryDelta
	return marshalValues(plain(s), s.More)
}

// UnmarshalJSON reads the deltas with the registry's added metrics.
func (s *QueryDelta) UnmarshalJSON(b []byte) error {
	type plain QueryDelta
	return unmarshalValues(b, (*plain)(s), &s.More)
}

// MarshalJSON writes the query's id and text, then its scores (whose own
// MarshalJSON would otherwise stand for the whole entry).
func (q ScoreQuery) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal(struct {
		ID    string `json:"id"`
		Query string `json:"query,omitempty"`
	}{q.ID, q.Query})
	if err != nil {
		return nil, err
	}
	scores, err := q.Scores.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(append(head[:len(head)-1], ','), scores[1:]...), nil
}

// UnmarshalJSON reads what MarshalJSON writes, strictly.
func (q *ScoreQuery) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for key, to := range map[string]*string{"id": &q.ID, "query": &q.Query} {
		if v, ok := raw[key]; ok {
			if err := json.Unmarshal(v, to); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			delete(raw, key)
		}
	}
	rest, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	return q.Scores.UnmarshalJSON(rest)
}

// MarshalJSON writes the thresholds' fields, then the limits of the
// registered rules no field holds (ThresholdInfo.More), in registry order.
func (t ThresholdInfo) MarshalJSON() ([]byte, error) {
	type plain ThresholdInfo
	b, err := json.Marshal(plain(t))
	if err != nil || len(t.More) == 0 {
		return b, err
	}
	out := append([]byte{}, b[:len(b)-1]...)
	for _, r := range gate.Rules() {
		v, ok := t.More[r.Key]
		if !ok {
			continue
		}
		num, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Key, err)
		}
		out = fmt.Appendf(out, ",%q:%s", r.Key, num)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes, strictly.
func (t *ThresholdInfo) UnmarshalJSON(b []byte) error {
	type plain ThresholdInfo
	return unmarshalAdded(b, (*plain)(t), &t.More, gate.RuleNames)
}

// thresholdOf is the rule's limit under the report's thresholds, by its
// key (a field's or More's), and whether it is on there (a null, an
// absent key or a latency ratio of 0 is off).
func thresholdOf(t *ThresholdInfo, key string) (float64, bool) {
	if v, ok := t.More[key]; ok {
		return v, true
	}
	rv := reflect.ValueOf(t).Elem()
	i, ok := fieldIndex(rv.Type(), key)
	if !ok {
		return 0, false
	}
	switch f := rv.Field(i); f.Kind() {
	case reflect.Pointer:
		if f.IsNil() {
			return 0, false
		}
		return toFloat(f.Elem())
	default:
		return toFloat(f)
	}
}

// toFloat is a number field's value as a float64.
func toFloat(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Float64:
		return v.Float(), true
	case reflect.Int:
		return float64(v.Int()), true
	}
	return 0, false
}
