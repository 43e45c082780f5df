package pipeline

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyStar keeps the house's shape (docs/ARCHITECTURE.md): the
// leaves (atomic files, the retriever spec, gate/input's bounded reads,
// gate/visible's ids and names, gate/childenv, gate/stats) import no recallgate
// package, the domain imports only the leaves and nothing third-party,
// every adapter imports only the domain, the leaves and the
// CI-neutral publishing rules (which import only the domain), only the
// GitHub client imports go-github, and only the composition rooms (the
// retriever factory, this job package, the CI step gate/cijob, cmd) join
// adapters together.
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
	leaves := map[string]bool{"gate/atomicfile": true, "gate/retriever/spec": true, "gate/nodump": true, "gate/mddoc": true, "gate/input": true, "gate/visible": true, "gate/childenv": true, "gate/stats": true}
	shared := map[string]bool{"gate": true, "gate/atomicfile": true, "gate/retriever/spec": true, "gate/publish": true, "gate/chart": true, "gate/proposal": true}
	composition := map[string]bool{"gate/retriever": true, "gate/pipeline": true, "gate/cijob": true, "gate/ghjob": true, "gate/gljob": true, "gate/history": true, "gate/experiment": true, "gate/judge": true, "cmd/recallgate": true, "bench/gen": true}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, imp := range fields[1:] {
			own := strings.HasPrefix(imp, mod)
			name := strings.TrimPrefix(imp, mod)
			thirdParty := !own && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
			switch {
			case pkg == "gate" && (own && !leaves[name] || thirdParty):
				t.Errorf("gate imports %s: the domain imports the standard library and the leaves only", imp)
			case strings.HasPrefix(imp, "github.com/google/go-github") && pkg != "gate/ghclient":
				t.Errorf("%s imports go-github: only gate/ghclient may", pkg)
			case strings.HasPrefix(imp, "gitlab.com/gitlab-org/api/client-go") && pkg != "gate/glclient":
				t.Errorf("%s imports GitLab's client: only gate/glclient may", pkg)
			case pkg == "gate/cijob" && (name == "gate/ghaction" || name == "gate/ghclient" || name == "gate/glci" || name == "gate/glclient" || strings.HasPrefix(imp, "github.com/sethvargo/go-githubactions")):
				t.Errorf("gate/cijob imports %s: the CI job is CI-neutral (a CI plugs in through cijob.Step and publish's ports)", imp)
			case own && leaves[pkg]:
				t.Errorf("%s imports %s: a leaf imports nothing of recallgate's", pkg, name)
			case own && pkg == "gate/publish" && name != "gate":
				t.Errorf("gate/publish imports %s: the publishing rules import only the domain", name)
			case own && pkg == "gate/chart" && name != "gate":
				t.Errorf("gate/chart imports %s: the charts import only the domain", name)
			case own && pkg == "gate/proposal" && name != "gate":
				t.Errorf("gate/proposal imports %s: the set's proposal imports only the domain", name)
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
