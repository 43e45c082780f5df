package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/cli"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/corpus"
	"github.com/recallgate/recallgate/gate/label"
	"github.com/recallgate/recallgate/gate/retriever/builtin"
	"github.com/recallgate/recallgate/gate/setfile"
)

// LabelOptions say what the labelling page shows.
type LabelOptions struct {
	// Config gives the retrievers of the pool and the corpus; Set the set
	// to label ("" = the config's).
	Config, Set string
	// Labeller names who grades.
	Labeller string
	// PoolConfigs add other configs' retrievers to the pool; Depth is how
	// many top documents of each retriever go into it.
	PoolConfigs []string
	Depth       int
	// Binary grades 0/1.
	Binary bool
	// FromReport, when set, is a compare report whose new unjudged context
	// documents are the only pairs shown (no retrieval).
	FromReport string
	// Pick, when set, chooses the queries shown (re-verification).
	Pick func(*gate.Set) []string
	// Reverify shows the gold being confirmed and takes the confirm key.
	Reverify bool
	// Adjudicate shows only the disputed documents, every labeller's grade
	// beside them, and records decisions (no retrieval).
	Adjudicate bool
}

// LabelJob is a labelling page ready to serve.
type LabelJob struct {
	Server  *label.Server
	SetPath string
	// Shown is how many queries the page shows; Doing says what the page
	// is for ("labelling", "adjudicating", "re-verifying").
	Shown int
	Doing string
	// Release gives the set file's writer lock back.
	Release func()
}

// ExportLabels writes the labels of the set (o.Set, else the config's) in
// format (label.Export; any other is --export's usage error) to w, and
// warns about what qrels cannot carry. It starts no retriever and takes no
// lock: it only reads.
func ExportLabels(e *Env, o LabelOptions, format string, w io.Writer) error {
	var cfg *config.Config
	setPath := o.Set
	if setPath == "" {
		var err error
		if cfg, err = config.Load(o.Config); err != nil {
			return err
		}
		setPath = cfg.Set
	}
	if setPath == "" {
		return ErrNoSet
	}
	set, err := setfile.LoadDraft(setPath)
	if err != nil {
		return err
	}
	if set.Format == "qrels" && format == "jsonl" {
		// A JSONL set holds the query texts: the config's `queries` gives them.
		if cfg == nil {
			if cfg, err = config.Load(o.Config); err != nil {
				return fmt.Errorf("%s is TREC qrels: its JSONL needs the query texts of the config's queries key: %w", setPath, err)
			}
		}
		if err := queryTexts(cfg, set); err != nil {
			return err
		}
	}
	left, err := label.Export(w, set, format)
	if err != nil {
		if errors.Is(err, label.ErrExportFormat) {
			return cli.Usagef("--export: %v", err)
		}
		return &gate.InputError{File: setPath, Err: err}
	}
	for _, l := range left {
		e.Warn("%s: %s", setPath, l)
	}
	return nil
}

// jsonlBeside converts a qrels set that label was given into the JSONL set
// beside it (same name, .jsonl), with the query texts of the config's
// `queries`, and returns its path; a qrels set without them, or a JSONL
// file already there, is refused with what to run. A JSONL set is
// returned as it is. It runs before any retrieval.
func jsonlBeside(e *Env, cfg *config.Config, setPath string) (string, error) {
	set, err := setfile.LoadDraft(setPath)
	if err != nil || set.Format != "qrels" {
		return setPath, err
	}
	out := strings.TrimSuffix(setPath, filepath.Ext(setPath)) + ".jsonl"
	if out == setPath {
		out = setPath + ".jsonl"
	}
	convert := fmt.Sprintf("recallgate label --config %s --set %s --export jsonl > %s", cfg.Path, setPath, out)
	if cfg.Queries == "" {
		return "", &gate.InputError{File: setPath, Err: fmt.Errorf("label edits JSONL sets and this is TREC qrels, without query texts: add queries = \"queries.jsonl\" ({\"id\",\"text\"} lines) to %s; label then writes the JSONL set %s beside it and labels that (or converts it alone: %s)", cfg.Path, out, convert)}
	}
	if _, err := os.Lstat(out); err == nil {
		return "", &gate.InputError{File: setPath, Err: fmt.Errorf("label edits JSONL sets and this is TREC qrels; %s is there already (converted before?): label it with --set %s (and set = it in %s), or remove it to convert again", out, out, cfg.Path)}
	}
	if err := queryTexts(cfg, set); err != nil {
		return "", err
	}
	if err := atomicfile.Write(out, 0o644, func(w io.Writer) error { _, err := label.Export(w, set, "jsonl"); return err }); err != nil {
		return "", fmt.Errorf("write the JSONL set: %w", err)
	}
	fmt.Fprintf(e.Stderr, "recallgate label: %s is TREC qrels: wrote the JSONL set %s from it and %s; labels go there (point set at it in %s)\n", setPath, out, cfg.Queries, cfg.Path)
	return out, nil
}

