package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamedFiles: the files a command's argv names inside the repository
// (the folder upwards with .git) are listed, a --flag=path value too;
// the program on PATH, a file outside the repository, a folder and a
// missing file are not. The sum follows their content, not where the
// checkout is.
func TestNamedFiles(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	for name, body := range map[string]string{
		"repo/.git/HEAD": "ref: refs/heads/main\n", "repo/rag/retriever.py": "print(1)\n", "repo/rag/lib/model.cfg": "k=1\n",
		"repo/scripts/run.sh": "#!/bin/sh\n", "outside.py": "print(2)\n",
	} {
		p := filepath.Join(top, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &Retriever{Type: "command", Dir: filepath.Join(repo, "rag"),
		Command: []string{"python3", "retriever.py", "--config=lib/model.cfg", "../scripts/run.sh", "../../outside.py", "lib", "missing.py", "--top", "5"}}
	var rel []string
	for _, f := range r.NamedFiles() {
		x, _ := filepath.Rel(repo, f)
		rel = append(rel, filepath.ToSlash(x))
	}
	if got := strings.Join(rel, " "); got != "rag/lib/model.cfg rag/retriever.py scripts/run.sh" {
		t.Errorf("named files %q", got)
	}
	sum := r.NamedFilesSum()
	if !strings.HasPrefix(sum, "sha256:") {
		t.Fatalf("sum %q", sum)
	}
	// The same checkout elsewhere: the same sum.
	moved := filepath.Join(top, "moved")
	if err := os.Rename(repo, moved); err != nil {
		t.Fatal(err)
	}
	r.Dir = filepath.Join(moved, "rag")
	if got := r.NamedFilesSum(); got != sum {
		t.Errorf("moved checkout: sum %s, want %s", got, sum)
	}
	// The script rewritten: another sum.
	os.WriteFile(filepath.Join(moved, "rag", "retriever.py"), []byte("print(3)\n"), 0o644)
	if got := r.NamedFilesSum(); got == sum {
		t.Errorf("rewritten script: the sum did not change")
	}
	if (&Retriever{Type: "http", Dir: r.Dir, Command: r.Command}).NamedFiles() != nil {
		t.Errorf("an http retriever without start names no files")
	}
	// An http retriever's start names the service's files.
	svc := &Retriever{Type: "http", Dir: r.Dir, Start: []string{"python3", "retriever.py", "--port", "{port}"}}
	if got := svc.NamedFiles(); len(got) != 1 || got[0] != filepath.Join(moved, "rag", "retriever.py") {
		t.Errorf("start's named files %q", got)
	}
}
