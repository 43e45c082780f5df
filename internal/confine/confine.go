// Package confine answers every "is this path inside that folder"
// question of the project in one way: Within and Rel for a path against a
// root, Local for a relative slash path (a tree entry, a link target),
// and Resolve for where a path lands once its links are followed, even
// when its last parts do not exist yet.
//
// The checks are lexical: give them resolved paths (Resolve) when a
// symbolic link could lead out. A name that merely starts with two dots
// ("..x") is inside; only the parent ("..") and what is under it are not.
// It imports only the standard library.
package confine

import (
	"path/filepath"
)

// Within reports whether p is root itself or a path under it.
func Within(root, p string) bool {
	_, ok := Rel(root, p)
	return ok
}

// Rel is p relative to root (the system's separators; "." for root
// itself) and true when p is root or under it; "" and false when p is
// outside, or when one is absolute and the other not.
func Rel(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// Local reports whether rel, a relative path with slashes (a tree
// entry's name, a link's target joined to its folder), stays under the
// folder it is taken from: not empty, not absolute, not the parent or
// under it once cleaned.
func Local(rel string) bool {
	return rel != "" && filepath.IsLocal(filepath.FromSlash(rel))
}

// Resolve is p made absolute with the symbolic links of its longest
// existing ancestor followed and the rest joined: where a write to p
// would land, however many of its folders are still to be made.
func Resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for q := abs; ; q = filepath.Dir(q) {
		if real, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(q) == q {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}