// Label loads the config, the set and the corpus, builds the pool (or
// takes a report's unjudged pairs) and makes the labelling page.
func Label(ctx context.Context, e *Env, o LabelOptions) (*LabelJob, error) {
	if strings.HasPrefix(o.Labeller, gate.JudgePrefix) {
		return nil, &gate.InputError{Field: "--labeller", Err: fmt.Errorf("%s: a name starting %q is a judge program's (recallgate judge); a person labels under their own name", gate.ShowName(o.Labeller), gate.JudgePrefix)}
	}
	cfg, err := config.Load(o.Config)
	if err != nil {
		return nil, err
	}
	setPath := o.Set
	if setPath == "" {
		setPath = cfg.Set
	}
	if setPath == "" {
		return nil, ErrNoSet
	}
	if setPath, err = jsonlBeside(e, cfg, setPath); err != nil {
		return nil, err
	}
	// One file, one writer: a second label on it stops here, at once.
	release, err := atomicfile.Lock(setPath)
	if err != nil {
		return nil, &gate.InputError{File: setPath, Err: err}
	}
	job, err := makeLabelJob(ctx, e, o, cfg, setPath)
	if err != nil {
		release()
		return nil, err
	}
	job.Release = release
	return job, nil
}

func makeLabelJob(ctx context.Context, e *Env, o LabelOptions, cfg *config.Config, setPath string) (*LabelJob, error) {
	set, err := setfile.LoadDraft(setPath)
	if err != nil {
		return nil, err
	}
	docs := map[string]corpus.Document{}
	snap, err := readCorpus(e, cfg.SideCorpus("head"), "")
	if err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	if snap != nil {
		for _, d := range snap.Docs {
			docs[d.ID] = d
		}
	} else {
		e.Warn("%s names no corpus (corpus = \"…\" or a builtin retriever): titles and whole documents are not shown", cfg.Path)
	}
	var doc DocText
	var sections gate.SectionLookup
	if len(docs) > 0 {
		sections = snap.SectionLookup()
		set.PlaceSections(sections) // a section query's pool is of sections
		doc = func(id string) (string, string, bool) {
			if d, ok := docs[id]; ok {
				return d.Title, d.Text, true
			}
			return sectionText(sections, id) // a section label: its section's text
		}
	}
	var pool map[string][]label.Candidate
	var only []string
	switch {
	case o.Adjudicate:
		pool = map[string][]label.Candidate{}
	case o.FromReport != "":
		pool, only, err = PoolFromReport(o.FromReport, set, doc)
	default:
		pool, err = Pool(ctx, e, cfg, o.PoolConfigs, set, o.Depth, doc)
	}
	if err != nil {
		return nil, err
	}
	lo := label.Options{SetPath: setPath, Labeller: o.Labeller, Binary: o.Binary, Pool: pool, Now: e.Clock, Only: only, PoolOnly: o.FromReport != "",
		Adjudicate: o.Adjudicate, Reverify: o.Reverify, GradeNames: cfg.GradeNames, Guideline: cfg.Guideline}
	if n := len(cfg.GradeNames); n > 0 && (n == 2) != o.Binary {
		return nil, &gate.InputError{File: cfg.Path, Field: "label.grades", Err: fmt.Errorf("names %d grades but the page grades %s: name 2 for --binary, %d otherwise", n, map[bool]string{true: "0/1 (--binary)", false: "0–3"}[o.Binary], gate.MaxGrade+1)}
	}
	if doc != nil {
		lo.Doc = doc
		lo.Corpus = func(id string) bool {
			_, _, ok := lo.Doc(id)
			return ok
		}
		lo.Search = corpusSearch(snap, docs)
		lo.Propose = func(key string) (string, bool) { return proposeSection(sections, key) }
		lo.Sections = func(doc string) []label.Candidate { return sectionCandidates(sections, doc) }
	}
	if o.Pick != nil {
		lo.Only = o.Pick(set)
	}
	if o.FromReport != "" {
		fmt.Fprintf(e.Stderr, "recallgate label: the %d query–document pairs %s lists as unjudged in the head's context\n", Pairs(pool), o.FromReport)
	}
	srv, err := label.New(lo)
	if err != nil {
		return nil, err
	}
	doing := "labelling"
	switch {
	case o.Adjudicate:
		doing = "adjudicating"
	case o.Reverify:
		doing = "re-verifying"
	}
	return &LabelJob{Server: srv, SetPath: setPath, Shown: srv.Shown(), Doing: doing}, nil
}

