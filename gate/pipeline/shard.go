package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/setfile"
)

// MergeOptions are the choices of one `merge` run.
type MergeOptions struct {
	// Set is the eval set the shards were retrieved for; Out the merged
	// run to write (by atomicfile's rules: "-" is stdout).
	Set, Out string
	// Shards are the shard runs of `retrieve --shard i/n`.
	Shards []string
}

// MergeShards joins the shard runs into one run of the set
// (runfile.MergeShards: overlaps and gaps refused), writes it to o.Out and
// says so on e.Stderr.
func MergeShards(e *Env, o MergeOptions) error {
	set, err := setfile.Load(o.Set)
	if err != nil {
		return err
	}
	results, err := runfile.MergeShards(set, o.Shards)
	if err != nil {
		return err
	}
	if err := WriteRunTo(e.Streams(), o.Out, results, gate.RunMeta{Set: set.Fingerprint}); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "recallgate: merged %d shards, %d queries, into %s\n", len(o.Shards), len(results), o.Out)
	return nil
}

// parseShard reads a shard "i/n" (1 ≤ i ≤ n); "" is 0, 0: the whole set.
func parseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("wants i/n with 1 ≤ i ≤ n, got %q", s)
	}
	return i, n, nil
}
