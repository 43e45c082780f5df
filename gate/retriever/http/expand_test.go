package httpretriever

import (
	"strings"
	"testing"
)

// TestExpandURL: ${NAME} in a url reads the environment (a deployment per
// side); a bare $ stays; an unset variable and the runner's credentials
// are refused, naming the variable.
func TestExpandURL(t *testing.T) {
	env := map[string]string{"PREVIEW_SEARCH_URL": "https://pr-7.preview.example", "PORT": "9200", "GITHUB_TOKEN": "ghs_x"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct{ in, want, err string }{
		{"${PREVIEW_SEARCH_URL}/search?q={{query}}", "https://pr-7.preview.example/search?q={{query}}", ""},
		{"http://search:${PORT}/a$b/$PORT", "http://search:9200/a$b/$PORT", ""},
		{"http://127.0.0.1:1/search", "http://127.0.0.1:1/search", ""},
		{"${SEARCH_URL}/search", "", "url reads unset environment variable SEARCH_URL"},
		{"https://x.example/?t=${GITHUB_TOKEN}", "", "url reads GITHUB_TOKEN: the runner's credentials are never sent to a retriever"},
	} {
		got, err := ExpandURL(c.in, getenv)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
