package basetree

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNamedLinkedGone: a head checkout that replaced rag/recallgate.toml
// by a link, moved rag/gate.toml away, linked the docs folder and kept
// the rest. Named takes the config at its own path (not the link's
// target), Linked sees the links the base lacks and not the one it has,
// Gone lists what the checkout no longer has as the base had it.
func TestNamedLinkedGone(t *testing.T) {
	ws := t.TempDir() // the head's checkout, no git
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	for name, body := range map[string]string{"rag/loose.toml": "loose", "rag/kept.md": "kept", "rag/moved/gate.toml": "moved", "rag/conf/strict.toml": "strict", "docs2/a.md": "a"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755)
		os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644)
	}
	for link, target := range map[string]string{"rag/recallgate.toml": "loose.toml", "rag/same.toml": "conf/strict.toml", "docs": "docs2"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	src := &fakeArchive{data: tarGz(t,
		entry{name: "top/rag/recallgate.toml", body: "strict"},
		entry{name: "top/rag/kept.md", body: "kept"},
		entry{name: "top/rag/gate.toml", body: "gate"},
		entry{name: "top/rag/conf/strict.toml", body: "strict"},
		entry{name: "top/rag/same.toml", typ: tar.TypeSymlink, link: "conf/strict.toml"},
		entry{name: "top/docs/a.md", body: "a"},
	)}
	tr, err := Open(context.Background(), Options{Dir: filepath.Join(ws, "rag"), Ref: "abc", Root: ws, TempDir: t.TempDir(), Archive: src})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	at, rel, err := tr.Named(filepath.Join(ws, "rag/recallgate.toml"))
	if b, _ := os.ReadFile(at); err != nil || rel != "rag/recallgate.toml" || string(b) != "strict" {
		t.Errorf("Named: %q %q %v (holds %q), want the base's rag/recallgate.toml", at, rel, err, b)
	}
	if _, _, err := tr.Named("/etc/passwd"); err == nil {
		t.Error("a path outside the checkout must have no name in the tree")
	}
	for rel, want := range map[string]bool{"rag/recallgate.toml": true, "rag/same.toml": false, "rag/kept.md": false, "docs/a.md": true} {
		if got := tr.Linked(rel); got != want {
			t.Errorf("Linked(%s) = %v, want %v", rel, got, want)
		}
	}
	var gone []string
	if err := tr.Gone(func(rel, at string) error {
		if _, err := os.Lstat(at); err != nil {
			t.Errorf("Gone gave %s at %s: %v", rel, at, err)
		}
		gone = append(gone, rel)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(gone)
	if want := []string{"docs/a.md", "rag/gate.toml", "rag/recallgate.toml"}; !slices.Equal(gone, want) {
		t.Errorf("Gone = %q, want %q", gone, want)
	}
	if !tr.Inside(filepath.Join(tr.Dir, "rag/same.toml")) {
		t.Error("a link inside the base tree is inside it")
	}
}
