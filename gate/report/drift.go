package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
)

// BaselineInfo is what a drift run found comparing the inputs its baseline
// recorded with today's: what changed (the likely cause of any drift), the
// queries not compared, the commits since, and what could not be told.
type BaselineInfo struct {
	// Changed are the inputs whose fingerprint differs.
	Changed []InputChangeInfo `json:"changed"`
	// Unrecorded are inputs the baseline recorded no fingerprint of.
	Unrecorded []string `json:"unrecorded"`
	// Commit and Made are the commit and time the baseline was made at.
	Commit string `json:"commit,omitempty"`
	Made   string `json:"made,omitempty"`
	// Corpus says how the corpus changed, when the baseline could tell.
	Corpus *CorpusChangeInfo `json:"corpus,omitempty"`
	// NewQueries and EditedQueries were not compared: new since the
	// baseline, or their text changed. RemovedQueries counts the
	// baseline's queries today's set lacks.
	NewQueries     []string `json:"new_queries,omitempty"`
	EditedQueries  []string `json:"edited_queries,omitempty"`
	RemovedQueries int      `json:"removed_queries,omitempty"`
	// Commits touched an input since the baseline's commit, newest first;
	// MoreCommits says older ones were left out.
	Commits     []CommitInfo `json:"commits,omitempty"`
	MoreCommits bool         `json:"more_commits,omitempty"`
	// Lacks are what the baseline or the checkout could not tell.
	Lacks []string `json:"lacks,omitempty"`
}

// CorpusChangeInfo is how the corpus changed since the baseline: counts of
// documents added, removed and edited, and the gold documents among them.
type CorpusChangeInfo struct {
	Added       int      `json:"added"`
	Removed     int      `json:"removed"`
	Edited      int      `json:"edited"`
	GoldAdded   []string `json:"gold_added"`
	GoldRemoved []string `json:"gold_removed"`
	GoldEdited  []string `json:"gold_edited"`
}

// CommitInfo is one commit since the baseline's: short hash and subject.
type CommitInfo struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject"`
}

var shortCommit = regexp.MustCompile(`^[0-9a-f]{4,64}$`)

func baselineInfo(b *gate.BaselineCheck) *BaselineInfo {
	if b == nil {
		return nil
	}
	out := &BaselineInfo{Changed: []InputChangeInfo{}, Unrecorded: list(b.Unrecorded), Commit: b.Commit, Made: b.Made,
		NewQueries: b.NewQueries, EditedQueries: b.EditedQueries, RemovedQueries: b.RemovedQueries, MoreCommits: b.MoreCommits, Lacks: b.Lacks}
	for _, ch := range b.Changed {
		c := InputChangeInfo{Input: ch.Input, Baseline: ch.Baseline, Now: ch.Now}
		for _, f := range ch.Files {
			c.Files = append(c.Files, ChangedFileInfo{f.Path, f.Commit.SHA, f.Commit.Subject})
		}
		out.Changed = append(out.Changed, c)
	}
	if c := b.Corpus; c != nil {
		out.Corpus = &CorpusChangeInfo{c.Added, c.Removed, c.Edited, list(c.GoldAdded), list(c.GoldRemoved), list(c.GoldEdited)}
	}
	for _, c := range b.Commits {
		out.Commits = append(out.Commits, CommitInfo{c.SHA, c.Subject})
	}
	return out
}

