package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/runfile"
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
	UserInput         string          `json:"user_input"`
	RetrievedContexts json.RawMessage `json:"retrieved_contexts"`
	ReferenceContexts []string        `json:"reference_contexts"`
	ID                string          `json:"id"`
	Recallgate        ExportMeta      `json:"recallgate"`
}

type deepEvalCase struct {
	Input              string          `json:"input"`
	RetrievalContext   json.RawMessage `json:"retrieval_context"`
	Context            []string        `json:"context"`
	Name               string          `json:"name"`
	AdditionalMetadata ExportMeta      `json:"additional_metadata"`
}

// exportCase is one query before formatting: its final context waits,
// JSON-encoded, in the export's spill file (contexts), so the run's
// passages are held one query at a time.
type exportCase struct {
	q          *gate.Query
	contexts   spilled
	references []string
	meta       ExportMeta
}

// spilled is a stretch of the spill file.
type spilled struct{ at, n int64 }

// exportSpill parks each query's final context, encoded as the format
// writes it, in a temporary file until the cases are written in set
// order; writing copies it from the file, never holding it again.
type exportSpill struct {
	f      *os.File
	end    int64
	indent string // the array's line prefix: "" for Ragas (one line)
}

func newExportSpill(format string) (*exportSpill, error) {
	f, err := os.CreateTemp("", "recallgate-export-*.json")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	s := &exportSpill{f: f}
	if format == ExportDeepEval {
		// A case's fields sit two indents deep in DeepEval's array.
		s.indent = "    "
	}
	return s, nil
}

// put encodes texts as a JSON array of strings (HTML left as it is) and
// parks it.
func (s *exportSpill) put(texts []string) (spilled, error) {
	cw := &countWriter{w: s.f}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	if s.indent != "" {
		enc.SetIndent(s.indent, "  ")
	}
	if err := enc.Encode(texts); err != nil {
		return spilled{}, fmt.Errorf("export: %w", err)
	}
	sp := spilled{at: s.end, n: cw.n - 1} // without the encoder's line break
	s.end += cw.n
	return sp, nil
}

// countWriter counts what goes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// spliced writes data with the parked array sp in place of the first
// placeholder value of key (an encoded key is never inside a string
// value, where its quotes would be escaped).
func (s *exportSpill) spliced(w io.Writer, data []byte, key string, sp spilled) error {
	i := bytes.Index(data, []byte(key+exportPlaceholder))
	if i < 0 {
		return fmt.Errorf("export: no %s in the encoded case", key)
	}
	i += len(key)
	if _, err := w.Write(data[:i]); err != nil {
		return err
	}
	if _, err := io.Copy(w, io.NewSectionReader(s.f, sp.at, sp.n)); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	_, err := w.Write(data[i+len(exportPlaceholder):])
	return err
}

// exportPlaceholder stands for the parked contexts in an encoded case.
const exportPlaceholder = "null"

func (s *exportSpill) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// Export writes, per query of the set the run answers (in set order), the
// question, the final context the gate saw (the run's "context", else the
// hits packed under [report] context_tokens), the gold documents'
// reference passages (from the config's corpus, else the set's evidence)
// and the query id, in the format's field names. Set queries the run does
// not hold are left out with a warning; a run whose metadata line names
// another set, or none of whose ids is in the set, is refused. The run is
// read one query at a time: each final context is encoded as it is read
// and parked in a temporary file until its turn, so memory does not grow
// with the run's passages.
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
	spill, err := newExportSpill(o.Format)
	if err != nil {
		return err
	}
	defer spill.close()
	cases := map[string]*exportCase{}
	var unknown []string
	noText := true
	meta, err := runfile.ReadRunFile(o.Run, func(r gate.Result) error {
		q := set.Query(r.ID)
		if q == nil {
			unknown = append(unknown, r.ID)
			return nil
		}
		if cases[q.ID] != nil {
			return &gate.InputError{File: o.Run, Line: r.Line, Field: "id", Err: fmt.Errorf("query %s has two results", gate.ClipID(q.ID))}
		}
		ps, src := gate.FinalPassages(r, budget)
		c := &exportCase{q: q, references: []string{},
			meta: ExportMeta{QueryID: q.ID, ContextSource: src, GoldDocs: q.RelevantDocs(), Unanswerable: q.Unanswerable, Abstain: r.Abstain}}
		if src == gate.ContextPacked {
			c.meta.ContextTokens = budget
		}
		texts := make([]string, len(ps))
		for i, p := range ps {
			texts[i] = p.Text
			noText = noText && p.Text == ""
		}
		if c.contexts, err = spill.put(texts); err != nil {
			return err
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
	// So is a run none of whose ids the set holds, metadata line or not:
	// the export would be empty, with no judge able to tell why.
	if len(cases) == 0 {
		return &gate.InputError{File: o.Run, Err: fmt.Errorf("no query of the set %s is in the run (%d other ids, e.g. %s): wrong file?", set.Path, len(unknown), gate.JoinFirst(unknown, 3))}
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
	return report.WriteTo(atomicfile.Streams{Stdout: w, Stderr: e.Stderr}, o.Out, func(w io.Writer) error { return writeExport(w, o.Format, out, spill) })
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

// writeExport encodes the cases in the format, one at a time: Ragas a
// line each, DeepEval one indented array written element by element
// (cases is never empty: Export refuses a run that matches nothing). Each
// case's contexts are copied from the spill into its encoding.
func writeExport(w io.Writer, format string, cases []*exportCase, spill *exportSpill) error {
	b := bufio.NewWriter(w)
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetEscapeHTML(false)
	key := `"retrieved_contexts":`
	if format == ExportDeepEval {
		enc.SetIndent("  ", "  ")
		key = `"retrieval_context": `
		b.WriteString("[\n")
	}
	placeholder := json.RawMessage(exportPlaceholder)
	for i, c := range cases {
		one.Reset()
		var err error
		if format == ExportRagas {
			err = enc.Encode(ragasCase{UserInput: c.q.Text, RetrievedContexts: placeholder, ReferenceContexts: c.references, ID: c.q.ID, Recallgate: c.meta})
		} else {
			one.WriteString("  ")
			err = enc.Encode(deepEvalCase{Input: c.q.Text, RetrievalContext: placeholder, Context: c.references, Name: c.q.ID, AdditionalMetadata: c.meta})
			// The encoder ends the element with a line break; the array's
			// comma goes before it.
			if err == nil && i < len(cases)-1 {
				one.Truncate(one.Len() - 1)
				one.WriteString(",\n")
			}
		}
		if err != nil {
			return err
		}
		if err := spill.spliced(b, one.Bytes(), key, c.contexts); err != nil {
			return err
		}
	}
	if format == ExportDeepEval {
		b.WriteString("]\n")
	}
	return b.Flush()
}
