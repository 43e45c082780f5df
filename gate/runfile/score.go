package runfile

import (
	"errors"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

// ScoreRunFile reads a run file and scores it against the set.
func ScoreRunFile(set *gate.Set, path string, d gate.Depth) (*gate.Scorecard, error) {
	return ScoreRunFileSpilled(set, path, d, nil)
}

// ScoreRunFileSpilled is ScoreRunFile handing every query's full score to
// sp as it is made (nil: kept in the Scorecard); the Scorecard's queries
// then hold only their numbers (no Docs, GoldRanks, Passages, Evidence).
func ScoreRunFileSpilled(set *gate.Set, path string, d gate.Depth, sp gate.Spill) (*gate.Scorecard, error) {
	sc := gate.NewSpilledScorer(set, d, sp)
	if done, err := scoreInSegments(path, sc); done || err != nil {
		if err != nil {
			return nil, err
		}
		c, err := sc.Card()
		if err != nil {
			return nil, cardError(path, err)
		}
		return c, nil
	}
	meta, err := scorePipelined(path, sc)
	if err != nil {
		return nil, err
	}
	if err := meta.CheckSet(set, path); err != nil {
		return nil, err
	}
	c, err := sc.Card()
	if err != nil {
		return nil, cardError(path, err)
	}
	return c, nil
}

// scoreInSegments scores a large TREC run in segments, one a core; done is
// false when the run is not one to split (JSONL, small, one query).
func scoreInSegments(path string, sc *gate.Scorer) (done bool, err error) {
	f, err := input.Open(path)
	if err != nil {
		return false, nil // the ordinary path reports it
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, nil
	}
	cuts := trecSegments(f, info.Size(), segmentsFor())
	if cuts == nil {
		return false, nil
	}
	return true, scoreSegments(f, path, cuts, sc)
}

// scorePipelined parses the run on one goroutine and scores on another,
// so a large run uses two cores; results keep their order.
func scorePipelined(path string, sc *gate.Scorer) (gate.RunMeta, error) {
	const depth = 8
	free := make(chan []gate.Hit, depth)
	for i := 0; i < depth; i++ {
		free <- nil
	}
	work := make(chan gate.Result, depth)
	done := make(chan error, 1)
	go func() {
		var err error
		for r := range work {
			if err == nil {
				err = sc.Add(r)
			}
			free <- r.Hits[:0]
		}
		done <- err
	}()
	meta, rerr := ReadRunFile(path, func(r gate.Result) error {
		buf := append(<-free, r.Hits...)
		work <- gate.Result{ID: r.ID, Hits: buf, Line: r.Line, Context: r.Context, Abstain: r.Abstain}
		return nil
	})
	close(work)
	if err := <-done; rerr == nil {
		rerr = err
	}
	return meta, rerr
}

// cardError wraps an error of Card as the run file's, unless it is the spill's.
func cardError(path string, err error) error {
	var se *gate.SpillError
	if errors.As(err, &se) {
		return err
	}
	return &gate.InputError{File: path, Err: err}
}
