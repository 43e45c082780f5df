package visible

import (
	"errors"
	"fmt"
	"strings"
)

// MaxGateNameLength bounds a gate's name ([report] name, the action's name
// input): it is a comment marker, a title and a file name.
const MaxGateNameLength = 64

// CheckGateName checks a gate's name: 1 to 64 letters, digits, spaces and
// - _ . /, so it reads the same in a hidden comment marker, a Markdown
// title and a report file's name.
func CheckGateName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("must not be empty")
	case len(name) > MaxGateNameLength:
		return fmt.Errorf("must be at most %d characters, got %d", MaxGateNameLength, len(name))
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" -_./", r)
		if !ok {
			return fmt.Errorf("%q: use letters, digits, spaces and - _ . / only", name)
		}
	}
	return nil
}
