package cijob

import (
	"context"
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/cli"
)

// CI is one CI system `recallgate ci` runs under, as its room (gate/ghjob,
// gate/gljob) describes it: how its job is told apart and named, and its
// job, which reads its runner's variables, the change's base and head
// commits and makes its comment client into a Job for Run.
type CI struct {
	// Name is the CI as a message names it: "GitLab CI".
	Name string
	// Variables say how its job is known, for the message of a run in no
	// CI: "GITLAB_CI=true, with CI_API_V4_URL, …".
	Variables string
	// Detect reports whether the process runs in one of its jobs.
	Detect func(getenv func(string) string) bool
	// NoFlags, when set, says why the CI takes no flag of `recallgate ci`
	// (GitHub's action reads its own inputs): a flag given is a usage
	// error with it. A CI without NoFlags takes Inputs.
	NoFlags string
	// Run runs the job with the inputs; inErr is a bad input (a usage
	// error), which the job publishes as every error is (see Fail).
	Run func(ctx context.Context, in Inputs, inErr error) error
}

// CIs are the CI systems `recallgate ci` knows, in the order they are
// tried: the first whose Detect says yes runs. The one table is
// cmd/recallgate's (the room that joins the CIs' jobs); this package,
// CI-neutral, imports none of them.
type CIs []CI

// Detect is the CI the process runs under; none is a usage error that
// names every CI's variables.
func (t CIs) Detect(getenv func(string) string) (*CI, error) {
	for i := range t {
		if t[i].Detect(getenv) {
			return &t[i], nil
		}
	}
	known := make([]string, len(t))
	for i, c := range t {
		known[i] = fmt.Sprintf("%s (%s)", c.Name, c.Variables)
	}
	none := "none"
	if len(t) == 2 {
		none = "neither"
	}
	return nil, cli.Usagef("recallgate ci runs inside a CI job and %s is set here: %s; on your machine run recallgate gate, then recallgate comment with GITHUB_REPOSITORY and GITHUB_TOKEN set",
		none, gate.SayOr(known))
}

// Run is `recallgate ci`: the CI detected runs its job with the inputs
// (read through inputs, from the flags given (nflags of them) and the
// RECALLGATE_* variables); a bad input is a usage error the job
// publishes.
func (t CIs) Run(ctx context.Context, getenv func(string) string, nflags int, inputs func(getenv func(string) string) (Inputs, error)) error {
	ci, err := t.Detect(getenv)
	switch {
	case err != nil:
		return err
	case ci.NoFlags != "" && nflags > 0:
		return cli.Usagef("%s", ci.NoFlags)
	case ci.NoFlags != "":
		return ci.Run(ctx, Inputs{}, nil)
	}
	in, err := inputs(getenv)
	if err != nil {
		err = cli.Usagef("%v", err)
	}
	return ci.Run(ctx, in, err)
}
