package pipeline

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
)

// CheckPrograms stops a run before any retrieval or download when a
// command retriever's program (a bare name, found on PATH) is not
// installed here: the error names it, the side and the config, and ends
// with fix(program) (how to run where it is; nil for none). A program
// given by a path is left to the retriever: it may come from the base
// commit's tree.
func CheckPrograms(cfg *config.Config, fix func(program string) string) error {
	seen := map[string]bool{}
	for _, side := range []struct {
		name string
		r    *config.Retriever
	}{{"base", cfg.Base}, {"head", cfg.Head}} {
		if side.r == nil || side.r.Type != "command" || len(side.r.Command) == 0 {
			continue
		}
		prog := side.r.Command[0]
		if prog == "" || strings.ContainsRune(prog, '/') || seen[prog] {
			continue
		}
		seen[prog] = true
		if _, err := exec.LookPath(prog); err != nil {
			msg := fmt.Sprintf("%s: the %s side's command retriever runs %q, which is not installed here (not on PATH): nothing was retrieved", cfg.Path, side.name, prog)
			how := fmt.Sprintf("install %s where recallgate runs (on PATH), or give the command by its path", prog)
			if fix != nil {
				how = fix(prog)
				msg += "; " + how
			}
			return gate.AtStage(gate.StageRetrieve, side.name, gate.WithFix(&gate.InfraError{Err: fmt.Errorf("%s", msg)}, how))
		}
	}
	return nil
}
