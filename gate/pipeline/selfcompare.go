package pipeline

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
)

// SameCommit refuses a gate whose base commit is the checkout's own HEAD
// with nothing changed on top of it: both sides would run the same tree,
// so the gate could not fail (`gate --base-ref main` run on main).
// Uncommitted changes are a change to gate. The caller asks only when
// both sides' retriever tables are the same. allow turns the refusal into
// a warning. A checkout that is not a git repository is left alone.
func SameCommit(ctx context.Context, e *Env, cfgPath, ref, baseCommit string, allow bool) error {
	abs, err := filepath.Abs(cfgPath)
	if err != nil {
		return nil
	}
	head, dirty, err := basetree.HeadState(ctx, filepath.Dir(abs))
	if err != nil || head != baseCommit || dirty {
		return nil // not a checkout, another commit, or uncommitted changes (the head side)
	}
	what := fmt.Sprintf("the base commit %s is the checkout's own HEAD, so both sides run the same tree", ShortSHA(baseCommit))
	if ref != baseCommit {
		what = fmt.Sprintf("the base commit %s (%s) is the checkout's own HEAD, so both sides run the same tree", ShortSHA(baseCommit), ref)
	}
	if allow {
		e.Warn("%s: %s and the gate cannot fail (allowed)", cfgPath, what)
		return nil
	}
	return gate.AtStage(gate.StageBaseTree, "base", &gate.InputError{File: cfgPath, Field: "base-ref", Err: fmt.Errorf("%s and this gate cannot fail: give the commit the change starts from (e.g. --base-ref origin/main on a branch), commit the change first, or pass --allow-identical to run it anyway", what)})
}
