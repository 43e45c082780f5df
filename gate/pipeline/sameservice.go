package pipeline

import (
	"fmt"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/retriever"
)

// SameService refuses a gate on a base commit whose two sides are http
// retrievers that start no service and would send one request to one
// URL: whatever the trees hold, one running service answers both, so the
// base side is not the base commit's service and the gate cannot see the
// change (it compares the service with itself and passes). allow turns
// the refusal into a warning. The caller asks only when the trees differ
// (a base commit that is the checkout's own HEAD is SameCommit's).
func SameService(e *Env, cfg *config.Config, allow bool) error {
	same, where := retriever.SameRequest(cfg.Base, cfg.Head, e.Getenv)
	if !same {
		return nil
	}
	what := fmt.Sprintf("both sides would send the same request to %s, the one service running there, while their trees differ: the base side would not be the base commit's service, so this gate cannot see what the change does to it", where)
	if allow {
		e.Warn("%s: %s (allowed: the service is compared with itself)", cfg.Path, what)
		return nil
	}
	fix := `add start = ["python3", "service.py", "--port", "{port}"] and url = "http://127.0.0.1:{port}/…" to the table, so recallgate starts each side's service in its own tree (the base commit's for the base side); or give each side its own deployment, e.g. [base.retriever] url = "${BASE_SEARCH_URL}" and [head.retriever] url = "${PREVIEW_SEARCH_URL}" (a preview deployment of the change); or pass --allow-identical (the action's allow-identical input) to compare the service with itself`
	return gate.AtStage(gate.StageConfig, "", gate.WithFix(&gate.InputError{File: cfg.Path, Field: "retriever.url", Err: fmt.Errorf("%s: %s", what, fix)}, fix))
}
