package label

import (
	"errors"
	"fmt"
	"os/user"
	"strings"
)

// ErrNoLabeller is DefaultLabeller's error when no name could be had.
var ErrNoLabeller = errors.New("no labeller")

// DefaultLabeller is who labels when --labeller is not given: $USER,
// then $LOGNAME, then the operating system's account name (lookup; nil
// asks os/user). When none gives a name the error says what each gave.
func DefaultLabeller(getenv func(string) string, lookup func() (string, error)) (string, error) {
	for _, v := range []string{"USER", "LOGNAME"} {
		if s := strings.TrimSpace(getenv(v)); s != "" {
			return s, nil
		}
	}
	if lookup == nil {
		lookup = func() (string, error) {
			u, err := user.Current()
			if err != nil {
				return "", err
			}
			return u.Username, nil
		}
	}
	name, err := lookup()
	if s := strings.TrimSpace(name); err == nil && s != "" {
		return s, nil
	}
	why := "has no name"
	if err != nil {
		why = "could not be read: " + err.Error()
	}
	return "", fmt.Errorf("%w: --labeller is not given, $USER and $LOGNAME are empty and the account this runs as %s; name who labels with --labeller NAME", ErrNoLabeller, why)
}
