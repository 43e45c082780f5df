package gate

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// MaxGrade is the highest relevance grade a gold label may carry.
const MaxGrade = 3

// Query is one frozen query of the eval set with its document-level gold labels.
type Query struct {
	// ID identifies the query across runs and reports.
	ID string
	// Text is what the user typed; empty for sets loaded from TREC qrels.
	Text string
	// Gold maps a document id to its grade, 0–3; relevant means grade > 0.
	Gold map[string]int
	// Segments are user-declared groups such as "keyword" or "known-failure".
	Segments []string
	// Source says where the query came from: "log", "ticket", "synthetic", ….
	Source string
	// Evidence lists facts the final context must contain.
	Evidence []string
	// Unanswerable marks a query whose answer is not in the corpus; it has no
	// relevant gold document and is kept out of the document metrics.
	Unanswerable bool
	// Note is a free-form remark for the people who keep the set (sample
	// writes where the query came from).
	Note string
	// Notes are each labeller's own remarks (labeller → note), kept apart
	// from Note and from each other, so a second labeller stays blind.
	Notes map[string]string
	// OnlyZero marks a TREC qrels query whose judgements are all grade 0:
	// qrels cannot say "unanswerable", so it is kept apart as one, and
	// counts as 0 in the trec_eval means (Summary.TrecEval).
	OnlyZero bool
	// Verified is the day the labels were last checked by a person (zero
	// when not given).
	Verified time.Time
	// Judgments keeps each labeller's own grades (labeller → doc → grade,
	// 0 included: judged not relevant), so two people's labels can be
	// compared; Gold holds the grades the set uses.
	Judgments map[string]map[string]int
	// Marks are each labeller's own unanswerable/unsure marks, dates and
	// times per judgement (labeller → mark).
	Marks map[string]*Mark
	// Adjudicated holds the grades decided where labellers disagreed
	// (document → decision); they win over the labellers' grades.
	Adjudicated map[string]Adjudication
	// Judges are the grades judge programs gave (judge name, without
	// JudgePrefix → its record), kept apart from Judgments: a judge is no
	// person, its grades never count as judged nor derive gold unless a
	// policy applies them (gate/judge). The file keeps them as the
	// labeller JudgePrefix+name of "judgments" and "labellers".
	Judges map[string]*JudgeGrades
	// FoundBySearch lists documents a labeller found by searching the
	// corpus, outside every retriever's pool: evidence that all of them
	// miss it.
	FoundBySearch []string
	// Line is the line of the set file the query was read from (its first
	// line, for qrels).
	Line int

	relevant  int       // number of gold docs with grade > 0
	idealDCGs []float64 // idealDCGs[k-1] is the ideal DCG at depth k
	sections  bool      // the gold names sections ("doc#anchor")
	lookup    SectionLookup
}

// Relevant returns the number of relevant (grade > 0) gold documents.
func (q *Query) Relevant() int { return q.relevant }

// RelevantDocs returns the relevant gold document ids, highest grade first,
// then by id.
func (q *Query) RelevantDocs() []string {
	docs := make([]string, 0, q.relevant)
	for d, g := range q.Gold {
		if g > 0 {
			docs = append(docs, d)
		}
	}
	q.sortByGrade(docs)
	return docs
}

// sortByGrade orders doc ids by descending gold grade, then by id.
func (q *Query) sortByGrade(docs []string) {
	sort.Slice(docs, func(i, j int) bool {
		gi, gj := q.Gold[docs[i]], q.Gold[docs[j]]
		if gi != gj {
			return gi > gj
		}
		return docs[i] < docs[j]
	})
}

// idealDCG is the DCG of the best possible ranking cut to k.
func (q *Query) idealDCG(k int) float64 {
	if k <= 0 || len(q.idealDCGs) == 0 {
		return 0
	}
	if k > len(q.idealDCGs) {
		k = len(q.idealDCGs)
	}
	return q.idealDCGs[k-1]
}

// prepare derives the cached counts used by scoring.
func (q *Query) prepare() {
	grades := make([]int, 0, len(q.Gold))
	q.relevant = 0
	q.sections = false
	for k, g := range q.Gold {
		if g > 0 {
			q.relevant++
		}
		grades = append(grades, g)
		if IsSectionLabel(k) {
			q.sections = true
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	q.idealDCGs = make([]float64, len(grades))
	sum := 0.0
	for i, g := range grades {
		sum += float64(g) / math.Log2(float64(i+2))
		q.idealDCGs[i] = sum
	}
}

// Set is a frozen, hand-labelled evaluation set, in file order.
type Set struct {
	// Path is the file the set was read from, as given.
	Path string
	// Format is "jsonl" or "qrels".
	Format string
	// Queries are in file order (order of first appearance, for qrels).
	Queries []*Query
	// Fingerprint is "sha256:" and the hex SHA-256 of the file's bytes.
	Fingerprint string
	// Warnings say what reading the set had to assume (qrels queries
	// judged only grade 0).
	Warnings []string

	byID map[string]*Query
}

// Query returns the query with the given id, or nil.
func (s *Set) Query(id string) *Query { return s.byID[id] }

// Answerable returns the number of queries not marked unanswerable.
func (s *Set) Answerable() int {
	n := 0
	for _, q := range s.Queries {
		if !q.Unanswerable {
			n++
		}
	}
	return n
}

// Shard returns the set restricted to shard i of n (1-based): the queries
// at positions i-1, i-1+n, i-1+2n, … The shard keeps the set's fingerprint.
func (s *Set) Shard(i, n int) (*Set, error) {
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %d/%d: want 1 ≤ i ≤ n", i, n)
	}
	out := &Set{Path: s.Path, Format: s.Format, Fingerprint: s.Fingerprint, byID: map[string]*Query{}}
	for k, q := range s.Queries {
		if k%n == i-1 {
			out.add(q)
		}
	}
	return out, nil
}

// Only is the set with just the queries keep accepts (the same
// fingerprint: it is a view of one file), and the ids it left out, in set
// order.
func (s *Set) Only(keep func(id string) bool) (*Set, []string) {
	out := &Set{Path: s.Path, Format: s.Format, Fingerprint: s.Fingerprint, Warnings: s.Warnings, byID: map[string]*Query{}}
	var left []string
	for _, q := range s.Queries {
		if keep(q.ID) {
			out.add(q)
		} else {
			left = append(left, q.ID)
		}
	}
	return out, left
}

// Prepare recomputes what scoring derives from the gold labels, after a
// caller changed them (the labelling tool).
func (q *Query) Prepare() { q.prepare() }
