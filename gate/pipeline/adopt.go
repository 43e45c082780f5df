package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
)

// headAlone is the change that adopts recallgate (its base commit has no
// recallgate config) and whose base commit cannot run the config it brings:
// the corpus, index or script it names is new in the change too, so the
// base side could not be built or could not start. There is nothing to
// compare against, and the check of the first pull request must not be red
// for it: the head is retrieved alone and stands for both sides, and the
// note says so. A base side that started and then failed on queries is an
// infrastructure error as everywhere else.
func headAlone(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, runs map[string]SideRun, err error, commit string) (map[string]SideRun, string, error) {
	baseErr := err
	if err == nil {
		var down *gate.RetrieverDownError
		if runs["head"].Err != nil || !errors.As(runs["base"].Err, &down) {
			return runs, "", nil
		}
		baseErr = runs["base"].Err
	} else if se := new(gate.StageError); !errors.As(err, &se) || se.Side != "base" {
		return runs, "", err
	}
	if err != nil || runs["head"].Results == nil {
		runs, err = Retrieve(ctx, e, cfg, set, []string{"head"}, cfg.Depth.Candidates, cfg.Repeats)
		if err != nil {
			return nil, "", err
		}
	}
	runs["base"] = runs["head"]
	why, _, _ := strings.Cut(baseErr.Error(), "\n") // its base tree's paths named as the repository does (BaseSide.Named)
	note := fmt.Sprintf("this change adopts recallgate: the base commit %s has no recallgate config and cannot run this one (%s); with nothing to compare, the head's run stands for both sides: the gate judges from the next change on", ShortSHA(commit), why)
	e.Warn("%s", note)
	return runs, note, nil
}
