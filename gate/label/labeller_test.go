package label

import (
	"errors"
	"strings"
	"testing"
)

// TestDefaultLabeller: without --labeller the name is $USER, else
// $LOGNAME, else the account's name; with none the error says what each
// gave, never a bare "required".
func TestDefaultLabeller(t *testing.T) {
	for _, tt := range []struct {
		name       string
		env        map[string]string
		account    string
		accountErr error
		want, err  string
	}{
		{"USER", map[string]string{"USER": "ana", "LOGNAME": "ben"}, "cara", nil, "ana", ""},
		{"LOGNAME when USER is empty", map[string]string{"USER": " ", "LOGNAME": "ben"}, "cara", nil, "ben", ""},
		{"the account when both are empty", nil, "cara", nil, "cara", ""},
		{"an account with no name", nil, "", nil, "", "$USER and $LOGNAME are empty and the account this runs as has no name; name who labels with --labeller NAME"},
		{"an account that cannot be read", nil, "", errors.New("user: unknown userid 1000"), "", "the account this runs as could not be read: user: unknown userid 1000"},
	} {
		got, err := DefaultLabeller(func(k string) string { return tt.env[k] }, func() (string, error) { return tt.account, tt.accountErr })
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		case tt.err != "" && (!errors.Is(err, ErrNoLabeller) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %q, %v; want an error saying %q", tt.name, got, err, tt.err)
		}
	}
	// The real account (os/user) has a name on any machine the tests run on.
	if got, err := DefaultLabeller(func(string) string { return "" }, nil); err != nil || got == "" {
		t.Errorf("the OS account: %q, %v", got, err)
	}
}
