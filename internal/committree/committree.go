// Package committree is test support: a commit's tree listing and blobs
// as GitHub's and GitLab's REST APIs serve them (GET
// /repos/{owner}/{repo}/git/trees/{sha}?recursive=1 and git/blobs/{sha};
// GET /projects/:id/repository/tree, paged, and repository/blobs/:sha/raw),
// made from a commit's archive or read with git. It is imported by tests
// only and imports nothing of recallgate's.
package committree

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"github.com/recallgate/recallgate/internal/gitexec"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Tree is a commit's tree as the APIs list it, and its blobs by id.
type Tree struct {
	Entries []Entry
	Blobs   map[string][]byte
	// Truncated says GitHub cut the listing short.
	Truncated bool
}

// Entry is one entry of a listing, as GitHub's tree API spells it.
type Entry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int   `json:"size,omitempty"`
}

// FromTarGz is the tree of a gzipped tar archive (its one top folder
// dropped), with git's blob ids: the listing of a commit whose archive
// leaves out nothing.
func FromTarGz(data []byte) *Tree {
	ft := &Tree{Blobs: map[string][]byte{}}
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
		_, name, _ := strings.Cut(strings.TrimPrefix(h.Name, "./"), "/")
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
		ft.Add(name, mode, body)
	}
}

// FromGit is commit's own listing in the repository at dir, read with git
// (`git ls-tree -r`, blobs with `git cat-file`): what it holds whatever
// its archive leaves out.
func FromGit(dir, commit string) (*Tree, error) {
	ctx := context.Background()
	out, err := gitexec.Run(ctx, dir, "ls-tree", "-r", "-l", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	ft := &Tree{Blobs: map[string][]byte{}}
	for _, line := range strings.Split(out, "\n") {
		meta, name, _ := strings.Cut(line, "\t")
		fl := strings.Fields(meta)
		if len(fl) != 4 {
			continue
		}
		if fl[1] == "commit" {
			ft.Entries = append(ft.Entries, Entry{Path: name, Mode: fl[0], Type: "commit", SHA: fl[2]})
			continue
		}
		body, err := gitexec.Output(ctx, dir, 0, "cat-file", "blob", fl[2])
		if err != nil {
			return nil, err
		}
		ft.Add(name, fl[0], body)
	}
	return ft, nil
}

// Add lists a blob at name with git's mode string.
func (ft *Tree) Add(name, mode string, body []byte) {
	id := fmt.Sprintf("%x", sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(body))), body...)))
	n := len(body)
	ft.Blobs[id] = body
	ft.Entries = append(ft.Entries, Entry{Path: name, Mode: mode, Type: "blob", SHA: id, Size: &n})
}

// ServeGitHub answers a request for .../git/trees/{sha}?recursive=1 or
// .../git/blobs/{sha} (raw) as GitHub does; sha is the path's last part.
func (ft *Tree) ServeGitHub(w http.ResponseWriter, r *http.Request) {
	sha := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	if strings.Contains(r.URL.Path, "/git/trees/") {
		if r.URL.Query().Get("recursive") == "" {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"sha": sha, "tree": ft.Entries, "truncated": ft.Truncated})
		return
	}
	b, ok := ft.Blobs[sha]
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		fmt.Fprint(w, `{"message":"Not Found"}`)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.github.raw")
	w.Write(b)
}

// ServeGitLab answers a request for .../repository/tree (recursive=true,
// paged by per_page and page, with X-Next-Page) or
// .../repository/blobs/:sha/raw as GitLab does.
func (ft *Tree) ServeGitLab(w http.ResponseWriter, r *http.Request) {
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
		nodes := []map[string]string{}
		for _, e := range ft.Entries {
			nodes = append(nodes, map[string]string{"id": e.SHA, "name": e.Path[strings.LastIndex(e.Path, "/")+1:], "type": e.Type, "path": e.Path, "mode": e.Mode})
		}
		lo, hi := min((page-1)*per, len(nodes)), min(page*per, len(nodes))
		if hi < len(nodes) {
			w.Header().Set("X-Next-Page", strconv.Itoa(page+1))
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(nodes[lo:hi])
		return
	}
	parts := strings.Split(strings.TrimSuffix(r.URL.Path, "/raw"), "/")
	b, ok := ft.Blobs[parts[len(parts)-1]]
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		fmt.Fprint(w, `{"message":"404 Blob Not Found"}`)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Write(b)
}
