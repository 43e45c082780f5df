package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadsRetrieverTable: a config too large to load is still known by
// its retriever table header, whatever the lines before it (many short
// ones, one longer than any buffer); a header inside a long line, or past
// the scan's bound, is not one.
func TestHeadsRetrieverTable(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, body string
		want       bool
	}{
		{"after many short lines", strings.Repeat("# padding\n", 200000) + "[retriever]\ntype = \"builtin\"\n", true},
		{"after one 2 MiB line", "# " + strings.Repeat("x", 2<<20) + "\n[Retriever] # the gate's\ntype = \"builtin\"\n", true},
		{"a header's text inside a long line", "# " + strings.Repeat("x", 2<<20) + "[retriever]\n", false},
		{"no header", strings.Repeat("# padding\n", 200000), false},
	} {
		p := filepath.Join(dir, "big.toml")
		if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := headsRetrieverTable(p); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