// validate checks a baseline block read back.
func (b *BaselineInfo) validate() error {
	if b == nil {
		return nil
	}
	for i, c := range b.Changed {
		if !slices.Contains(gate.BaselineInputs, c.Input) || !fingerprintForm.MatchString(c.Baseline) || !fingerprintForm.MatchString(c.Now) {
			return fmt.Errorf("baseline.changed[%d]: want an input of %v and two sha256 hashes, got %q %q %q", i, gate.BaselineInputs, c.Input, c.Baseline, c.Now)
		}
		if len(c.Files) > maxChangedFiles {
			return fmt.Errorf("baseline.changed[%d].files: %d, more than %d", i, len(c.Files), maxChangedFiles)
		}
		for j, f := range c.Files {
			if !shortCommit.MatchString(f.SHA) {
				return fmt.Errorf("baseline.changed[%d].files[%d].sha %.80q is not a commit hash", i, j, f.SHA)
			}
			if err := plainAll(fmt.Sprintf("baseline.changed[%d].files[%d]", i, j), f.Path, f.Subject); err != nil {
				return err
			}
		}
	}
	for i, in := range b.Unrecorded {
		if !slices.Contains(gate.BaselineInputs, in) {
			return fmt.Errorf("baseline.unrecorded[%d] %q: want one of %v", i, in, gate.BaselineInputs)
		}
	}
	if b.Commit != "" && !IsCommitSHA(b.Commit) {
		return fmt.Errorf("baseline.commit %.80q is not a commit hash", b.Commit)
	}
	if b.Made != "" {
		if _, err := time.Parse(time.RFC3339, b.Made); err != nil {
			return fmt.Errorf("baseline.made %.80q is not a time (RFC 3339)", b.Made)
		}
	}
	if b.RemovedQueries < 0 {
		return fmt.Errorf("baseline.removed_queries %d is negative", b.RemovedQueries)
	}
	if err := plainAll("baseline.new_queries", b.NewQueries...); err != nil {
		return err
	}
	if err := plainAll("baseline.edited_queries", b.EditedQueries...); err != nil {
		return err
	}
	if c := b.Corpus; c != nil {
		if c.Added < 0 || c.Removed < 0 || c.Edited < 0 {
			return fmt.Errorf("baseline.corpus: negative counts %d %d %d", c.Added, c.Removed, c.Edited)
		}
		if err := plainAll("baseline.corpus", append(append(append([]string{}, c.GoldAdded...), c.GoldRemoved...), c.GoldEdited...)...); err != nil {
			return err
		}
	}
	if len(b.Commits) > gate.MaxBaselineCommits {
		return fmt.Errorf("baseline.commits: %d, more than %d", len(b.Commits), gate.MaxBaselineCommits)
	}
	for i, c := range b.Commits {
		if !shortCommit.MatchString(c.SHA) {
			return fmt.Errorf("baseline.commits[%d].sha %.80q is not a commit hash", i, c.SHA)
		}
		if err := plain(fmt.Sprintf("baseline.commits[%d].subject", i), c.Subject); err != nil {
			return err
		}
	}
	return plainAll("baseline.lacks", b.Lacks...)
}

// maxChangedFiles bounds the files a report read back names per input.
const maxChangedFiles = 64

// changeText says one changed input; the corpus how, when known; the
// retriever by the files that changed and the commit, when known (esc
// escapes a path or subject for the format).
func (b *BaselineInfo) changeText(c InputChangeInfo, esc func(string) string) string {
	if c.Input == gate.InputRetriever && len(c.Files) > 0 {
		fs := make([]string, len(c.Files))
		for i, f := range c.Files {
			fs[i] = fmt.Sprintf("%s changed in %s (%s)", esc(f.Path), esc(f.SHA), esc(f.Subject))
		}
		return "retriever (" + strings.Join(fs, "; ") + ")"
	}
	id := esc
	if c.Input != gate.InputCorpus || b.Corpus == nil {
		return gate.InputChange{Input: c.Input, Baseline: c.Baseline, Now: c.Now}.String()
	}
	k := b.Corpus
	s := fmt.Sprintf("corpus (%d %s added, %d removed, %d edited", k.Added, plural(k.Added, "document", "documents"), k.Removed, k.Edited)
	for _, g := range []struct {
		what string
		ids  []string
	}{{"added", k.GoldAdded}, {"removed", k.GoldRemoved}, {"edited", k.GoldEdited}} {
		if len(g.ids) > 0 {
			s += "; gold " + g.what + ": " + joinIDs(g.ids, 10, id)
		}
	}
	return s + ")"
}

// joinIDs is the first n ids rendered by id, and how many more.
func joinIDs(ids []string, n int, id func(string) string) string {
	out := mapIDs(ids[:min(len(ids), n)], id)
	s := strings.Join(out, ", ")
	if len(ids) > n {
		s += fmt.Sprintf(" and %d more", len(ids)-n)
	}
	return s
}

