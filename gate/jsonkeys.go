package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DuplicateKeyError is a JSON object that names one key twice: Go's
// decoder keeps the last, another reader may keep the first, so the two
// would read different documents.
type DuplicateKeyError struct {
	// Path is where the object is ("$.queries[3].base"), Key the key.
	Path, Key string
}

// Error implements error.
func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("key %q appears twice in the object at %s", e.Key, e.Path)
}

// CheckDuplicateKeys reports the first object in a JSON document that has
// a key twice, as a *DuplicateKeyError. Malformed JSON is left to the
// decoder that reads the document.
func CheckDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := walkJSON(dec, "$")
	if errors.Is(err, io.EOF) {
		return nil
	}
	var dk *DuplicateKeyError
	if errors.As(err, &dk) {
		return err
	}
	return nil
}

func walkJSON(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
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
			if err := walkJSON(dec, path+"."+k); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkJSON(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
