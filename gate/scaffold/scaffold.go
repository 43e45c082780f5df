// Package scaffold starts a gate in a repository (`recallgate init`): a
// commented recallgate.toml whose builtin retriever works out of the box, a
// starter set of two example queries (one answered, one unanswerable) over a
// two-document corpus, and the CI workflow the documentation shows. The
// files are embedded templates; none is ever written over an existing file.
package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// templates holds the files init writes, under the names in files.
//
//go:embed templates
var templates embed.FS

// file is one file init writes: where, from which templates (joined).
type file struct {
	path      string   // in the repository, slash-separated
	templates []string // under templates/
}

// Retrievers are the kinds of [retriever] init writes, in the order
// messages list them.
var Retrievers = []string{"builtin", "command", "http"}

// configFor is recallgate.toml for a kind of retriever on a CI: the set,
// the corpus (for the kinds that do not read it themselves), the depths
// and rules, and the [retriever] table. An http retriever is a service
// kept in the repository, which recallgate starts (start), except on
// GitLab, whose job image cannot start one: there each side's deployment.
func configFor(ci, retriever string) file {
	table := "retriever-" + retriever + ".toml"
	if retriever == "http" && ci == "gitlab" {
		table = "retriever-http-deployed.toml"
	}
	parts := []string{"recallgate.toml", "rules.toml", table}
	if retriever != "builtin" {
		parts = []string{"recallgate.toml", "corpus.toml", "rules.toml", table}
	}
	return file{"recallgate.toml", parts}
}

// programFor is the starter program init writes beside the config for a
// kind of retriever on a CI (nil: none).
func programFor(ci, retriever string) []file {
	switch {
	case retriever == "command":
		return []file{{"retriever.py", []string{"retriever.py"}}}
	case retriever == "http" && ci == "github":
		return []file{{"search_service.py", []string{"search_service.py"}}}
	}
	return nil
}

// starter are the set and corpus every init writes.
var starter = []file{
	{"eval/queries.jsonl", []string{"eval/queries.jsonl"}},
	{"eval/corpus/billing/refunds.md", []string{"eval/corpus/billing/refunds.md"}},
	{"eval/corpus/billing/invoices.md", []string{"eval/corpus/billing/invoices.md"}},
}

// workflowFor is the CI's workflow file for a kind of retriever: on
// GitHub the native action for a command retriever and for an http one
// (the service it starts): their program needs the runner's runtime,
// which the Docker action's image lacks; else the Docker action.
func workflowFor(ci, retriever string) (file, error) {
	switch {
	case ci == "github" && (retriever == "command" || retriever == "http"):
		return file{".github/workflows/recallgate.yml", []string{"recallgate-native.yml"}}, nil
	case ci == "github":
		return file{".github/workflows/recallgate.yml", []string{"recallgate.yml"}}, nil
	case ci == "gitlab" && retriever == "command":
		return file{}, fmt.Errorf("--retriever command with --ci gitlab: the GitLab job's image (busybox and recallgate) cannot start a program such as python3; write the job on an image with your runtime that installs recallgate (docs/gitlab-ci.md), or use --retriever builtin or http")
	case ci == "gitlab":
		return file{".gitlab-ci.yml", []string{"gitlab-ci.yml"}}, nil
	}
	return file{}, fmt.Errorf("--ci %q: want github or gitlab", ci)
}

// ExistsError is init's refusal: files it would write are already there.
// Nothing was written.
type ExistsError struct {
	// Paths are the existing files, slash-separated, relative to the
	// repository folder, in the order init writes them.
	Paths []string
}

// Error names the files that are already there.
func (e *ExistsError) Error() string {
	verb, it := "exists", "it"
	if len(e.Paths) > 1 {
		verb, it = "exist", "them"
	}
	return fmt.Sprintf("%s already %s: init never overwrites a file, so it wrote nothing; move %s away, or run init with another --dir", strings.Join(e.Paths, ", "), verb, it)
}

