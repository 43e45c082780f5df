package pipeline

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDependencyStar keeps the house's shape (docs/ARCHITECTURE.md): the
// bottom leaves (internal/gitexec, internal/confine) import the standard
// library only and anything may import them; the other leaves (atomic
// files, the retriever spec, gate/input's bounded reads, gate/visible's ids
// and names, gate/childenv, gate/stats) import no recallgate package but
// the bottom leaves, the domain imports only the leaves and nothing
// third-party, every adapter imports only the domain, the leaves and the
// CI-neutral publishing rules (which import only the domain) and the
// file-format packages (gate/runfile, gate/setfile: they import only the
// domain and the leaves, and the domain never imports them), only the
// GitHub client imports go-github, only gate/visible the confusables
// table (go.mau.fi/util/confusable), and only the composition rooms (the
// retriever factory, this job package, the CI step gate/cijob, cmd) join
// adapters together: the rooms are the ones docs/ARCHITECTURE.md lists
// (rooms), named in that one place.
func TestDependencyStar(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the packages with")
	}
	out, err := exec.Command(goBin, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/recallgate/recallgate/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/recallgate/recallgate/"
	leaves := map[string]bool{"gate/atomicfile": true, "gate/retriever/spec": true, "gate/nodump": true, "gate/mddoc": true, "gate/input": true, "gate/visible": true, "gate/childenv": true, "gate/stats": true, "gate/procgroup": true, "gate/section": true, "gate/keeper": true, "gate/orderedjson": true}
	// The bottom leaves: the one git runner and the one containment
	// check. They import the standard library only, and every package
	// may import them.
	bottom := map[string]bool{"internal/gitexec": true, "internal/confine": true}
	shared := map[string]bool{"gate": true, "gate/atomicfile": true, "gate/retriever/spec": true, "gate/publish": true, "gate/chart": true, "gate/fusion": true, "gate/bound": true, "gate/runfile": true, "gate/setfile": true, "gate/corpus": true, "gate/proposal": true, "gate/retrieval": true, "gate/agreement": true, "gate/sethealth": true, "gate/repeats": true}
	composition := rooms(t)
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, imp := range fields[1:] {
			own := strings.HasPrefix(imp, mod)
			name := strings.TrimPrefix(imp, mod)
			thirdParty := !own && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
			switch {
			case bottom[pkg] && (own || thirdParty):
				t.Errorf("%s imports %s: a bottom leaf imports the standard library only", pkg, imp)
			case own && bottom[name]:
				// every package may use the git runner and the containment check
			case pkg == "gate" && (own && !leaves[name] || thirdParty):
				t.Errorf("gate imports %s: the domain imports the standard library and the leaves only", imp)
			case strings.HasPrefix(imp, "github.com/google/go-github") && pkg != "gate/ghclient":
				t.Errorf("%s imports go-github: only gate/ghclient may", pkg)
			case strings.HasPrefix(imp, "gitlab.com/gitlab-org/api/client-go") && pkg != "gate/glclient":
				t.Errorf("%s imports GitLab's client: only gate/glclient may", pkg)
			case strings.HasPrefix(imp, "go.mau.fi/") && pkg != "gate/visible":
				t.Errorf("%s imports %s: only gate/visible may (Unicode's confusables, through visible.Skeleton)", pkg, imp)
			case pkg == "gate/cijob" && (name == "gate/ghaction" || name == "gate/ghclient" || name == "gate/glci" || name == "gate/glclient" || strings.HasPrefix(imp, "github.com/sethvargo/go-githubactions")):
				t.Errorf("gate/cijob imports %s: the CI job is CI-neutral (a CI plugs in through cijob.Step and publish's ports)", imp)
			case pkg == "gate/mddoc" && name == "gate/section":
				// the documentation's heading anchors are gate/section's (one
				// slug rule); mddoc is read by tests only
			case own && leaves[pkg]:
				t.Errorf("%s imports %s: a leaf imports nothing of recallgate's", pkg, name)
			case own && pkg == "gate/publish" && name != "gate":
				t.Errorf("gate/publish imports %s: the publishing rules import only the domain", name)
			case own && pkg == "gate/chart" && name != "gate":
				t.Errorf("gate/chart imports %s: the charts import only the domain", name)
			case own && (pkg == "gate/fusion" || pkg == "gate/bound") && name != "gate" && !leaves[name]:
				t.Errorf("%s imports %s: the fusion methods and the bounds import only the domain and the leaves", pkg, name)
			case own && pkg == "gate/proposal" && name != "gate":
				t.Errorf("gate/proposal imports %s: the set's proposal imports only the domain", name)
			case own && (pkg == "gate/retrieval" || pkg == "gate/agreement" || pkg == "gate/sethealth" || pkg == "gate/repeats") && name != "gate" && !leaves[name]:
				t.Errorf("%s imports %s: retrieving a set, labeller agreement, the set's health and a side's repeats import only the domain and the leaves", pkg, name)
			case own && (pkg == "gate/runfile" || pkg == "gate/setfile") && name != "gate" && !leaves[name]:
				t.Errorf("%s imports %s: a file-format reader imports only the domain and the leaves", pkg, name)
			case own && pkg == "gate/corpus" && name != "gate" && !leaves[name]:
				t.Errorf("gate/corpus imports %s: the corpus reader imports only the domain and the leaves", name)
			case own && !composition[pkg] && !leaves[pkg] && pkg != "gate" && !shared[name] && !leaves[name]:
				t.Errorf("%s imports %s: an adapter imports only gate and the leaves, never another adapter", pkg, name)
			}
		}
		checked++
	}
	if checked < 15 {
		t.Errorf("only %d packages listed", checked)
	}
}

// roomsLine is the line of docs/ARCHITECTURE.md that lists the rooms, the
// one place they are named: TestDependencyStar reads them from it.
var roomsLine = regexp.MustCompile("(?m)^- Only the rooms \\(([^)]*)\\) join adapters;")

// rooms are the composition rooms as docs/ARCHITECTURE.md lists them.
func rooms(t *testing.T) map[string]bool {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatalf("the rooms are listed in docs/ARCHITECTURE.md: %v", err)
	}
	m := roomsLine.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/ARCHITECTURE.md has no line \"- Only the rooms (`a`, `b`) join adapters;\"")
	}
	out := map[string]bool{}
	for _, name := range regexp.MustCompile("`([^`]+)`").FindAllSubmatch(m[1], -1) {
		out[string(name[1])] = true
	}
	if !out["cmd/recallgate"] || !out["gate/cijob"] {
		t.Fatalf("docs/ARCHITECTURE.md's rooms %v lack cmd/recallgate or gate/cijob", out)
	}
	return out
}

// TestOnlyGitexecStartsGit: no non-test Go file outside internal/gitexec
// starts git (every call goes through its hardening and bounds). It reads
// each file for an exec of "git" (exec.Command or exec.CommandContext
// with the literal name) and for a name bound to "git" handed to exec.
func TestOnlyGitexecStartsGit(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	startsGit := regexp.MustCompile(`exec\.Command(Context)?\([^)]*"git"`)
	var found []string
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		if startsGit.Match(b) && !strings.HasPrefix(rel, "internal/gitexec/") {
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d non-test Go files read under %s", checked, root)
	}
	if len(found) > 0 {
		t.Errorf("these files start git themselves; call internal/gitexec: %v", found)
	}
}
