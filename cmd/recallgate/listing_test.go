package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// fakeTree is a commit's tree as the APIs list it, and its blobs by id.
type fakeTree struct {
	entries []treeEntry
	blobs   map[string][]byte
	// truncated says GitHub cut the listing short.
	truncated bool
}

// treeEntry is one entry of a listing, as GitHub's tree API spells it.
type treeEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int   `json:"size,omitempty"`
}

// tarTree is the tree of a gzipped tar archive (the top folder dropped),
// with git's blob ids: the listing of a commit whose archive leaves out
// nothing.
func tarTree(data []byte) *fakeTree {
	ft := &fakeTree{blobs: map[string][]byte{}}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return ft
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return ft
		}
		_, name, _ := strings.Cut(h.Name, "/")
		var body []byte
		mode := "100644"
		switch h.Typeflag {
		case tar.TypeReg:
			body, _ = io.ReadAll(tr)
			if h.Mode&0o111 != 0 {
				mode = "100755"
			}
		case tar.TypeSymlink:
			body, mode = []byte(h.Linkname), "120000"
		default:
			continue
		}
		ft.add(name, mode, body)
	}
}

func (ft *fakeTree) add(name, mode string, body []byte) {
	id := fmt.Sprintf("%x", sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(body))), body...)))
	n := len(body)
	ft.blobs[id] = body
	ft.entries = append(ft.entries, treeEntry{Path: name, Mode: mode, Type: "blob", SHA: id, Size: &n})
}

// gitTree is the base commit's own listing, read with git (before
// archiveFixture removes the history): what it holds whatever its
// archive leaves out.
func gitTree(t *testing.T, f *fixture) *fakeTree {
	t.Helper()
	ft := &fakeTree{blobs: map[string][]byte{}}
	for _, line := range strings.Split(f.git("ls-tree", "-r", "-l", "--full-tree", f.base), "\n") {
		meta, name, _ := strings.Cut(line, "\t")
		fl := strings.Fields(meta)
		if len(fl) != 4 {
			continue
		}
		if fl[1] == "commit" {
			ft.entries = append(ft.entries, treeEntry{Path: name, Mode: fl[0], Type: "commit", SHA: fl[2]})
			continue
		}
		body, err := exec.Command("git", "-C", f.dir, "cat-file", "blob", fl[2]).Output()
		if err != nil {
			t.Fatal(err)
		}
		ft.add(name, fl[0], body)
	}
	return ft
}

// serveGitHub answers GET /repos/{o}/{r}/git/trees/{sha}?recursive=1 and
// GET /repos/{o}/{r}/git/blobs/{sha} (raw) as GitHub does.
func (ft *fakeTree) serveGitHub(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Path, "/git/trees/") {
		if r.URL.Query().Get("recursive") == "" {
			w.WriteHeader(400)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"sha": r.PathValue("sha"), "tree": ft.entries, "truncated": ft.truncated})
		return
	}
	b, ok := ft.blobs[r.PathValue("sha")]
	if !ok {
		w.WriteHeader(404)
		fmt.Fprint(w, `{"message":"Not Found"}`)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.github.raw")
	w.Write(b)
}

// serveGitLab answers GET /projects/:id/repository/tree (recursive,
// paged by per_page and page, x-next-page) and
// /projects/:id/repository/blobs/:sha/raw as GitLab does.
func (ft *fakeTree) serveGitLab(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/repository/tree") {
		if r.URL.Query().Get("recursive") != "true" {
			w.WriteHeader(400)
			return
		}
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if per <= 0 {
			per = 20
		}
		if page <= 0 {
			page = 1
		}
		var nodes []map[string]string
		for _, e := range ft.entries {
			nodes = append(nodes, map[string]string{"id": e.SHA, "name": e.Path[strings.LastIndex(e.Path, "/")+1:], "type": e.Type, "path": e.Path, "mode": e.Mode})
		}
		lo, hi := min((page-1)*per, len(nodes)), min(page*per, len(nodes))
		if hi < len(nodes) {
			w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
		}
		json.NewEncoder(w).Encode(append([]map[string]string{}, nodes[lo:hi]...))
		return
	}
	b, ok := ft.blobs[r.PathValue("sha")]
	if !ok {
		w.WriteHeader(404)
		fmt.Fprint(w, `{"message":"404 Blob Not Found"}`)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Write(b)
}
