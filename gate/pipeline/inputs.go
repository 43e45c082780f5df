package pipeline

import (
	"errors"
	"fmt"
	"math"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/bound"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/corpus"
	"github.com/recallgate/recallgate/gate/repeats"
	"github.com/recallgate/recallgate/gate/sethealth"
)

// inputs is what a comparison needs besides the two scorecards.
type Inputs struct {
	Policy       gate.Policy
	Health       []string
	Fingerprints [][2]string
	NoChart      bool
	// Name is the gate's name ([report] name).
	Name  string
	Notes []string
	// Warnings join the comparison's (DepthWarning).
	Warnings []string
}

// DepthWarning is the warning for candidates N that reach half the
// corpus of docs documents or more ("" below that, or with no corpus
// known): recall@N then finds nearly every gold document whatever the
// ranking, so a drop hides under it.
func DepthWarning(d gate.Depth, docs int) string {
	if docs == 0 || 2*d.Candidates < docs {
		return ""
	}
	return fmt.Sprintf("[depth] candidates = %d is half or more of the corpus's %d %s: recall@%d then finds nearly every gold document whatever the ranking, so it hides drops; lower candidates (to about a tenth of the corpus, %d) or gate on a larger corpus",
		d.Candidates, docs, gate.Plural(docs, "document", "documents"), d.Candidates, max(1, docs/10))
}

// readCorpus is the run's snapshot of the corpus at path (nil for "":
// none), read once per run (Env.Corpora); a read error is wrapped as
// "read corpus WHAT: …" ("" WHAT: as it is).
func readCorpus(e *Env, path, what string) (*corpus.Snapshot, error) {
	if path == "" {
		return nil, nil
	}
	snap, err := e.corpora().Get(path)
	if err != nil && what != "" {
		return nil, fmt.Errorf("read corpus %s: %w", what, err)
	}
	return snap, err
}

// BuildInputs checks the waivers against today, takes the corpus's ids
// and fingerprint from its snapshot (nil: no corpus known) and runs the
// eval-set health check.
func BuildInputs(e *Env, cfg *config.Config, th gate.Thresholds, set *gate.Set, snap *corpus.Snapshot) (*Inputs, error) {
	in := &Inputs{Policy: gate.Policy{Thresholds: th, Rules: bound.Rules}}
	ho := sethealth.Options{Now: e.Clock()}
	if cfg != nil {
		if err := cfg.ExpiredWaivers(e.Clock()); err != nil {
			return nil, err
		}
		in.Policy.Waivers = cfg.Waivers
		in.Policy.Refusal = cfg.Refusal
		ho.MaxLabelAge = cfg.MaxLabelAge
		in.NoChart = cfg.NoChart
		in.Name = cfg.Name
	}
	in.Fingerprints = append(in.Fingerprints, [2]string{"set", set.Fingerprint})
	if cfg != nil {
		in.Fingerprints = append(in.Fingerprints, [2]string{"config", FingerprintFile(cfg.Path)})
	}
	if snap != nil {
		// The ids for attribution and the data-quality list (relevant gold
		// the corpus lost), and the content hash.
		ids := snap.IDs()
		in.Policy.Corpus = ids
		in.Fingerprints = append(in.Fingerprints, [2]string{gate.InputCorpus, snap.Fingerprint})
		if cfg != nil {
			if w := DepthWarning(cfg.Depth, len(ids)); w != "" {
				in.Warnings = append(in.Warnings, w)
			}
		}
	}
	// The corpus check is the comparison's data-quality list, not health.
	in.Health = sethealth.Check(set, ho)
	return in, nil
}

// Fingerprint is the named input's fingerprint among pairs, "" when absent.
func Fingerprint(pairs [][2]string, name string) string {
	for _, p := range pairs {
		if p[0] == name {
			return p[1]
		}
	}
	return ""
}

