package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/basetree"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/setfile"
	"github.com/recallgate/recallgate/internal/confine"
	"github.com/recallgate/recallgate/internal/gitexec"
)

// BaseSide is the base side of a comparison run from another commit's
// whole tree: its config parsed where it stands in that tree, so the
// corpus, the command's working folder and file runs all come from it.
type BaseSide struct {
	Tree *basetree.Tree
	cfg  *config.Config
	// own says the base commit has its own config (else cfg is the
	// head's text read in the base tree).
	own bool
	// name is the base config as reports name it (path@commit);
	// movedFrom its path at the base commit when the change moved,
	// renamed or linked it ("" otherwise).
	name, movedFrom string
	// notes say what was compared, for the report.
	Notes []string
}

// BaseOptions are what OpenBase needs besides the head's config.
type BaseOptions struct {
	// Ref is the base commit or ref.
	Ref string
	// Workspace is GITHUB_WORKSPACE in a job ("" on a laptop): paths must stay in the tree.
	Workspace string
	// Archive downloads the commit when git cannot give it; nil means git only.
	Archive basetree.ArchiveSource
	// TempDir is where the tree is made ("" = the system's).
	TempDir string
	// PolicyOnly reads the base commit's config for its policy alone (run
	// files compared, nothing retrieved): a config without a retriever
	// table is then no error.
	PolicyOnly bool
}

// OpenBase materialises the base commit and loads the head config's
// counterpart in it. The caller must close the tree. With no config at that
// path in the base commit (recallgate is new in the change), the head's
// config text is read in the base tree instead, with a warning.
func OpenBase(ctx context.Context, e *Env, head *config.Config, set *gate.Set, o BaseOptions) (*BaseSide, error) {
	cfgAbs, err := filepath.Abs(head.Path)
	if err != nil {
		return nil, err
	}
	tree, err := basetree.Open(ctx, basetree.Options{
		Dir: filepath.Dir(cfgAbs), Ref: o.Ref, Root: o.Workspace, TempDir: o.TempDir, Archive: o.Archive,
		Warn: func(s string) { e.Warn("%s", s) }, Note: func(s string) { e.Note("%s", s) },
	})
	if err != nil {
		return nil, gate.AtStage(gate.StageBaseTree, "base", err)
	}
	b := &BaseSide{Tree: tree}
	if err := b.load(e, head, cfgAbs, set, o); err != nil {
		tree.Close()
		return nil, b.Named(gate.AtStage(gate.StageConfig, "base", baseConfigError{err}))
	}
	return b, nil
}

// Named is err with every path of the temporary base tree in its message
// named as the repository does: "<path> (base commit <short sha>)" (the
// tree is gone once the job ends, and its folder says nothing). Its chain
// is err's.
func (b *BaseSide) Named(err error) error {
	if err == nil || b == nil || b.Tree == nil {
		return err
	}
	msg := err.Error()
	dir := b.Tree.Dir
	if !strings.Contains(msg, dir) {
		return err
	}
	at := regexp.MustCompile(regexp.QuoteMeta(dir) + `(?:` + regexp.QuoteMeta(string(filepath.Separator)) + `[^\s:"',;()]*)?`)
	msg = at.ReplaceAllStringFunc(msg, func(m string) string {
		rel := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(m, dir), string(filepath.Separator)))
		if rel == "" {
			rel = "."
		}
		return rel + " (base commit " + ShortSHA(b.Tree.Commit) + ")"
	})
	return &renamedError{error: err, msg: msg}
}

// renamedError is an error with its message said another way.
type renamedError struct {
	error
	msg string
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.error }

// baseConfigError is a base commit that is there but whose config is
// refused: its fix is about that config (the policy the change is judged
// by), never the base tree's "make the base commit reachable".
type baseConfigError struct{ error }

func (e baseConfigError) Unwrap() error { return e.error }

// Fix implements gate.FixError.
func (e baseConfigError) Fix() string {
	return "the base commit's config (the policy this change is judged by) is refused as named above: fix it on the base branch first, or run the recallgate release that wrote it"
}

