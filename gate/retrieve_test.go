package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// TestQueueWaitIsNotLatency: the second query waits (about 300 ms, the
// test holds the first's turn that long) for the one pipe; that wait is
// its queue wait, and its latency is only its own answer (it answers at
// once), so it stays far below the wait. The wait is asserted with a
// margin (2/3 of the hold): the waiting query's clock may start a little
// after the hold does.
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
	if waited.Queue < hold*2/3 || waited.Latency > hold/3 {
		t.Errorf("%s: queue wait %v, latency %v: want the %v wait for the pipe as queue wait, kept out of the latency", waited.ID, waited.Queue, waited.Latency, hold)
	}
	s := LatenciesQueued([]time.Duration{res[0].Latency, res[1].Latency}, []time.Duration{res[0].Queue, res[1].Queue}, 0)
	if s.QueueP95 < hold*2/3 || s.P50 > hold/3 {
		t.Errorf("stats %+v", s)
	}
}

// TestRetrievalErrorOneLinePerReason: queries stopped by one failure share
// one line, and a retriever down before any answer is one line for all.
func TestRetrievalErrorOneLinePerReason(t *testing.T) {
	stopped := errors.New("the retriever was stopped after an earlier query (q05) failed")
	f := map[string]error{"q05": errors.New("retriever process r exited before answering q05 (exit status 7)")}
	for i := 6; i <= 40; i++ {
		f[fmt.Sprintf("q%02d", i)] = stopped
	}
	want := "head: 36 queries could not be retrieved (not scored as misses):\n" +
		"  q05: retriever process r exited before answering q05 (exit status 7)\n" +
		"  q06, q07, q08, q09, q10, …and 30 more: the retriever was stopped after an earlier query (q05) failed"
	if got := (&RetrievalError{Side: "head", Failures: f}).Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	down := &RetrieverDownError{Msg: "retriever process r exited before its first answer (exit status 1); its stderr ended with: \"boom\""}
	f = map[string]error{"q1": down, "q2": fmt.Errorf("wrapped: %w", down), "q3": down}
	want = "head: 3 queries not retrieved (not scored as misses): " + down.Msg
	if got := (&RetrievalError{Side: "head", Failures: f}).Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// panicRetriever panics on one query, as a bug in a retriever would.
type panicRetriever struct{ on string }

func (p panicRetriever) Retrieve(_ context.Context, q *Query, _ int) ([]Hit, error) {
	if q.ID == p.on {
		var hits []Hit
		_ = hits[3] // index out of range
	}
	return []Hit{{Doc: "a"}}, nil
}

// TestRetrieverPanicIsInfra: a retriever that panics on one query makes
// that query an infrastructure error naming it and the panic; the process
// does not crash, so the error report replaces the last run's reports.
func TestRetrieverPanicIsInfra(t *testing.T) {
	set := &Set{Queries: []*Query{{ID: "q1", Text: "one"}, {ID: "q2", Text: "two"}, {ID: "q3", Text: "three"}}}
	_, err := RetrieveAll(context.Background(), "head", set, panicRetriever{on: "q2"}, RetrieveOptions{K: 5, Concurrency: 2})
	var re *RetrievalError
	if !IsInfra(err) || !errors.As(err, &re) {
		t.Fatalf("err = %v, want an infrastructure RetrievalError", err)
	}
	if len(re.Failures) != 1 || re.Failures["q2"] == nil {
		t.Fatalf("failures = %v, want only q2", re.Failures)
	}
	if msg := re.Failures["q2"].Error(); !strings.Contains(msg, "head retriever failed on q2") || !strings.Contains(msg, "index out of range") {
		t.Errorf("q2: %s", msg)
	}
}