// AddSides records each side's retriever table and corpus fingerprints
// and its latency.
func (in *Inputs) AddSides(runs map[string]SideRun) {
	for i, side := range []string{"base", "head"} {
		r, ok := runs[side]
		if !ok {
			continue
		}
		in.Policy.Latency[i] = r.Latency()
		if r.Config != "" {
			in.Fingerprints = append(in.Fingerprints, [2]string{side + "_retriever", r.Config})
		}
		if r.Corpus != "" {
			in.Fingerprints = append(in.Fingerprints, [2]string{side + "_corpus", r.Corpus})
		}
	}
}

// Stability reads what the repeats of each side say (see repeats.Stability).
// The base's repeats are the noise floor: the queries whose base results
// differ are kept out of the flips and the mean rules, and floor is the
// largest spread of mean recall@N between two base repeats. The head's
// repeats never excuse anything: the head scorecard to compare is the
// worst-of-repeats one, and the queries whose head results differ are
// marked head-unstable, so the verdict is at best inconclusive.
type Stability struct {
	// Base and Head are each side's repeats; Base is nil without a base
	// side in runs.
	Base, Head repeats.Stability
	// Floor is the base-vs-base spread of mean recall@N.
	Floor float64
}

// Repeats scores every repeat of each side in runs.
func Repeats(set *gate.Set, d gate.Depth, runs map[string]SideRun) (*Stability, error) {
	st := &Stability{}
	for _, side := range []string{"base", "head"} {
		r, ok := runs[side]
		if !ok {
			continue
		}
		var cards []*gate.Scorecard
		for _, res := range r.Results {
			c, err := gate.ScoreResults(set, res, d)
			if err != nil {
				return nil, fmt.Errorf("score %s: %w", side, err)
			}
			cards = append(cards, c)
		}
		rep := repeats.Compare(cards)
		if side == "head" {
			st.Head = rep
			continue
		}
		st.Base = rep
		for _, a := range cards {
			for _, b := range cards {
				st.Floor = math.Max(st.Floor, math.Abs(a.Summary.Recall-b.Summary.Recall))
			}
		}
	}
	return st, nil
}

// Apply puts the base's instability and the head's into the policy.
func (st *Stability) Apply(p *gate.Policy) {
	p.Unstable, p.BaseFewestFound, p.NoiseFloor = st.Base.Unstable, st.Base.FewestFound, st.Floor
	p.HeadUnstable = st.Head.Unstable
}

// IdenticalSides refuses a gate that cannot fail: both sides the same
// retriever configuration in the same tree. allow turns the refusal into a
// warning, for a deliberate self-check.
//
// oneTable is the fix for one [retriever] table (how to give the base side
// another tree); two identical tables are told to change one.
func IdenticalSides(e *Env, cfg *config.Config, allow bool, oneTable string) error {
	var what, fix string
	switch {
	case cfg.Base == nil || cfg.Head == nil:
		return nil
	case cfg.Base == cfg.Head:
		what, fix = "base and head are the same [retriever] in the same tree", oneTable
	case cfg.Base.Fingerprint() == cfg.Head.Fingerprint():
		what, fix = "[base.retriever] and [head.retriever] are identical", "change one of them; --allow-identical (the action's allow-identical input) runs it anyway"
	default:
		return nil
	}
	if allow {
		e.Warn("%s: %s: the gate compares the configuration with itself and cannot fail (allowed)", cfg.Path, what)
		return nil
	}
	return gate.AtStage(gate.StageConfig, "", identicalError{&gate.InputError{File: cfg.Path, Field: "retriever", Err: fmt.Errorf("%s, so this gate cannot fail: %s", what, fix)}, fix})
}

// ErrIdenticalSides is in the chain of IdenticalSides's refusal: the two
// sides are one retriever configuration in one tree.
var ErrIdenticalSides = errors.New("the two sides are one configuration")

// identicalError is IdenticalSides's refusal: an *gate.InputError that
// is ErrIdenticalSides.
type identicalError struct {
	*gate.InputError
	fix string
}

func (e identicalError) Is(target error) bool { return target == ErrIdenticalSides }
func (e identicalError) Unwrap() error        { return e.InputError }
func (e identicalError) Fix() string          { return e.fix }
