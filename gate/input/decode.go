package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DecodeStrict decodes one JSON value from data into v as recallgate reads
// every untrusted JSON document: duplicate keys and unknown fields refused,
// nothing allowed after the value.
func DecodeStrict(data []byte, v any) error {
	if err := CheckDuplicateKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON object")
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}
