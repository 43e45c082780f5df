package retrieval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// Options bound how a set is retrieved.
type Options struct {
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

// sendMarkKey keys a query's *sendMark in the context All passes.
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

// MarkSent tells All that the query of ctx is being sent now: the
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

// All runs every query of the set through r with bounded
// concurrency and returns the results in set order. If any query fails, it
// returns an *InfraError wrapping a *RetrievalError that names them all.
func All(ctx context.Context, side string, set *gate.Set, r gate.Retriever, o Options) ([]gate.Result, error) {
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	results := make([]gate.Result, len(set.Queries))
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
		go func(i int, q *gate.Query) {
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
			var ans gate.Answer
			var err error
			if ar, ok := r.(gate.AnswerRetriever); ok {
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
				if cerr := gate.CheckContext(ans.Context); cerr != nil {
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
			results[i] = gate.Result{ID: q.ID, Hits: hits, Latency: took, Queue: queued, Context: ans.Context, Abstain: ans.Abstain}
		}(i, q)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, &gate.InfraError{Err: fmt.Errorf("%s: interrupted before every query was retrieved (%w); nothing is scored", side, err)}
	}
	failures := map[string]error{}
	for i, err := range errs {
		if err != nil {
			failures[set.Queries[i].ID] = err
		}
	}
	if len(failures) > 0 {
		return nil, &gate.InfraError{Err: &gate.RetrievalError{Side: side, Failures: failures}}
	}
	return results, nil
}
