package pipeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/report"
)

// Export formats (ExportOptions.Format).
const (
	// ExportRagas is Ragas' EvaluationDataset JSONL: one SingleTurnSample
	// a line, as EvaluationDataset.from_jsonl reads it
	// (explodinggradients/ragas, src/ragas/dataset_schema.py): user_input
	// (the question), retrieved_contexts (the passages the model read),
	// reference_contexts (the gold documents' reference passages); no
	// reference (recallgate holds no reference answer). The sample model
	// ignores keys it does not know, so each line also carries "id" and a
	// "recallgate" object (see ExportMeta).
	ExportRagas = "ragas"
	// ExportDeepEval is DeepEval's goldens JSON: one array of test cases,
	// as EvaluationDataset.add_goldens_from_json_file reads it
	// (confident-ai/deepeval, deepeval/dataset/dataset.py; the fields of
	// LLMTestCase, https://deepeval.com/docs/evaluation-test-cases):
	// input (the question), retrieval_context (the passages the model
	// read), context (the gold documents' reference passages, DeepEval's
	// "ideal" context), name (the query id) and additional_metadata (see
	// ExportMeta); no actual_output or expected_output (the judge's run
	// supplies the answer, and recallgate holds no reference answer).
	ExportDeepEval = "deepeval"
)

// ExportOptions say what to export.
type ExportOptions struct {
	// Run is the run file (JSONL or TREC) whose contexts are exported.
	Run string
	// Format is ExportRagas or ExportDeepEval.
	Format string
	// Set and Config name the eval set and the config (its set, corpus
	// and [report] context_tokens), as LoadScoring reads them.
	Set, Config string
	// Out is the file to write (atomically), "" for w.
	Out string
}

// ExportMeta is what recallgate adds to each exported case: where its
// contexts came from, so the judge's numbers can be read against the gate's.
type ExportMeta struct {
	QueryID string `json:"query_id"`
	// ContextSource is "own" (the pipeline's final context, from the run's
	// "context") or "packed" (packed by recallgate from the hits' text
	// under ContextTokens words).
	ContextSource string `json:"context_source"`
	ContextTokens int    `json:"context_tokens,omitempty"`
	// ReferenceSource is "corpus" (the gold documents' text), "evidence"
	// (the set's required facts, without a corpus) or "none".
	ReferenceSource string `json:"reference_source"`
	// GoldDocs are the relevant gold documents, highest grade first;
	// MissingFromCorpus those the corpus does not hold.
	GoldDocs          []string `json:"gold_docs"`
	MissingFromCorpus []string `json:"missing_from_corpus,omitempty"`
	Unanswerable      bool     `json:"unanswerable,omitempty"`
	// Abstain is the pipeline's refusal signal, when the run carried one.
	Abstain *bool `json:"abstain,omitempty"`
}

type ragasCase struct {
	UserInput         string     `json:"user_input"`
	RetrievedContexts []string   `json:"retrieved_contexts"`
	ReferenceContexts []string   `json:"reference_contexts"`
	ID                string     `json:"id"`
	Recallgate        ExportMeta `json:"recallgate"`
}

type deepEvalCase struct {
	Input              string     `json:"input"`
	RetrievalContext   []string   `json:"retrieval_context"`
	Context            []string   `json:"context"`
	Name               string     `json:"name"`
	AdditionalMetadata ExportMeta `json:"additional_metadata"`
}

// exportCase is one query with its contexts, before formatting.
type exportCase struct {
	q          *gate.Query
	contexts   []string
	references []string
	meta       ExportMeta
}