func (b *BaseSide) load(e *Env, head *config.Config, cfgAbs string, set *gate.Set, o BaseOptions) error {
	short := ShortSHA(b.Tree.Commit)
	pf, err := findPolicyFile(b.Tree, head.Path)
	if err != nil {
		return err
	}
	// Name the file as the reader knows it, not the temporary tree (gone
	// once the job ends).
	b.name = head.Path + "@" + short
	var bcfg *config.Config
	if pf.At != "" {
		if pf.Moved {
			b.name, b.movedFrom = pf.Rel+"@"+short, pf.Rel
		}
		// Its relative paths resolve from its own folder as the base tree
		// names it (a config that is a link resolves from the link's folder,
		// as the head's does).
		bcfg, err = config.Load(pf.At)
	} else {
		judged := "the base side runs the head's config in the base commit's tree"
		if o.PolicyOnly {
			judged = "the head's config judges the run files"
		}
		e.Warn("%s does not exist at the base commit %s, and that commit has no recallgate config this change removed, moved or linked, nor one its workflows name: %s", head.Path, short, judged)
		data, rerr := gate.ReadInputFile(head.Path, "config", gate.MaxConfigBytes)
		if rerr != nil {
			return rerr
		}
		_, rel, _ := b.Tree.Named(cfgAbs)
		bcfg, err = config.Parse(data, filepath.Join(b.Tree.Dir, filepath.FromSlash(rel)))
	}
	if err != nil {
		if ie := new(gate.InputError); errors.As(err, &ie) && strings.HasPrefix(ie.File, b.Tree.Dir) {
			ie.File = b.name
		}
		return fmt.Errorf("config at the base commit %s: %w", short, err)
	}
	if bcfg.Base == nil && !o.PolicyOnly {
		return &gate.InputError{File: b.name, Field: "retriever", Err: errors.New("the base commit's config has no retriever")}
	}
	if o.Workspace != "" && bcfg.Base != nil {
		// Only what the base side reads: the set and thresholds are the head's.
		if err := InsideWorkspace(b.Tree.Dir, nil, bcfg.Base.Path, bcfg.Base.Corpus); err != nil {
			return &gate.InputError{File: b.name, Field: "retriever", Err: fmt.Errorf("the base commit's config must keep its paths inside its own tree: %w", err)}
		}
	}
	ownConfig := pf.At != ""
	b.cfg, b.own = bcfg, ownConfig
	switch {
	case pf.Moved:
		b.Notes = append(b.Notes, fmt.Sprintf("base side: the tree of commit %s (%s), with its own config, corpus and scripts: its config at %s, which this change moves or links (the job names %s); head side: this checkout", short, b.Tree.Via, pf.Rel, head.Path))
	case ownConfig:
		b.Notes = append(b.Notes, fmt.Sprintf("base side: the tree of commit %s (%s), with its own config, corpus and scripts; head side: this checkout", short, b.Tree.Via))
	default:
		b.Notes = append(b.Notes, fmt.Sprintf("base side: the tree of commit %s (%s) with its own corpus and scripts, but the head's config: %s does not exist at that commit; head side: this checkout", short, b.Tree.Via, filepath.Base(head.Path)))
	}
	return nil
}

