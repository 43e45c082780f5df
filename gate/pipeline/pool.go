package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/label"
	"github.com/recallgate/recallgate/gate/report"
)

// OldestVerified picks n queries, the oldest "verified" first (never
// verified before all), ties in a seeded random order.
func OldestVerified(set *gate.Set, n int, seed uint64) []string {
	qs := append([]*gate.Query(nil), set.Queries...)
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].Verified.Before(qs[j].Verified) })
	var ids []string
	for _, q := range qs[:min(n, len(qs))] {
		ids = append(ids, q.ID)
	}
	return ids
}

// ReverifyPick is reverify's choice of queries: the n verified longest
// ago (OldestVerified), each said on stderr first (DescribeOldest).
func ReverifyPick(e *Env, n int, seed uint64) func(*gate.Set) []string {
	return func(set *gate.Set) []string {
		ids := OldestVerified(set, n, seed)
		for _, l := range DescribeOldest(set, ids, e.Clock()) {
			fmt.Fprintf(e.Stderr, "recallgate reverify: %s\n", l)
		}
		return ids
	}
}

// DescribeOldest says, one line a query, what reverify picked: the id,
// when it was last verified and how long ago (days before now), who
// judged it, and how many gold documents it has, so the person knows
// what they are confirming before the page opens.
func DescribeOldest(set *gate.Set, ids []string, now time.Time) []string {
	byID := map[string]*gate.Query{}
	for _, q := range set.Queries {
		byID[q.ID] = q
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var out []string
	for _, id := range ids {
		q := byID[id]
		if q == nil {
			continue
		}
		when := "never verified"
		if !q.Verified.IsZero() {
			when = fmt.Sprintf("verified %s (%d days ago)", q.Verified.Format("2006-01-02"), int(today.Sub(q.Verified).Hours()/24))
		}
		var who []string
		for l := range q.Judgments {
			who = append(who, l)
		}
		sort.Strings(who)
		by := "no labeller recorded"
		if len(who) > 0 {
			by = "judged by " + strings.Join(who, ", ")
		}
		relevant := 0
		for _, g := range q.Gold {
			if g > 0 {
				relevant++
			}
		}
		docs := "documents"
		if relevant == 1 {
			docs = "document"
		}
		out = append(out, fmt.Sprintf("%s  %s, %s, %d relevant gold %s: %s", id, when, by, relevant, docs, q.Text))
	}
	return out
}

// Pool retrieves the set with every retriever of the config and of
// each pool config, and gathers each query's documents: the union of each
// retriever's top depth documents, with their passages and, when the corpus
// is known, title and whole text. For a query whose gold names sections
// (the set given the corpus's sections, gate.Set.PlaceSections) the pool
// holds the sections its hits count for, as the gate scores them, each
// shown with its heading and text. A retriever that fails stops it, named.
func Pool(ctx context.Context, e *Env, cfg *config.Config, extra []string, set *gate.Set, depth int, doc DocText) (map[string][]label.Candidate, error) {
	type source struct {
		cfg  *config.Config
		side string
	}
	var sources []source
	add := func(c *config.Config) {
		if c.Base == nil {
			return
		}
		sources = append(sources, source{c, "base"})
		if c.Head != c.Base {
			sources = append(sources, source{c, "head"})
		}
	}
	add(cfg)
	for _, p := range extra {
		c, err := config.Load(p)
		if err != nil {
			return nil, fmt.Errorf("--pool-config: %w", err)
		}
		if c.Base == nil {
			return nil, &gate.InputError{File: p, Field: "retriever", Err: errors.New("a pool config needs a retriever")}
		}
		add(c)
	}
	if len(sources) == 0 {
		return nil, &gate.InputError{File: cfg.Path, Field: "retriever", Err: errors.New("no retriever to pool from: add [retriever] or --pool-config")}
	}
	texts := map[string]map[string][]string{} // query → doc → passages
	var order = map[string][]string{}         // query → docs in first-seen order
	for _, src := range sources {
		runs, err := Retrieve(ctx, e, src.cfg, set, []string{src.side}, depth, 1)
		if err == nil {
			err = runs[src.side].Err
		}
		if err != nil {
			return nil, fmt.Errorf("pool from %s (%s side): %w", src.cfg.Path, src.side, err)
		}
		for _, res := range runs[src.side].First() {
			if texts[res.ID] == nil {
				texts[res.ID] = map[string][]string{}
			}
			seen := map[string]bool{}
			hits := res.Hits
			if q := set.Query(res.ID); q != nil {
				hits = q.Placed(hits)
			}
			for _, h := range hits {
				if !seen[h.Doc] && len(seen) == depth {
					break
				}
				if _, ok := texts[res.ID][h.Doc]; !ok {
					order[res.ID] = append(order[res.ID], h.Doc)
				}
				seen[h.Doc] = true
				if h.Text != "" {
					texts[res.ID][h.Doc] = append(texts[res.ID][h.Doc], h.Text)
				} else if texts[res.ID][h.Doc] == nil {
					texts[res.ID][h.Doc] = []string{}
				}
			}
		}
	}
	pool := map[string][]label.Candidate{}
	for qid, ds := range order {
		for _, d := range ds {
			pool[qid] = append(pool[qid], doc.candidate(d, texts[qid][d]))
		}
	}
	return pool, nil
}

// PoolFromReport reads a compare report and returns, as the pool, exactly
// the query–document pairs it lists as new and unjudged in the head's
// context, with the head's passages and the corpus text (a section's
// heading and text for a section the report names, "doc#anchor"); only
// lists their queries in report order.
func PoolFromReport(path string, set *gate.Set, doc DocText) (map[string][]label.Candidate, []string, error) {
	if _, err := gate.CheckInputFile(path); err != nil {
		return nil, nil, &gate.InputError{File: path, Err: fmt.Errorf("--from-report: %w", err)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &gate.InputError{File: path, Err: fmt.Errorf("--from-report: %w", err)}
	}
	defer f.Close()
	rep, err := report.ReadCompareReport(f, path)
	if err != nil {
		return nil, nil, err
	}
	if !rep.Unjudged.Known {
		return nil, nil, &gate.InputError{File: path, Field: "unjudged", Err: errors.New("the report's set records no judgements (gold only), so it cannot say which documents are unjudged: label the set without --from-report")}
	}
	if len(rep.Unjudged.New) == 0 {
		return nil, nil, &gate.InputError{File: path, Field: "unjudged", Err: errors.New("the report lists no unjudged documents in the head's context: nothing to label")}
	}
	heads := map[string]map[string]string{}
	for _, q := range rep.Queries {
		heads[q.ID] = q.Head.Passages
	}
	pool := map[string][]label.Candidate{}
	var only []string
	for _, u := range rep.Unjudged.New {
		if set.Query(u.ID) == nil {
			return nil, nil, &gate.InputError{File: path, Field: "unjudged", Err: fmt.Errorf("query %q is not in %s: was the report made on another set?", gate.ClipID(u.ID), set.Path)}
		}
		only = append(only, u.ID)
		for _, d := range u.Docs {
			texts := []string{}
			if p := heads[u.ID][d]; p != "" {
				texts = append(texts, p)
			}
			pool[u.ID] = append(pool[u.ID], doc.candidate(d, texts))
		}
	}
	return pool, only, nil
}

// DocText returns what the labelling page shows of an id: a document's
// title and whole text, or, for a section ("doc#anchor"), its heading and
// the section's text; ok false for an id the corpus does not hold, and
// for every id when no corpus is known (a nil DocText).
type DocText func(id string) (title, text string, ok bool)

// candidate is the pool's entry for id: the retrievers' passages, then the
// corpus's title and text when it holds id.
func (f DocText) candidate(id string, texts []string) label.Candidate {
	c := label.Candidate{Doc: id, Texts: texts}
	if f == nil {
		return c
	}
	if title, text, ok := f(id); ok {
		c.Title = title
		c.Texts = append(c.Texts, text)
	}
	return c
}

// Pairs counts the query–document pairs of a pool.
func Pairs(pool map[string][]label.Candidate) int {
	n := 0
	for _, cs := range pool {
		n += len(cs)
	}
	return n
}