// Init writes the files for ci and the kind of retriever (Retrievers)
// into the repository folder dir, prints each path it wrote and the three
// next steps to w. When any of the files exists it writes none and
// returns an *ExistsError naming them all.
func Init(dir, ci, retriever string, w io.Writer) error {
	if !slices.Contains(Retrievers, retriever) {
		return fmt.Errorf("--retriever %q: want %s", retriever, strings.Join(Retrievers, ", "))
	}
	wf, err := workflowFor(ci, retriever)
	if err != nil {
		return err
	}
	files := append(append(append([]file{configFor(ci, retriever)}, programFor(ci, retriever)...), starter...), wf)
	var exists []string
	for _, f := range files {
		if err := realFolders(dir, f.path); err != nil {
			return err
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.path))); err == nil {
			exists = append(exists, f.path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", f.path, err)
		}
	}
	if len(exists) > 0 {
		return &ExistsError{Paths: exists}
	}
	var written []string
	for _, f := range files {
		if err := create(dir, f); err != nil {
			// Another process made one of the files meanwhile: take back
			// what this run wrote, so a refusal still leaves nothing.
			for _, p := range written {
				os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
			}
			if errors.Is(err, fs.ErrExist) {
				return &ExistsError{Paths: []string{f.path}}
			}
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		written = append(written, f.path)
		fmt.Fprintf(w, "wrote %s\n", f.path)
	}
	fmt.Fprint(w, nextSteps(ci, retriever))
	return nil
}

// realFolders refuses a folder of path (slash-separated, under dir) that
// is a symbolic link: a cloned repository's link (eval to another place)
// would take the files out of dir, which O_EXCL on the file cannot stop.
// dir itself is the user's choice and may be a link.
func realFolders(dir, path string) error {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		rel := strings.Join(parts[:i], "/")
		info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // init makes it, and the folders under it
		case err != nil:
			return fmt.Errorf("%s: %w", rel, err)
		case info.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link: init writes only into real folders, so it wrote nothing; replace the link with a folder, or run init with another --dir", rel)
		}
	}
	return nil
}

// create writes one file's templates to its path under dir, never over
// a file.
func create(dir string, f file) error {
	var body []byte
	for _, t := range f.templates {
		b, err := templates.ReadFile("templates/" + t)
		if err != nil {
			return err // embedded at build time: TestTemplatesAreEmbedded reads each
		}
		body = append(body, b...)
	}
	p := filepath.Join(dir, filepath.FromSlash(f.path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := out.Write(body); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// nextSteps is what init prints after the files: the three steps from
// the example to a gate of the team's own.
func nextSteps(ci, retriever string) string {
	open := "Commit the files in a pull request: its check passes and says it adopts recallgate\n     (its base commit has nothing to compare); every pull request after it is gated."
	if ci == "gitlab" {
		open = "Add a project access token (scope api, role Reporter) as the masked CI/CD variable\n     RECALLGATE_GITLAB_TOKEN, and commit the files in a merge request: it passes and says it\n     adopts recallgate (nothing to compare); every merge request after it is gated."
	}
	return `
next steps:
  1. Replace the two example queries in eval/queries.jsonl with real ones and their gold
     documents (about thirty catch large drops, fifty to two hundred the small ones; docs/set.md):
     recallgate sample --log queries.log --out eval/queries.jsonl --force
     recallgate label --config recallgate.toml
  2. Point [retriever] in recallgate.toml at ` + pointAt(ci, retriever) + `
     (docs/config.md), then check it:
     recallgate validate --config recallgate.toml
  3. ` + open + `
     On your machine: recallgate gate --config recallgate.toml --base-ref origin/main
`
}

// pointAt is what the second next step points the retriever table at.
func pointAt(ci, retriever string) string {
	if retriever == "http" && ci == "gitlab" {
		return "your search service's deployments (main's in SEARCH_URL,\n     the merge request's review app in PREVIEW_SEARCH_URL)"
	}
	return map[string]string{"builtin": "your documents or your own retriever", "command": "your own retriever (retriever.py is a starter)", "http": "your search service (search_service.py is a starter)"}[retriever]
}