// Sides returns the config to retrieve and judge with. With the base
// commit's own config, its policy rules: the thresholds (segment rules
// included), depths, repeats and max_waiver_days are the base's (and its
// corpus, where the head's config names none), and the base side is the
// base commit's retriever whatever tables the head has;
// the head side, the set, the waivers, the corpus and the cache stay the
// head's. Without one, the head's config rules, its base retriever run in
// the base tree.
func (b *BaseSide) Sides(head *config.Config) *config.Config {
	c := *head
	c.Base = b.cfg.Base
	// The base side's refusal rule is part of its pipeline, like its retriever.
	c.Refusal[0] = b.cfg.Refusal[0]
	if b.own {
		c.Thresholds, c.Depth, c.Repeats, c.MaxWaiverDays = b.cfg.Thresholds, b.cfg.Depth, b.cfg.Repeats, b.cfg.MaxWaiverDays
		// The judge whose grades may count is the base's, as its policy.
		// Its identity whole: the grade names and guideline its grades
		// were fingerprinted with are the base's too.
		c.Judge, c.GradeNames, c.Guideline = b.cfg.Judge, b.cfg.GradeNames, b.cfg.Guideline
		c.Thresholds.Segments = slices.Clone(c.Thresholds.Segments)
		for i := range c.Thresholds.Segments {
			// Name the rule's file as the reader knows it, not the temporary tree.
			c.Thresholds.Segments[i].File = b.name
		}
		// Whether a corpus judges the returned ids (an id it lacks is no
		// document) is policy too: a change whose config names none (it
		// dropped the corpus key, or swapped a builtin head for a run) is
		// judged against the base config's (its corpus key, or its builtin
		// head's), at that path in this checkout, so its made-up ids
		// cannot read as documents nobody judged; the base commit's own
		// when the change moved that folder away. A corpus the change
		// names is its documents, as a document it adds is.
		if p := b.cfg.SideCorpus("head"); p != "" && c.SideCorpus("head") == "" {
			c.Corpus = p
			if rel, ok := confine.Rel(b.Tree.Dir, p); ok {
				if at := filepath.Join(b.Tree.Head(), rel); there(at) {
					c.Corpus = at
				}
			}
		}
	}
	return &c
}

// Policy says which config judged and what head changes in it: with the
// base commit's own config, the keys head sets otherwise and the waivers
// it adds; without one, the given config.
func (b *BaseSide) Policy(head *config.Config) *gate.PolicyReport {
	if !b.own {
		return &gate.PolicyReport{Source: gate.PolicyGivenConfig, Commit: b.Tree.Commit}
	}
	return &gate.PolicyReport{Source: gate.PolicyBaseCommit, Commit: b.Tree.Commit, MovedFrom: b.movedFrom,
		Changes: config.PolicyChanges(b.cfg, head), WaiversAdded: head.AddedWaivers(b.cfg)}
}

// AddedWaivers are the head's waivers the base commit's config lacks
// (every one when the base commit has no config).
func (b *BaseSide) AddedWaivers(head *config.Config) []gate.Waiver {
	if !b.own {
		return head.AddedWaivers(nil)
	}
	return head.AddedWaivers(b.cfg)
}

// ShortSHA is a commit as reports show it: its first twelve characters
// (gitexec.Short).
func ShortSHA(s string) string { return gitexec.Short(s) }

// there reports whether path is in this checkout (as a file, a folder or
// a link).
func there(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// setChanges names, for the note on a changed set, the queries the base
// commit's set (at path) holds that the head's set drops, and those whose
// gold labels it changed: neither is judged as the base labelled it, so a
// reviewer must see which. "" when the base's set cannot be read or
// neither happened.
func setChanges(path string, head *gate.Set) string {
	base, err := setfile.Load(path)
	if err != nil {
		return ""
	}
	var removed, relabelled []string
	for _, q := range base.Queries {
		switch h := head.Query(q.ID); {
		case h == nil:
			removed = append(removed, q.ID)
		case !maps.Equal(h.Gold, q.Gold):
			relabelled = append(relabelled, q.ID)
		}
	}
	var out string
	for _, part := range []struct {
		what string
		ids  []string
	}{{"removed from the set", removed}, {"gold labels changed", relabelled}} {
		if len(part.ids) > 0 {
			clipped := make([]string, len(part.ids))
			for i, id := range part.ids {
				clipped[i] = gate.ClipID(id)
			}
			out += fmt.Sprintf("; %s: %s", part.what, gate.JoinFirst(clipped, 10))
		}
	}
	if out == "" {
		return ""
	}
	return out + " (not judged as the base commit labelled them: review them before merging)"
}
