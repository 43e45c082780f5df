package gate

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Hit is one retrieved chunk, in rank order within its Result.
type Hit struct {
	// Doc is the parent document id the gold labels refer to. Required.
	Doc string `json:"doc"`
	// Chunk is the retriever's own id of the passage, e.g. "security/api-keys#2".
	Chunk string `json:"chunk,omitempty"`
	// Score is the retriever's score; informative only, rank is the order.
	Score float64 `json:"score,omitempty"`
	// Text is the passage text, when the retriever returns it.
	Text string `json:"text,omitempty"`
	// Start and End are the passage's byte offsets in its document's
	// text (End exclusive), when the retriever gives them: they place it
	// in the document's sections (gate/section) before its text does.
	Start *int `json:"start,omitempty"`
	End   *int `json:"end,omitempty"`
	// Section is the anchor of the section the retriever says the
	// passage lies in, the last way to place it.
	Section string `json:"section,omitempty"`
}

// Result is the ranked list one query got from a retriever.
type Result struct {
	// ID is the query id, matching the eval set.
	ID string `json:"id"`
	// Hits are in rank order, best first.
	Hits []Hit `json:"hits"`
	// Line is where the result starts in its run file (0 when not from a file).
	Line int `json:"-"`
	// Latency is how long the retriever call took (0 when not timed).
	Latency time.Duration `json:"-"`
	// Queue is how long the call waited before its request was sent (a
	// free turn on the retriever's pipe, the rate limit); not in Latency.
	Queue time.Duration `json:"-"`
	// Context is the final context the pipeline handed the model, in
	// order, when its answer carried one: nil when it did not (recallgate
	// then packs its own from the hits), an empty non-nil slice when the
	// pipeline sent the model nothing.
	Context []Passage `json:"context,omitempty"`
	// Abstain is the pipeline's own refusal signal for the query: nil when
	// the answer carried none.
	Abstain *bool `json:"abstain,omitempty"`
}

// Passage is one passage of a pipeline's final context.
type Passage struct {
	// Doc is the parent document id, as in Hit. Required.
	Doc string `json:"doc"`
	// Chunk is the pipeline's own passage id.
	Chunk string `json:"chunk,omitempty"`
	// Text is the passage as the model read it.
	Text string `json:"text,omitempty"`
	// Tokens is the pipeline's own token count of the passage; nil when it
	// gave none.
	Tokens *int `json:"tokens,omitempty"`
}

// Answer is everything a retriever returned for one query.
type Answer struct {
	// Hits are in rank order, best first.
	Hits []Hit
	// Context and Abstain are as in Result.
	Context []Passage
	Abstain *bool
}

// RunMeta is the optional first line of a JSONL run that recallgate
// writes, {"recallgate":{"set":"sha256:…","config":"sha256:…"}}: the
// fingerprints of the eval set and the retriever config the run was made
// with, so a run is never scored against another set by mistake.
type RunMeta struct {
	Set    string `json:"set,omitempty"`
	Config string `json:"config,omitempty"`
	// Corpus is the content fingerprint of the corpus recallgate read for
	// the run (corpus.Fingerprint), when it could read one: a drift run
	// checks it against today's.
	Corpus string `json:"corpus,omitempty"`
	// Shard is "i/n" for a run of one shard of the queries.
	Shard string `json:"shard,omitempty"`
	// CacheKey is the run cache key the run was stored under, checked when
	// the cache reads it back: an entry renamed or copied to another key
	// is refused.
	CacheKey string `json:"cache_key,omitempty"`
	// What a drift baseline records besides the fingerprints (see
	// BaselineRecord): the policy's fingerprint, the commit and time it
	// was made at, each query's text hash and each document's content
	// hash (TextHash, corpus.DocHash).
	Policy  string            `json:"policy,omitempty"`
	Commit  string            `json:"commit,omitempty"`
	Made    string            `json:"made,omitempty"`
	Queries map[string]string `json:"queries,omitempty"`
	Docs    map[string]string `json:"docs,omitempty"`
}

// CheckSet refuses a run made on another eval set than s. A run is tied
// to what retrieval saw, not to the grades: one that records each query's
// text hash (Queries, see QueryHashes) is scored on a set whose file
// differs (relabelled, grades added) as long as every query of s is in it
// with the same text; otherwise the first query of s that differs is named.
func (m RunMeta) CheckSet(s *Set, run string) error {
	if m.Set == "" || m.Set == s.Fingerprint {
		return nil
	}
	if len(m.Queries) == 0 {
		return &InputError{File: run, Err: fmt.Errorf("this run was made on a different eval set (%s) than %s (%s): retrieve it again, or re-baseline", short(m.Set), s.Path, short(s.Fingerprint))}
	}
	for _, q := range s.Queries {
		h, ok := m.Queries[q.ID]
		switch {
		case !ok:
			return &InputError{File: run, Err: fmt.Errorf("this run was made for other queries than %s: its query %q is not in the run: retrieve it again", s.Path, ClipID(q.ID))}
		case h != TextHash(q):
			return &InputError{File: run, Err: fmt.Errorf("this run was made for other query texts than %s: query %q reads otherwise than when it was retrieved: retrieve it again", s.Path, ClipID(q.ID))}
		}
	}
	return nil
}

// QueryHashes maps each query of s to its TextHash: what a run records of
// what retrieval saw (the retrievers are given the id and the text).
func QueryHashes(s *Set) map[string]string {
	m := make(map[string]string, len(s.Queries))
	for _, q := range s.Queries {
		m[q.ID] = TextHash(q)
	}
	return m
}

func short(fp string) string {
	if len(fp) > 19 {
		return fp[:19]
	}
	return fp
}

// ContextError is a passage of a final context that breaks the protocol.
type ContextError struct {
	// Field is the key at fault, e.g. "context[2].doc"; Msg says why.
	Field, Msg string
}

// Error says the field at fault and why.
func (e *ContextError) Error() string { return e.Field + ": " + e.Msg }

// MaxPassageTokens bounds one passage's "tokens" (as the HTTP retriever
// does): a context's size, their sum, can then never wrap round.
const MaxPassageTokens = math.MaxInt32

// CheckContext applies the rules every final context obeys: each passage
// names its document, and a token count is not negative nor past
// MaxPassageTokens.
func CheckContext(ctx []Passage) *ContextError {
	for i, p := range ctx {
		if strings.TrimSpace(p.Doc) == "" {
			return &ContextError{Field: fmt.Sprintf("context[%d].doc", i), Msg: "passage without a document id"}
		}
		if p.Tokens != nil && *p.Tokens < 0 {
			return &ContextError{Field: fmt.Sprintf("context[%d].tokens", i), Msg: fmt.Sprintf("%d is negative", *p.Tokens)}
		}
		if p.Tokens != nil && *p.Tokens > MaxPassageTokens {
			return &ContextError{Field: fmt.Sprintf("context[%d].tokens", i), Msg: fmt.Sprintf("%d is too many tokens for one passage (at most %d)", *p.Tokens, MaxPassageTokens)}
		}
	}
	return nil
}
