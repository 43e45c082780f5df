package retriever

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/retriever/spec"
)

func TestNewBuildsEveryKind(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	os.WriteFile(filepath.Join(corpus, "a.md"), []byte("# Keys\n\nrotate the api key\n"), 0o644)
	run := filepath.Join(dir, "run.jsonl")
	os.WriteFile(run, []byte(`{"id":"q1","hits":[{"doc":"a"}]}`+"\n"), 0o644)
	d := Deps{ConfigPath: "rg.toml", Side: "head", Getenv: func(string) string { return "" }, Stderr: os.Stderr}
	q := &gate.Query{ID: "q1", Text: "rotate key"}
	for _, tt := range []struct {
		table spec.Retriever
		want  string
	}{
		{spec.Retriever{Type: "builtin", Corpus: corpus}, "a"},
		{spec.Retriever{Type: "file", Path: run}, "a"},
	} {
		r, closeFn, err := New(context.Background(), &tt.table, d)
		if err != nil {
			t.Fatalf("%s: %v", tt.table.Type, err)
		}
		hits, err := r.Retrieve(context.Background(), q, 5)
		if err != nil || len(hits) == 0 || hits[0].Doc != tt.want {
			t.Errorf("%s: hits %v, %v", tt.table.Type, hits, err)
		}
		if err := closeFn(); err != nil {
			t.Errorf("%s: close: %v", tt.table.Type, err)
		}
	}
	// A builtin table with bad chunking is the config's fault, named by table.
	_, _, err := New(context.Background(), &spec.Retriever{Type: "builtin", Corpus: corpus, ChunkWords: 5, ChunkOverlap: 5}, d)
	var ie *gate.InputError
	if !errors.As(err, &ie) || ie.File != "rg.toml" || ie.Field != "head.retriever" {
		t.Errorf("bad chunking: %v", err)
	}
	// A command that cannot start is infrastructure.
	_, _, err = New(context.Background(), &spec.Retriever{Type: "command", Command: []string{"/nonexistent/retriever"}, Dir: dir}, d)
	if !gate.IsInfra(err) || !strings.Contains(err.Error(), "head:") {
		t.Errorf("a command that cannot start: %v", err)
	}
	if _, _, err = New(context.Background(), &spec.Retriever{Type: "vector"}, d); !gate.IsInput(err) || !strings.Contains(err.Error(), `retriever type "vector" is not available`) {
		t.Errorf("unknown kind: %v", err)
	}
}

func TestKindsAndRequiredKeys(t *testing.T) {
	if spec.KindList() != "builtin, http, command or file" {
		t.Errorf("KindList %q", spec.KindList())
	}
	for kind, key := range map[string]string{"builtin": "corpus", "http": "url", "file": "path", "command": ""} {
		if k, _ := (&spec.Retriever{Type: kind}).RequiredKey(); k != key {
			t.Errorf("%s requires %q, want %q", kind, k, key)
		}
	}
}

// TestCommandMissingInTheDockerAction: a command retriever whose program
// is not there says, inside the Docker action's image (the variable the
// image sets), to use the native action, in the error and its fix; on a
// machine of one's own, to install it.
func TestCommandMissingInTheDockerAction(t *testing.T) {
	dir := t.TempDir()
	table := &spec.Retriever{Type: "command", Command: []string{"python3-not-installed-here", "retriever.py"}, Dir: dir}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{spec.DockerActionEnv: "1"}, "use the native action, `recallgate/recallgate/native@v1`"},
		{nil, "install python3-not-installed-here where recallgate runs"},
	} {
		d := Deps{ConfigPath: filepath.Join(dir, "rg.toml"), Side: "head", Getenv: func(k string) string { return tt.env[k] }}
		_, _, err := New(context.Background(), table, d)
		var fe gate.FixError
		if !gate.IsInfra(err) || !errors.As(err, &fe) || !strings.Contains(fe.Fix(), tt.want) {
			t.Errorf("env %v: %v, want the fix %q", tt.env, err, tt.want)
			continue
		}
		if inImage := tt.env != nil; inImage != strings.Contains(err.Error(), "native action") || !strings.Contains(err.Error(), `start python3-not-installed-here: exec: "python3-not-installed-here": executable file not found`) {
			t.Errorf("env %v: the error does not say what it should: %v", tt.env, err)
		}
	}
}

// TestStartProgramFromEnvNotShown: a service's program named through
// ${VAR} and not there is the install fix (exit 3), and the error names
// the program as the table writes it, never the value the variable holds.
func TestStartProgramFromEnvNotShown(t *testing.T) {
	dir := t.TempDir()
	table := &spec.Retriever{Type: "http", Start: []string{"${SEARCH_BIN}", "--port", "{port}"}, URL: "http://127.0.0.1:{port}/search", Hits: "hits", DocPath: "id", Dir: dir}
	for _, value := range []string{"secret-search-binary-not-here", "./secret/search-not-here"} {
		d := Deps{ConfigPath: filepath.Join(dir, "rg.toml"), Side: "head", Getenv: func(k string) string { return map[string]string{"SEARCH_BIN": value}[k] }}
		_, _, err := New(context.Background(), table, d)
		var fe gate.FixError
		if !gate.IsInfra(err) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "start ${SEARCH_BIN}") || strings.Contains(err.Error(), "secret") || strings.Contains(fe.Fix(), "secret") {
			t.Errorf("SEARCH_BIN=%s: %v (fix %q), want the install fix naming ${SEARCH_BIN}, never the value", value, err, fixOf(fe))
		}
	}
}

// fixOf is fe's fix, "" for none.
func fixOf(fe gate.FixError) string {
	if fe == nil {
		return ""
	}
	return fe.Fix()
}
