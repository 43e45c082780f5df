package scaffold

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tree lists the regular files under dir, slash-separated, sorted.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInitWritesTheFiles(t *testing.T) {
	for _, c := range []struct {
		ci       string
		workflow string
		template string
		step3    string
	}{
		{"github", ".github/workflows/recallgate.yml", "recallgate.yml", "its check passes and says it adopts recallgate"},
		{"gitlab", ".gitlab-ci.yml", "gitlab-ci.yml", "RECALLGATE_GITLAB_TOKEN"},
	} {
		dir := t.TempDir()
		var out bytes.Buffer
		if err := Init(dir, c.ci, "builtin", &out); err != nil {
			t.Fatalf("%s: %v", c.ci, err)
		}
		want := []string{c.workflow, "eval/corpus/billing/invoices.md", "eval/corpus/billing/refunds.md", "eval/queries.jsonl", "recallgate.toml"}
		if got := tree(t, dir); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: wrote %v, want %v", c.ci, got, want)
		}
		wrote := "wrote recallgate.toml\nwrote eval/queries.jsonl\nwrote eval/corpus/billing/refunds.md\nwrote eval/corpus/billing/invoices.md\nwrote " + c.workflow + "\n\nnext steps:\n  1. "
		if !strings.HasPrefix(out.String(), wrote) || !strings.Contains(out.String(), "\n  2. ") || !strings.Contains(out.String(), "\n  3. ") || !strings.Contains(out.String(), c.step3) {
			t.Errorf("%s: printed\n%s", c.ci, out.String())
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(c.workflow)))
		tmpl, _ := templates.ReadFile("templates/" + c.template)
		if err != nil || !bytes.Equal(got, tmpl) || len(tmpl) == 0 {
			t.Errorf("%s: the workflow is not the template (%v)", c.ci, err)
		}
	}
}

// TestStarterSetHasBothKinds: the starter set's two lines are one query
// answered by a document of the starter corpus and one unanswerable.
func TestStarterSetHasBothKinds(t *testing.T) {
	set, _ := templates.ReadFile("templates/eval/queries.jsonl")
	lines := strings.Split(strings.TrimSpace(string(set)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"gold":{"billing/refunds":3}`) || !strings.Contains(lines[1], `"gold":{},"unanswerable":true`) {
		t.Errorf("starter set:\n%s", set)
	}
	if _, err := templates.ReadFile("templates/eval/corpus/billing/refunds.md"); err != nil {
		t.Errorf("the answered query's gold document is not in the starter corpus: %v", err)
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "eval", "queries.jsonl")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("my set\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A dangling link is a file too: writing through it would create its target.
	if err := os.Symlink(filepath.Join(dir, "elsewhere.yml"), filepath.Join(dir, ".gitlab-ci.yml")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Init(dir, "gitlab", "builtin", &out)
	var ee *ExistsError
	if !errors.As(err, &ee) || !reflect.DeepEqual(ee.Paths, []string{"eval/queries.jsonl", ".gitlab-ci.yml"}) {
		t.Fatalf("got %v, want an ExistsError naming eval/queries.jsonl and .gitlab-ci.yml", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "eval/queries.jsonl, .gitlab-ci.yml already exist: init never overwrites a file, so it wrote nothing; move them away") {
		t.Errorf("message: %s", msg)
	}
	if got := tree(t, dir); !reflect.DeepEqual(got, []string{".gitlab-ci.yml", "eval/queries.jsonl"}) || out.Len() != 0 {
		t.Errorf("after the refusal: files %v, printed %q", got, out.String())
	}
	if b, _ := os.ReadFile(mine); string(b) != "my set\n" {
		t.Errorf("the existing set became %q", b)
	}
}

func TestInitRefusesAnUnknownCI(t *testing.T) {
	dir := t.TempDir()
	err := Init(dir, "circleci", "builtin", new(bytes.Buffer))
	if err == nil || err.Error() != `--ci "circleci": want github or gitlab` {
		t.Errorf("got %v", err)
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("wrote %v", got)
	}
}

// TestWorkflowPassesActionlint lints the workflow init writes with
// actionlint (RECALLGATE_ACTIONLINT, else the one on PATH; .ci/run and
// test/act install it with `go install
// github.com/rhysd/actionlint/cmd/actionlint@v1.7.12`).
func TestWorkflowPassesActionlint(t *testing.T) {
	bin := os.Getenv("RECALLGATE_ACTIONLINT")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("actionlint"); err != nil {
			t.Skip("actionlint is not installed (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12, or set RECALLGATE_ACTIONLINT): the init workflow is not linted here; .ci/run lints it")
		}
	}
	for _, kind := range Retrievers { // the Docker action's workflow and the native action's
		dir := t.TempDir()
		if err := Init(dir, "github", kind, new(bytes.Buffer)); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, filepath.Join(".github", "workflows", "recallgate.yml"))
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("actionlint, --retriever %s: %v\n%s", kind, err, out)
		}
	}
}

// TestInitNeverWritesThroughALinkedFolder: a folder init writes into that
// is a symbolic link (eval to another place, .github/workflows to
// another repository's) is refused before anything is written: O_EXCL
// on the file would not stop a linked parent.
func TestInitNeverWritesThroughALinkedFolder(t *testing.T) {
	for _, c := range []struct{ ci, link, want string }{
		{"gitlab", "eval", "eval"},
		{"github", ".github/workflows", ".github/workflows"},
		{"github", ".github", ".github"},
	} {
		dir, elsewhere := t.TempDir(), t.TempDir()
		at := filepath.Join(dir, filepath.FromSlash(c.link))
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, at); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		var out bytes.Buffer
		err := Init(dir, c.ci, "builtin", &out)
		if err == nil || !strings.HasPrefix(err.Error(), c.want+" is a symbolic link: init writes only into real folders, so it wrote nothing") {
			t.Errorf("%s: got %v", c.link, err)
		}
		if got := tree(t, elsewhere); len(got) != 0 || out.Len() != 0 {
			t.Errorf("%s: wrote %v through the link, printed %q", c.link, got, out.String())
		}
		if got := tree(t, dir); len(got) != 1 { // the link itself
			t.Errorf("%s: wrote %v", c.link, got)
		}
	}
}
