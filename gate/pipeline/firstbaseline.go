package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
)

// writesNamedBaseline is the reviewed baseline of a gate run that writes
// (--write-baseline target) the very baseline run its config names
// (given's baseline key) while the policy's config names a file that does
// not exist yet: the first baseline, before it was ever committed. The
// rule max_baseline_drop is then skipped, saying why, rather than refusing
// the run that would make the file. nil otherwise: the reviewed baseline
// is read as ever (an existing one holds the head even while it is
// rewritten).
func writesNamedBaseline(given, policy *config.Config, th gate.Thresholds, b *BaseSide, target string) *gate.ReviewedBaseline {
	if th.MaxBaselineDrop == nil || target == "" || given == nil || given.Baseline == "" {
		return nil
	}
	want, err1 := filepath.Abs(given.Baseline)
	got, err2 := filepath.Abs(target)
	if err1 != nil || err2 != nil || want != got {
		return nil
	}
	named := policy.Baseline
	if b != nil {
		if !b.own {
			return nil // skipped already: the base commit has no config
		}
		named = b.cfg.Baseline
	}
	if named == "" {
		return nil
	}
	if _, err := os.Lstat(named); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return &gate.ReviewedBaseline{Skipped: "this run writes the baseline run the config names (--write-baseline), which does not exist yet: review it and commit it; the rule holds the next run against it"}
}
