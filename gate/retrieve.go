package gate

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Retriever answers one query with ranked hits. Implementations live in
// adapter packages (builtin BM25, HTTP, command, file).
type Retriever interface {
	// Retrieve returns up to k hits for the query, best first.
	Retrieve(ctx context.Context, q *Query, k int) ([]Hit, error)
}

// AnswerRetriever is a Retriever whose answers may carry more than hits:
// the pipeline's final context and its refusal signal. retrieval.All calls
// Answer instead of Retrieve when a retriever has it.
type AnswerRetriever interface {
	Retriever
	// Answer returns up to k hits for the query, best first, with the
	// context and refusal signal the answer carried.
	Answer(ctx context.Context, q *Query, k int) (Answer, error)
}

// RetrievalError lists every query that could not be retrieved. It wraps
// into an *InfraError so the CLI exits 3.
type RetrievalError struct {
	Side     string
	Failures map[string]error // query id → reason
}

// RetrieverDownError is a retriever that ended before it answered
// anything (a crash at start-up): no query is to blame, so a
// RetrievalError whose failures are all this one says it once, with the
// count, in place of a line per query.
type RetrieverDownError struct {
	// Msg says how the retriever ended (its exit, its stderr's end).
	Msg string
}

// Error says how the retriever ended.
func (e *RetrieverDownError) Error() string { return e.Msg }

// Error lists the failed queries, at most ten, with their reasons; a
// retriever down for every failed query is one line.
func (e *RetrievalError) Error() string {
	ids := make([]string, 0, len(e.Failures))
	for id := range e.Failures {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if msg, ok := e.down(); ok {
		return fmt.Sprintf("%s: %d %s not retrieved (not scored as misses): %s", e.Side, len(ids), Plural(len(ids), "query", "queries"), msg)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %s could not be retrieved (not scored as misses):", e.Side, len(ids), Plural(len(ids), "query", "queries"))
	// One line per reason: queries stopped by one failure share theirs.
	var reasons []string
	byReason := map[string][]string{}
	for _, id := range ids {
		r := e.Failures[id].Error()
		if byReason[r] == nil {
			reasons = append(reasons, r)
		}
		byReason[r] = append(byReason[r], id)
	}
	shown := 0
	for i, r := range reasons {
		if i == 10 {
			fmt.Fprintf(&b, "\n  …and %d more", len(ids)-shown)
			break
		}
		q := byReason[r]
		shown += len(q)
		fmt.Fprintf(&b, "\n  %s: %s", JoinFirst(q, 5), r)
	}
	return b.String()
}

// down is the one message when every failure is the same retriever down.
func (e *RetrievalError) down() (string, bool) {
	msg := ""
	for _, err := range e.Failures {
		var d *RetrieverDownError
		if !errors.As(err, &d) || msg != "" && d.Msg != msg {
			return "", false
		}
		msg = d.Msg
	}
	return msg, msg != ""
}