// baselineHeadline says, for a drift run, which inputs changed since the
// baseline (the likely cause of any drift), and what the baseline did not
// record; "" when neither. id renders a document id for the format.
func baselineHeadline(r *CompareReport, id func(string) string) string {
	b := r.Baseline
	if b == nil {
		return ""
	}
	var parts []string
	if len(b.Changed) > 0 {
		cs := make([]string, len(b.Changed))
		for i, c := range b.Changed {
			cs[i] = b.changeText(c, id)
		}
		parts = append(parts, "changed since the baseline (the likely cause): "+strings.Join(cs, "; "))
	}
	switch {
	case slices.Contains(b.Unrecorded, gate.InputSet):
		parts = append(parts, "the baseline records no fingerprints (it was not written by gate --write-baseline): a change of "+strings.Join(b.Unrecorded, ", ")+" is not checked")
	case slices.ContainsFunc(b.Lacks, func(l string) bool { return strings.HasPrefix(l, gate.PlainBaseline) }):
		what := "the commits since are"
		if len(b.Unrecorded) > 0 {
			what = "a change of the " + strings.Join(b.Unrecorded, ", ") + " and the commits since are"
		}
		parts = append(parts, "the baseline was written by retrieve (or --save-runs): no policy or commit recorded, so "+what+" not checked")
	case len(b.Unrecorded) > 0:
		parts = append(parts, "the baseline records no fingerprint of the "+strings.Join(b.Unrecorded, ", ")+": a change there is not checked")
	}
	if n := len(b.NewQueries) + len(b.EditedQueries); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not compared", n, plural(n, "query", "queries")))
	}
	if n := len(b.Commits); n > 0 {
		more := ""
		if b.MoreCommits {
			more = "+"
		}
		parts = append(parts, fmt.Sprintf("%d%s %s since the baseline touched them", n, more, plural(n, "commit", "commits")))
	}
	return strings.Join(parts, " · ")
}

// baselineLines say, one line each, what the baseline was, the queries not
// compared, the commits since that touched an input (newest first) and
// what could not be told; esc escapes prose, id renders an id.
func baselineLines(r *CompareReport, esc, id func(string) string) []string {
	b := r.Baseline
	if b == nil {
		return nil
	}
	var out []string
	switch {
	case b.Commit != "" && b.Made != "":
		out = append(out, fmt.Sprintf("baseline made at commit %s on %s", id(b.Commit[:min(12, len(b.Commit))]), b.Made))
	case b.Commit != "":
		out = append(out, fmt.Sprintf("baseline made at commit %s", id(b.Commit[:min(12, len(b.Commit))])))
	case b.Made != "":
		out = append(out, "baseline made on "+b.Made)
	}
	if n := len(b.NewQueries); n > 0 {
		out = append(out, fmt.Sprintf("not compared: %d %s new since the baseline: %s", n, plural(n, "query", "queries"), joinIDs(b.NewQueries, 20, id)))
	}
	if n := len(b.EditedQueries); n > 0 {
		out = append(out, fmt.Sprintf("not compared: %d %s whose text changed since the baseline: %s", n, plural(n, "query", "queries"), joinIDs(b.EditedQueries, 20, id)))
	}
	if n := b.RemovedQueries; n > 0 {
		out = append(out, fmt.Sprintf("%d %s of the baseline no longer in the set", n, plural(n, "query", "queries")))
	}
	if len(b.Commits) > 0 {
		s := fmt.Sprintf("commits since the baseline's that touched the config, the set, the corpus or the retriever's files (newest first%s):", map[bool]string{true: ", the newest " + fmt.Sprint(len(b.Commits)), false: ""}[b.MoreCommits])
		for _, c := range b.Commits {
			s += "\n" + id(c.SHA) + " " + esc(c.Subject)
		}
		out = append(out, s)
	} else if b.Commit != "" && !slices.ContainsFunc(b.Lacks, func(l string) bool { return strings.HasPrefix(l, "the commits since") }) {
		out = append(out, "no commit since the baseline's touched the config, the set, the corpus or the retriever's files")
	}
	for _, l := range b.Lacks {
		out = append(out, "not known: "+esc(l))
	}
	return out
}
