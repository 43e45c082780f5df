package gate

import (
	"context"
	"sync"
	"testing"
	"time"
)

// pipeRetriever serves one request at a time, as a command retriever's
// single pipe does: a query waits for the turn, says it is sent
// (MarkSent), and answers at once, except the first, which holds the
// turn until release is closed.
type pipeRetriever struct {
	turn    sync.Mutex
	first   sync.Once
	holding chan struct{} // closed once the first query holds the turn
	release chan struct{}
}

func (p *pipeRetriever) Retrieve(ctx context.Context, q *Query, k int) ([]Hit, error) {
	p.turn.Lock()
	defer p.turn.Unlock()
	MarkSent(ctx)
	p.first.Do(func() {
		close(p.holding)
		<-p.release
	})
	return []Hit{{Doc: "a"}}, nil
}

// TestQueueWaitIsNotLatency: the second query waits (at least 300 ms,
// the test holds the first's turn that long) for the one pipe; that wait
// is its queue wait, and its latency is only its own answer (it answers
// at once), so it stays far below the wait.
func TestQueueWaitIsNotLatency(t *testing.T) {
	const hold = 300 * time.Millisecond
	p := &pipeRetriever{holding: make(chan struct{}), release: make(chan struct{})}
	set := &Set{Queries: []*Query{{ID: "q1", Text: "one"}, {ID: "q2", Text: "two"}}}
	go func() {
		<-p.holding
		time.Sleep(hold)
		close(p.release)
	}()
	res, err := RetrieveAll(context.Background(), "head", set, p, RetrieveOptions{K: 1, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	waited := res[0]
	if res[1].Queue > res[0].Queue {
		waited = res[1]
	}
	if waited.Queue < hold || waited.Latency > hold/3 {
		t.Errorf("%s: queue wait %v, latency %v: want the %v wait for the pipe as queue wait, kept out of the latency", waited.ID, waited.Queue, waited.Latency, hold)
	}
	s := LatenciesQueued([]time.Duration{res[0].Latency, res[1].Latency}, []time.Duration{res[0].Queue, res[1].Queue}, 0)
	if s.QueueP95 < hold || s.P50 > hold/3 {
		t.Errorf("stats %+v", s)
	}
}
