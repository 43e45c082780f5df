// Package orderedjson writes and reads a JSON object whose keys are given
// at run time (a registry's keys, such as gate's metric keys) rather than
// spelt in struct tags: written in the order given, read strictly.
package orderedjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Field is one key of an object and the value it holds: any value for
// Marshal, a pointer to where the value goes for Unmarshal.
type Field struct {
	Key   string
	Value any
}

// Marshal writes {"key":value,…} in the order of fields, each value as
// encoding/json writes it.
func Marshal(fields ...Field) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Key, err)
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Unmarshal reads an object into the fields' pointers: a key the fields
// lack is an error (as a decoder that disallows unknown fields gives it),
// a key the object lacks leaves its value as it was; null is an object
// with no keys.
func Unmarshal(data []byte, fields ...Field) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for key, v := range raw {
		i := indexOf(fields, key)
		if i < 0 {
			return fmt.Errorf("json: unknown field %q", key)
		}
		if err := json.Unmarshal(v, fields[i].Value); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return nil
}

func indexOf(fields []Field, key string) int {
	for i, f := range fields {
		if f.Key == key {
			return i
		}
	}
	return -1
}
