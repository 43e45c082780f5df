package basetree

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/internal/confine"
)

// maxEntries caps the number of entries an archive may hold.
const maxEntries = 1_000_000

// UnsafeArchiveError is an archive entry refused because it would land
// outside the folder, is of a kind a source tree has no business holding,
// or would take the archive past its size cap.
type UnsafeArchiveError struct {
	// Entry is the entry's name in the archive; Reason why it is refused.
	Entry  string
	Reason string
}

// Error implements error.
func (e *UnsafeArchiveError) Error() string {
	return fmt.Sprintf("archive entry %q refused: %s", e.Entry, e.Reason)
}

// Unpack extracts a gzipped tar archive into dest (which must not exist),
// dropping the one top folder every entry sits under, as in GitHub's
// archives. It refuses absolute names, "..", links that leave dest, devices
// and more than maxBytes of content; on refusal dest is removed.
func Unpack(r io.Reader, dest string, maxBytes int64) (err error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("archive is not gzip: %w", err)
	}
	defer zr.Close()
	if err := os.Mkdir(dest, 0o755); err != nil {
		return fmt.Errorf("unpack: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dest)
		}
	}()
	type link struct{ name, target string }
	var links []link // made last, so no entry can be written through one
	var total int64
	seen := map[string]bool{} // entries other than folders, by name
	prefix := ""
	tr := tar.NewReader(zr)
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read archive: %w", err)
		}
		if n >= maxEntries {
			return &UnsafeArchiveError{Entry: h.Name, Reason: fmt.Sprintf("more than %d entries", maxEntries)}
		}
		if h.Typeflag == tar.TypeXGlobalHeader || h.Typeflag == tar.TypeXHeader {
			continue
		}
		name, err := entryName(h.Name, &prefix)
		if err != nil {
			return err
		}
		if name == "" {
			continue // the top folder itself
		}
		target := filepath.Join(dest, filepath.FromSlash(name))
		if h.Typeflag != tar.TypeDir {
			if seen[name] {
				return &UnsafeArchiveError{Entry: h.Name, Reason: "the archive holds this entry twice (a later copy could replace what was checked)"}
			}
			seen[name] = true
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("unpack %s: %w", name, err)
			}
		case tar.TypeReg, tar.TypeRegA:
			total += h.Size
			if h.Size < 0 || total > maxBytes {
				return &UnsafeArchiveError{Entry: h.Name, Reason: fmt.Sprintf("the archive unpacks to more than %d bytes", maxBytes)}
			}
			if err := writeEntry(tr, target, h); err != nil {
				return fmt.Errorf("unpack %s: %w", name, err)
			}
		case tar.TypeSymlink:
			if err := linkInside(name, h.Linkname); err != nil {
				return &UnsafeArchiveError{Entry: h.Name, Reason: err.Error()}
			}
			links = append(links, link{target, h.Linkname})
		default:
			return &UnsafeArchiveError{Entry: h.Name, Reason: fmt.Sprintf("entry type %q is not a file, folder or symbolic link", string(h.Typeflag))}
		}
	}
	isLink := map[string]bool{}
	for _, l := range links {
		isLink[l.name] = true
	}
	for _, l := range links {
		for dir := filepath.Dir(l.name); len(dir) > len(dest); dir = filepath.Dir(dir) {
			if isLink[dir] {
				return &UnsafeArchiveError{Entry: l.name, Reason: "symbolic link inside a folder that is itself a symbolic link"}
			}
		}
		if err := os.MkdirAll(filepath.Dir(l.name), 0o755); err != nil {
			return fmt.Errorf("unpack %s: %w", l.name, err)
		}
		if err := os.Symlink(l.target, l.name); err != nil {
			return &UnsafeArchiveError{Entry: l.name, Reason: fmt.Sprintf("symbolic link clashes with another entry: %v", err)}
		}
	}
	// A target that looks inside on its own can still leave through
	// another link ("a" -> ".", "d" -> "a/../x"): follow every link the
	// way the system would, existing or not.
	for _, l := range links {
		rel, _ := filepath.Rel(dest, l.name)
		if leaves(dest, filepath.ToSlash(rel)) {
			return &UnsafeArchiveError{Entry: l.name, Reason: fmt.Sprintf("symbolic link to %q leaves the tree through another link", l.target)}
		}
	}
	return nil
}

// leaves reports whether resolving the path rel (slash-separated, inside
// dest) follows links or ".." out of dest, or loops.
func leaves(dest, rel string) bool {
	var at []string // resolved components below dest
	todo := strings.Split(rel, "/")
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return true
			}
			at = at[:len(at)-1]
			continue
		}
		at = append(at, c)
		p := filepath.Join(append([]string{dest}, at...)...)
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if hops++; hops > 255 {
			return true
		}
		target, err := os.Readlink(p)
		if err != nil || path.IsAbs(target) {
			return true
		}
		at = at[:len(at)-1]
		todo = append(strings.Split(target, "/"), todo...)
	}
	return false
}

// entryName checks an entry's name and drops the archive's top folder.
func entryName(raw string, prefix *string) (string, error) {
	if raw == "" || strings.HasPrefix(raw, "/") || strings.Contains(raw, "\\") || strings.ContainsRune(raw, 0) || (len(raw) > 1 && raw[1] == ':') {
		return "", &UnsafeArchiveError{Entry: raw, Reason: "absolute or malformed name"}
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", &UnsafeArchiveError{Entry: raw, Reason: `name climbs out with ".."`}
		}
	}
	top, rest, _ := strings.Cut(strings.TrimPrefix(raw, "./"), "/")
	if *prefix == "" {
		*prefix = top
	}
	if top != *prefix {
		return "", &UnsafeArchiveError{Entry: raw, Reason: fmt.Sprintf("not under the archive's top folder %q", *prefix)}
	}
	rest = path.Clean("/" + rest)[1:]
	return rest, nil
}

// linkInside checks that a symbolic link at name (relative to the tree's
// top) points inside the tree.
func linkInside(name, target string) error {
	if target == "" || path.IsAbs(target) || strings.Contains(target, "\\") {
		return fmt.Errorf("symbolic link to %q: only relative links inside the tree are allowed", target)
	}
	resolved := path.Clean(path.Join(path.Dir(name), target))
	if !confine.Local(resolved) {
		return fmt.Errorf("symbolic link to %q leaves the tree", target)
	}
	return nil
}

func writeEntry(r io.Reader, target string, h *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, h.Size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
