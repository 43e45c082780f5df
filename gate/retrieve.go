package gate

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Retriever answers one query with ranked hits. Implementations live in
// adapter packages (builtin BM25, HTTP, command, file).
type Retriever interface {
	// Retrieve returns up to k hits for the query, best first.
	Retrieve(ctx context.Context, q *Query, k int) ([]Hit, error)
}

// AnswerRetriever is a Retriever whose answers may carry more than hits:
// the pipeline's final context and its refusal signal. RetrieveSet calls
// Answer instead of Retrieve when a retriever has it.
type AnswerRetriever interface {
	Retriever
	// Answer returns up to k hits for the query, best first, with the
	// context and refusal signal the answer carried.
	Answer(ctx context.Context, q *Query, k int) (Answer, error)
}

// RetrieveOptions bound how a set is retrieved.
type RetrieveOptions struct {
	// K is how many hits to ask for per query (the candidate depth).
	K int
	// Concurrency is how many queries run at once; at least 1.
	Concurrency int
	// Timeout bounds each query; 0 means no limit.
	Timeout time.Duration
	// Limiter, when set, is waited on before each request (a rate limit
	// shared with other sides hitting the same endpoint).
	Limiter *Limiter
	// Progress, when set, is called after each query with the count done.
	Progress func(done int)
}

// Limiter spaces requests evenly: at most Rate a second.
type Limiter struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

// NewLimiter allows perSecond requests a second; 0 or less means no limit (nil).
func NewLimiter(perSecond float64) *Limiter {
	if perSecond <= 0 {
		return nil
	}
	return &Limiter{interval: time.Duration(float64(time.Second) / perSecond)}
}

// Wait blocks until the caller may send, or the context ends.
func (l *Limiter) Wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	if l.next.Before(now) {
		l.next = now
	}
	at := l.next
	l.next = l.next.Add(l.interval)
	l.mu.Unlock()
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// sendMarkKey keys a query's *sendMark in the context RetrieveAll passes.
type sendMarkKey struct{}

// sendMark holds when a query's request was sent, once a retriever says.
type sendMark struct {
	mu   sync.Mutex
	at   time.Time
	done bool
}

func (m *sendMark) get() (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.at, m.done
}

// MarkSent tells RetrieveAll that the query of ctx is being sent now: the
// time before was spent waiting its turn (a retriever with one pipe
// serves one request at a time), and is reported as queue wait, not as
// latency. A retriever that queues requests itself calls it just before
// it writes the request; elsewhere it does nothing. The last call counts.
func MarkSent(ctx context.Context) {
	if m, ok := ctx.Value(sendMarkKey{}).(*sendMark); ok {
		m.mu.Lock()
		m.at, m.done = time.Now(), true
		m.mu.Unlock()
	}
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

// RetrieveAll runs every query of the set through r with bounded
// concurrency and returns the results in set order. If any query fails, it
// returns an *InfraError wrapping a *RetrievalError that names them all.
func RetrieveAll(ctx context.Context, side string, set *Set, r Retriever, o RetrieveOptions) ([]Result, error) {
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	results := make([]Result, len(set.Queries))
	errs := make([]error, len(set.Queries))
	var done atomic.Int64
	sem := make(chan struct{}, o.Concurrency)
	var wg sync.WaitGroup
	for i, q := range set.Queries {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int, q *Query) {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				// A retriever's bug is this query's infrastructure error
				// (exit 3, an error report), never a crash that leaves the
				// last run's reports and comment standing.
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("the %s retriever failed on %s with an internal error (a bug in recallgate: please report it with this line): %v", side, q.ID, p)
				}
			}()
			qctx := ctx
			if o.Timeout > 0 {
				var cancel context.CancelFunc
				qctx, cancel = context.WithTimeout(ctx, o.Timeout)
				defer cancel()
			}
			defer func() {
				if o.Progress != nil {
					o.Progress(int(done.Add(1)))
				}
			}()
			picked := time.Now()
			if err := o.Limiter.Wait(qctx); err != nil {
				errs[i] = err
				return
			}
			start := picked
			if o.Limiter != nil {
				start = time.Now()
			}
			mark := &sendMark{}
			qctx = context.WithValue(qctx, sendMarkKey{}, mark)
			var ans Answer
			var err error
			if ar, ok := r.(AnswerRetriever); ok {
				ans, err = ar.Answer(qctx, q, o.K)
			} else {
				ans.Hits, err = r.Retrieve(qctx, q, o.K)
			}
			hits := ans.Hits
			end := time.Now()
			if sent, ok := mark.get(); ok {
				start = sent
			}
			took, queued := end.Sub(start), start.Sub(picked)
			if err == nil {
				for j, h := range hits {
					if strings.TrimSpace(h.Doc) == "" {
						err = fmt.Errorf("hit %d has no document id", j)
						break
					}
				}
			}
			if err == nil {
				if cerr := CheckContext(ans.Context); cerr != nil {
					err = cerr
				}
			}
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) && o.Timeout > 0 {
					err = fmt.Errorf("timed out after %s: %w", o.Timeout, err)
				}
				errs[i] = err
				return
			}
			results[i] = Result{ID: q.ID, Hits: hits, Latency: took, Queue: queued, Context: ans.Context, Abstain: ans.Abstain}
		}(i, q)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, &InfraError{Err: fmt.Errorf("%s: interrupted before every query was retrieved (%w); nothing is scored", side, err)}
	}
	failures := map[string]error{}
	for i, err := range errs {
		if err != nil {
			failures[set.Queries[i].ID] = err
		}
	}
	if len(failures) > 0 {
		return nil, &InfraError{Err: &RetrievalError{Side: side, Failures: failures}}
	}
	return results, nil
}