// corpusSearch is the page's search over the corpus: the builtin BM25,
// its index built on the first search (so the page opens at once), hits
// collapsed to documents.
func corpusSearch(snap *corpus.Snapshot, docs map[string]corpus.Document) func(string, int) ([]label.Candidate, error) {
	var once sync.Once
	var ix *builtin.Index
	var buildErr error
	return func(text string, k int) ([]label.Candidate, error) {
		once.Do(func() {
			if ix, buildErr = builtin.Build(snap, builtin.DefaultOptions()); buildErr != nil {
				buildErr = fmt.Errorf("index %s: %w", snap.Path, buildErr)
			}
		})
		if buildErr != nil {
			return nil, buildErr
		}
		var out []label.Candidate
		seen := map[string]bool{}
		for _, h := range ix.Search(text, 4*k) {
			if seen[h.Doc] || len(out) == k {
				continue
			}
			seen[h.Doc] = true
			d := docs[h.Doc]
			texts := []string{d.Text}
			if h.Text != "" {
				texts = []string{h.Text, d.Text}
			}
			out = append(out, label.Candidate{Doc: h.Doc, Title: d.Title, Texts: texts})
		}
		return out, nil
	}
}

// ServeLabel serves the labelling page (Label) on 127.0.0.1:port (0: a
// free port) until ctx ends, as o.Labeller (none: label.DefaultLabeller's
// answer, from e.Getenv): the port is taken first, so a busy one is said
// before any retrieval; the page's address goes to out, and where the
// grades are when it stops to e.Stderr.
func ServeLabel(ctx context.Context, e *Env, o LabelOptions, port int, out io.Writer) error {
	if o.Labeller == "" {
		var err error
		if o.Labeller, err = label.DefaultLabeller(e.Getenv, nil); err != nil {
			return cli.Usagef("%v", err)
		}
	}
	if o.Depth < 1 {
		return cli.Usagef("--depth must be at least 1")
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return &gate.InfraError{Err: fmt.Errorf("listen on 127.0.0.1:%d: %w", port, err)}
	}
	defer ln.Close()
	job, err := Label(ctx, e, o)
	if err != nil {
		return err
	}
	defer job.Release()
	fmt.Fprintf(out, "recallgate label: http://%s/?t=%s — %d queries of %s, %s as %s. Ctrl-C stops.\n", ln.Addr(), job.Server.Token(), job.Shown, job.SetPath, job.Doing, o.Labeller)
	if err := job.Server.Serve(ctx, ln); err != nil {
		return &gate.InfraError{Err: err}
	}
	fmt.Fprintf(e.Stderr, "recallgate label: stopped; every grade is in %s\n", job.SetPath)
	return nil
}
