package confine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRel(t *testing.T) {
	for _, tt := range []struct {
		root, p string
		rel     string
		ok      bool
	}{
		{"/w", "/w", ".", true},
		{"/w", "/w/a", "a", true},
		{"/w", "/w/a/b", "a/b", true},
		{"/w", "/w/..x", "..x", true}, // a name starting with two dots is inside
		{"/w", "/w/a/../..x", "..x", true},
		{"/w", "/w/...", "...", true},
		{"/w", "/", "", false},
		{"/w", "/wx", "", false}, // a sibling sharing the prefix
		{"/w", "/w/../x", "", false},
		{"/w/a", "/w", "", false},
		{"/w", "relative", "", false}, // one absolute, one not
		{"w", "w/a", "a", true},
		{"w", "../w", "", false},
	} {
		rel, ok := Rel(tt.root, tt.p)
		if rel != filepath.FromSlash(tt.rel) || ok != tt.ok {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", tt.root, tt.p, rel, ok, tt.rel, tt.ok)
		}
		if Within(tt.root, tt.p) != tt.ok {
			t.Errorf("Within(%q, %q) = %v", tt.root, tt.p, !tt.ok)
		}
	}
}

func TestLocal(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{"a", true},
		{"a/b", true},
		{".", true},
		{"..x", true},
		{"a/../b", true},
		{"", false},
		{"..", false},
		{"../a", false},
		{"a/../../b", false},
		{"/a", false},
	} {
		if got := Local(tt.rel); got != tt.want {
			t.Errorf("Local(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	in := filepath.Join(dir, "in")
	for _, d := range []string{out, in} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(in, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ p, want string }{
		{in, in},
		{filepath.Join(in, "link"), out},
		{filepath.Join(in, "link", "not", "made", "yet"), filepath.Join(out, "not", "made", "yet")},
		{filepath.Join(in, "new"), filepath.Join(in, "new")},
	} {
		got, err := Resolve(tt.p)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.p, got, err, tt.want)
		}
	}
	if Within(in, mustResolve(t, filepath.Join(in, "link", "x"))) {
		t.Error("a path through a link out of the folder resolved inside it")
	}
}

func mustResolve(t *testing.T, p string) string {
	t.Helper()
	r, err := Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