// Export writes, per query of the set the run answers (in set order), the
// question, the final context the gate saw (the run's "context", else the
// hits packed under [report] context_tokens), the gold documents'
// reference passages (from the config's corpus, else the set's evidence)
// and the query id, in the format's field names. Set queries the run does
// not hold are left out with a warning; a run whose metadata line names
// another set is refused.
func Export(e *Env, o ExportOptions, w io.Writer) error {
	switch {
	case o.Run == "" || o.Format == "":
		return cli.Usagef("--run and --format are required")
	case o.Format != ExportRagas && o.Format != ExportDeepEval:
		return cli.Usagef("--format: unknown export format %q (want %s or %s)", o.Format, ExportRagas, ExportDeepEval)
	}
	s, err := LoadScoring(ScoringOptions{Config: o.Config, Set: o.Set})
	if err != nil {
		return err
	}
	set, budget, corpus := s.Set, s.Depth.ContextTokens, ""
	if s.Config != nil {
		corpus = CorpusFor("", s.Config)
	}
	if budget <= 0 {
		budget = gate.DefaultContextTokens
	}
	cases := map[string]*exportCase{}
	var unknown []string
	noText := true
	meta, err := gate.ReadRunFile(o.Run, func(r gate.Result) error {
		q := set.Query(r.ID)
		if q == nil {
			unknown = append(unknown, r.ID)
			return nil
		}
		if cases[q.ID] != nil {
			return &gate.InputError{File: o.Run, Line: r.Line, Field: "id", Err: fmt.Errorf("query %s has two results", q.ID)}
		}
		ps, src := gate.FinalPassages(r, budget)
		c := &exportCase{q: q, contexts: []string{}, references: []string{},
			meta: ExportMeta{QueryID: q.ID, ContextSource: src, GoldDocs: q.RelevantDocs(), Unanswerable: q.Unanswerable, Abstain: r.Abstain}}
		if src == gate.ContextPacked {
			c.meta.ContextTokens = budget
		}
		for _, p := range ps {
			c.contexts = append(c.contexts, p.Text)
			noText = noText && p.Text == ""
		}
		cases[q.ID] = c
		return nil
	})
	if err != nil {
		return err
	}
	// A run made on another set is refused, as compare refuses it: its
	// contexts would go with the wrong questions wherever ids repeat.
	if err := meta.CheckSet(set, o.Run); err != nil {
		return err
	}
	if err := references(cases, corpus); err != nil {
		return err
	}
	var missing []string
	var out []*exportCase
	for _, q := range set.Queries {
		if c := cases[q.ID]; c != nil {
			out = append(out, c)
		} else {
			missing = append(missing, q.ID)
		}
	}
	if len(missing) > 0 {
		e.Warn("%s: %d set queries are not in the run, left out: %s", o.Run, len(missing), gate.JoinFirst(missing, 10))
	}
	if len(unknown) > 0 {
		e.Warn("%s: %d run queries are not in the set, ignored: %s", o.Run, len(unknown), gate.JoinFirst(unknown, 10))
	}
	if noText {
		e.Warn("%s: no passage of the exported contexts has text (a run without \"text\" or \"context\"): the judge would read empty contexts", o.Run)
	}
	return report.WriteTo(w, o.Out, func(w io.Writer) error { return writeExport(w, o.Format, out) })
}

// references fills each case's reference passages: the gold documents'
// text from the corpus when there is one (read once, keeping only the
// documents asked for), else the query's evidence.
func references(cases map[string]*exportCase, corpus string) error {
	if corpus == "" {
		for _, c := range cases {
			c.references = append(c.references, c.q.Evidence...)
			c.meta.ReferenceSource = "evidence"
			if len(c.references) == 0 {
				c.meta.ReferenceSource = "none"
			}
		}
		return nil
	}
	want := map[string]string{}
	for _, c := range cases {
		for _, d := range c.meta.GoldDocs {
			want[d] = ""
		}
	}
	found := map[string]bool{}
	if err := gate.WalkCorpus(corpus, func(d gate.Document) error {
		if _, ok := want[d.ID]; ok && !found[d.ID] {
			text := strings.TrimSpace(d.Text)
			if t := strings.TrimSpace(d.Title); t != "" {
				text = t + "\n\n" + text
			}
			want[d.ID], found[d.ID] = text, true
		}
		return nil
	}); err != nil {
		return fmt.Errorf("read corpus for reference passages: %w", err)
	}
	for _, c := range cases {
		c.meta.ReferenceSource = "corpus"
		for _, d := range c.meta.GoldDocs {
			if found[d] {
				c.references = append(c.references, want[d])
			} else {
				c.meta.MissingFromCorpus = append(c.meta.MissingFromCorpus, d)
			}
		}
	}
	return nil
}

// writeExport encodes the cases in the format.
func writeExport(w io.Writer, format string, cases []*exportCase) error {
	b := bufio.NewWriter(w)
	if format == ExportRagas {
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		for _, c := range cases {
			if err := enc.Encode(ragasCase{UserInput: c.q.Text, RetrievedContexts: c.contexts, ReferenceContexts: c.references, ID: c.q.ID, Recallgate: c.meta}); err != nil {
				return err
			}
		}
		return b.Flush()
	}
	all := make([]deepEvalCase, 0, len(cases))
	for _, c := range cases {
		all = append(all, deepEvalCase{Input: c.q.Text, RetrievalContext: c.contexts, Context: c.references, Name: c.q.ID, AdditionalMetadata: c.meta})
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	return b.Flush()
}
