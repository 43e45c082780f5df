package retrieval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/stats"
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

func (p *pipeRetriever) Retrieve(ctx context.Context, q *gate.Query, k int) ([]gate.Hit, error) {
	p.turn.Lock()
	defer p.turn.Unlock()
	MarkSent(ctx)
	p.first.Do(func() {
		close(p.holding)
		<-p.release
	})
	return []gate.Hit{{Doc: "a"}}, nil
}

// TestQueueWaitIsNotLatency: the second query waits (about 300 ms, the
// test holds the first's turn that long) for the one pipe; that wait is
// its queue wait, and its latency is only its own answer (it answers at
// once), so it stays far below the wait. The wait is asserted with a
// margin (2/3 of the hold): the waiting query's clock may start a little
// after the hold does.
func TestQueueWaitIsNotLatency(t *testing.T) {
	const hold = 300 * time.Millisecond
	p := &pipeRetriever{holding: make(chan struct{}), release: make(chan struct{})}
	set := &gate.Set{Queries: []*gate.Query{{ID: "q1", Text: "one"}, {ID: "q2", Text: "two"}}}
	go func() {
		<-p.holding
		time.Sleep(hold)
		close(p.release)
	}()
	res, err := All(context.Background(), "head", set, p, Options{K: 1, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	waited := res[0]
	if res[1].Queue > res[0].Queue {
		waited = res[1]
	}
	if waited.Queue < hold*2/3 || waited.Latency > hold/3 {
		t.Errorf("%s: queue wait %v, latency %v: want the %v wait for the pipe as queue wait, kept out of the latency", waited.ID, waited.Queue, waited.Latency, hold)
	}
	s := stats.LatenciesQueued([]time.Duration{res[0].Latency, res[1].Latency}, []time.Duration{res[0].Queue, res[1].Queue}, 0)
	if s.QueueP95 < hold*2/3 || s.P50 > hold/3 {
		t.Errorf("stats %+v", s)
	}
}

// panicRetriever panics on one query, as a bug in a retriever would.
type panicRetriever struct{ on string }

func (p panicRetriever) Retrieve(_ context.Context, q *gate.Query, _ int) ([]gate.Hit, error) {
	if q.ID == p.on {
		var hits []gate.Hit
		_ = hits[3] // index out of range
	}
	return []gate.Hit{{Doc: "a"}}, nil
}

// TestRetrieverPanicIsInfra: a retriever that panics on one query makes
// that query an infrastructure error naming it and the panic; the process
// does not crash, so the error report replaces the last run's reports.
func TestRetrieverPanicIsInfra(t *testing.T) {
	set := &gate.Set{Queries: []*gate.Query{{ID: "q1", Text: "one"}, {ID: "q2", Text: "two"}, {ID: "q3", Text: "three"}}}
	_, err := All(context.Background(), "head", set, panicRetriever{on: "q2"}, Options{K: 5, Concurrency: 2})
	var re *gate.RetrievalError
	if !gate.IsInfra(err) || !errors.As(err, &re) {
		t.Fatalf("err = %v, want an infrastructure RetrievalError", err)
	}
	if len(re.Failures) != 1 || re.Failures["q2"] == nil {
		t.Fatalf("failures = %v, want only q2", re.Failures)
	}
	if msg := re.Failures["q2"].Error(); !strings.Contains(msg, "head retriever failed on q2") || !strings.Contains(msg, "index out of range") {
		t.Errorf("q2: %s", msg)
	}
}

func TestLimiterSpacesRequests(t *testing.T) {
	l := NewLimiter(50) // one every 20 ms
	start := time.Now()
	for i := 0; i < 6; i++ {
		if err := l.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// The first goes at once, five more wait 20 ms each.
	if el := time.Since(start); el < 95*time.Millisecond {
		t.Errorf("6 requests at 50/s took %v, want ≥ 100 ms", el)
	}
	if NewLimiter(0) != nil {
		t.Error("rate 0 means no limiter")
	}
	var nilL *Limiter
	if err := nilL.Wait(context.Background()); err != nil {
		t.Error(err)
	}
}
