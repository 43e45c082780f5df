package judge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/childenv"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/setfile"
)

// DefaultCalibrationCap is how many documents people graded are sent
// beside the label debt, at most, for the calibration.
const DefaultCalibrationCap = 200

// Options are one `recallgate judge` run's inputs.
type Options struct {
	// ConfigPath is the config holding the [judge] table (read when
	// Config is nil); Set is the eval set ("" = the config's); Report the
	// JSON report whose label debt is graded.
	ConfigPath, Set, Report string
	Config                  *config.Config
	// Corpus is where the documents' text is read ("" = the config's
	// corpus, else its head's builtin corpus).
	Corpus string
	// CalibrationCap bounds the calibration sample (0 = the default).
	CalibrationCap int
	// Getenv reads the environment (the judge's allowlisted variables,
	// an http judge's header values); Client is an http judge's client.
	Getenv func(string) string
	Client HTTPDoer
	// Stderr gets the judge's stderr and the warnings; Out the summary.
	Stderr, Out io.Writer
}

// pair is one request to make, and what kind of pair it is.
type pair struct {
	req   Request
	q     *gate.Query
	debt  bool
	order int
}

// graded is a pair's answer and how long it took.
type graded struct {
	pair
	a   Answer
	dur time.Duration
	err error
}

// Run grades the label debt the report lists and the calibration sample
// (the documents people graded in the same queries, up to the cap), and
// writes the grades into the set as the labeller judge:<name> with the
// judge's fingerprint, each query's line replaced through one atomic
// write. A pair a person graded is never sent; one graded under the same
// fingerprint is skipped. Any bad answer (not JSON, off the scale, for
// another pair, a timeout, a crash) is a *gate.InfraError naming the
// query and the document, and nothing of the run is written; so is a
// query whose line the grades would make too long for the set's readers
// (naming the query).
func Run(ctx context.Context, o Options) error {
	cfg := o.Config
	if cfg == nil {
		var err error
		if cfg, err = config.Load(o.ConfigPath); err != nil {
			return err
		}
		o.Config = cfg
	}
	if o.Corpus == "" {
		o.Corpus = cfg.Corpus
		if o.Corpus == "" && cfg.Head != nil && cfg.Head.Type == "builtin" {
			o.Corpus = cfg.Head.Corpus
		}
	}
	if cfg.Judge == nil {
		return &gate.InputError{File: cfg.Path, Field: "judge", Err: errors.New("no [judge] table: name the judge program (type, name, command or url, guideline); see docs/judge.md")}
	}
	id, err := Identify(cfg)
	if err != nil {
		return err
	}
	setPath := o.Set
	if setPath == "" {
		setPath = cfg.Set
	}
	if setPath == "" {
		return &gate.InputError{File: cfg.Path, Field: "set", Err: errors.New("no eval set: give --set or set in the config")}
	}
	set, err := setfile.Load(setPath)
	if err != nil {
		return fmt.Errorf("load set: %w", err)
	}
	if set.Format != "jsonl" {
		return &gate.InputError{File: setPath, Err: errors.New("the judge writes its grades into a JSONL set; a qrels file cannot keep them")}
	}
	data, err := gate.ReadInputFile(o.Report, "report", report.MaxReportBytes)
	if err != nil {
		return err
	}
	rep, err := report.ReadCompareReport(bytes.NewReader(data), o.Report)
	if err != nil {
		return err
	}
	if !rep.Unjudged.Known {
		return &gate.InputError{File: o.Report, Field: "unjudged.known", Err: errors.New("the report's set records no judgements, so it lists no label debt to grade")}
	}
	pairs, skipped, err := choosePairs(set, rep, id, o.CalibrationCap)
	if err != nil {
		return err
	}
	var runs []string // file retrievers' runs: their hits' text, where the corpus has none
	for _, r := range []*config.Retriever{cfg.Base, cfg.Head} {
		if r != nil && r.Type == "file" && !slices.Contains(runs, r.Path) {
			runs = append(runs, r.Path)
		}
	}
	if o.Corpus == "" && len(runs) == 0 {
		return &gate.InputError{File: cfg.Path, Field: "corpus", Err: errors.New("the judge is sent each document's text: set corpus in the config (or use a builtin retriever, or file retrievers whose hits carry text)")}
	}
	pairs, err = withText(o.Corpus, runs, pairs, o.Stderr)
	if err != nil {
		return err
	}
	if len(pairs) == 0 {
		fmt.Fprintf(o.Out, "judge %s: nothing to grade (%d pairs already graded under this fingerprint)\n", id.Name, skipped)
		return nil
	}
	tr, err := open(ctx, cfg.Judge, o)
	if err != nil {
		return err
	}
	results, err := gradeAll(ctx, tr, cfg.Judge, pairs, o.Stderr)
	if cerr := tr.Close(); err == nil && cerr != nil {
		err = &gate.InfraError{Err: fmt.Errorf("judge %s: %w", id.Name, cerr)}
	}
	if err != nil {
		return err
	}
	if err := write(setPath, set, id, results); err != nil {
		return err
	}
	summarize(o.Out, id, results, skipped, setPath)
	cal := Calibrate(set, id)
	Decide(cal, cfg.Thresholds) // the given config's: the gate takes the base commit's
	for _, line := range Health(cal, false) {
		fmt.Fprintf(o.Out, "calibration: %s\n", line)
	}
	return nil
}

// choosePairs lists the report's label debt and the calibration sample,
// in report order, skipping what a person or this fingerprint graded.
func choosePairs(set *gate.Set, rep *report.CompareReport, id Identity, cap int) ([]pair, int, error) {
	if cap <= 0 {
		cap = DefaultCalibrationCap
	}
	var out []pair
	skipped, calib := 0, 0
	seen := map[[2]string]bool{}
	add := func(q *gate.Query, doc string, debt bool) {
		k := [2]string{q.ID, doc}
		if seen[k] {
			return
		}
		seen[k] = true
		if rec := q.Judges[id.Name]; rec != nil && rec.Fingerprint == id.Fingerprint {
			if _, ok := rec.Grades[doc]; ok {
				skipped++
				return
			}
		}
		out = append(out, pair{req: Request{QueryID: q.ID, Query: q.Text, Doc: doc, Guideline: id.Guideline, Grades: id.Grades}, q: q, debt: debt, order: len(out)})
	}
	for _, u := range rep.Unjudged.New {
		q := set.Query(u.ID)
		if q == nil {
			return nil, 0, &gate.InputError{File: set.Path, Err: fmt.Errorf("the report's label debt names query %q, which the set does not hold: is it the report of another set?", u.ID)}
		}
		for _, d := range u.Docs {
			if !q.Judged(d) {
				add(q, d, true)
			}
		}
	}
	for _, u := range rep.Unjudged.New {
		q := set.Query(u.ID)
		var people []string
		for d := range q.GradesByDoc() {
			people = append(people, d)
		}
		for d := range q.Gold {
			if _, ok := q.GradesByDoc()[d]; !ok {
				people = append(people, d)
			}
		}
		sort.Strings(people)
		for _, d := range people {
			if calib < cap {
				before := len(out)
				add(q, d, false)
				if len(out) > before {
					calib++
				}
			}
		}
		// Grades of another fingerprint are graded again, so the query's
		// record is one judge's throughout.
		if rec := q.Judges[id.Name]; rec != nil && rec.Fingerprint != id.Fingerprint {
			var old []string
			for d := range rec.Grades {
				old = append(old, d)
			}
			sort.Strings(old)
			for _, d := range old {
				add(q, d, !q.Judged(d))
			}
		}
	}
	return out, skipped, nil
}

// maxHitText bounds the text gathered from a run's hits for one pair.
const maxHitText = 64 << 10

// withText fills each pair's text from the corpus (title and text), else
// from the hits of the runs for that query and document (their chunks'
// text in rank order); a pair with neither is named on warn and not sent.
func withText(corpus string, runs []string, pairs []pair, warn io.Writer) ([]pair, error) {
	want := map[string]bool{}
	for _, p := range pairs {
		want[p.req.Doc] = true
	}
	text := map[string]string{}
	if corpus != "" {
		err := gate.WalkCorpus(corpus, func(d gate.Document) error {
			if want[d.ID] {
				text[d.ID] = strings.TrimSpace(strings.TrimSpace(d.Title) + "\n" + d.Text)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	hit := map[[2]string]string{}
	for _, p := range pairs {
		if _, ok := text[p.req.Doc]; !ok {
			hit[[2]string{p.req.QueryID, p.req.Doc}] = ""
		}
	}
	for _, run := range runs {
		if len(hit) == 0 {
			break
		}
		_, err := runfile.ReadRunFile(run, func(r gate.Result) error {
			for _, h := range r.Hits {
				k := [2]string{r.ID, h.Doc}
				if t, ok := hit[k]; ok && h.Text != "" && len(t) < maxHitText {
					hit[k] = strings.TrimSpace(t + "\n" + h.Text)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read the hits' text: %w", err)
		}
	}
	out := pairs[:0]
	for _, p := range pairs {
		t, ok := text[p.req.Doc]
		if !ok {
			t = hit[[2]string{p.req.QueryID, p.req.Doc}]
		}
		if t == "" {
			where := corpus
			if where == "" {
				where = "the runs' hits"
			}
			fmt.Fprintf(warn, "warning: judge: no text for %s in %s: not sent\n", gate.ShowName(p.req.ID()), where)
			continue
		}
		p.req.Text = t
		out = append(out, p)
	}
	return out, nil
}

// open starts the judge's transport.
func open(ctx context.Context, j *config.Judge, o Options) (Transport, error) {
	switch j.Type {
	case "command":
		tr, err := startCommand(j.Command, j.Dir, childenv.ChildEnv(o.Getenv, j.Env), o.Stderr)
		if err != nil {
			return nil, &gate.InfraError{Err: fmt.Errorf("judge %s: %w", j.Name, err)}
		}
		return tr, nil
	case "http":
		return newHTTP(j, o)
	}
	return nil, &gate.InputError{Field: "judge.type", Err: fmt.Errorf("judge type %q is not available in this build", j.Type)}
}

// gradeAll sends every pair, j.Concurrency at a time under j.RateLimit,
// each within j.Timeout. The first failure (in pair order) stops the rest
// and is the error, naming its pair.
func gradeAll(ctx context.Context, tr Transport, j *config.Judge, pairs []pair, progress io.Writer) ([]graded, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var tick <-chan time.Time
	if j.RateLimit > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / j.RateLimit))
		defer t.Stop()
		tick = t.C
	}
	out := make([]graded, len(pairs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, lastShown := 0, time.Now()
	for w := 0; w < max(1, j.Concurrency); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := pairs[i]
				pctx, stop := context.WithTimeout(ctx, j.Timeout.Duration)
				start := time.Now()
				a, err := tr.Grade(pctx, p.req)
				stop()
				out[i] = graded{pair: p, a: a, dur: time.Since(start), err: err}
				if err != nil {
					cancel()
				}
				mu.Lock()
				done++
				if progress != nil && (time.Since(lastShown) > 2*time.Second) {
					lastShown = time.Now()
					fmt.Fprintf(progress, "judge %s: %d/%d pairs graded\n", j.Name, done, len(pairs))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range pairs {
		if tick != nil && i > 0 {
			select {
			case <-tick:
			case <-ctx.Done():
				break feed
			}
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// The first failure that is not the others' being stopped, in pair order.
	for _, stopped := range []bool{false, true} {
		for _, g := range out {
			if g.err != nil && errors.Is(g.err, context.Canceled) == stopped {
				return nil, &PairError{Judge: j.Name, Query: g.req.QueryID, Doc: g.req.Doc, Err: g.err}
			}
		}
	}
	for i := range out {
		if out[i].req.QueryID == "" { // never sent: the run was stopped
			return nil, &PairError{Judge: j.Name, Query: pairs[i].req.QueryID, Doc: pairs[i].req.Doc, Err: fmt.Errorf("not graded: %w", context.Cause(ctx))}
		}
	}
	return out, nil
}

// PairError is a judge's failure on one pair: a bad answer (not JSON, a
// grade off the scale, an answer for another pair), a timeout or a crash;
// or on one query, Doc empty: its grades and reasons would make its set
// line one the readers refuse. It is machine trouble (a *gate.InfraError,
// exit 3), and nothing of the run was written.
type PairError struct {
	Judge, Query, Doc string
	Err               error
}

// Error names the judge, the query and the document.
func (e *PairError) Error() string {
	if e.Doc == "" { // the query's line, not one pair
		return fmt.Sprintf("judge %s: query %s: %v; nothing of this run was written", e.Judge, gate.Visible(e.Query), e.Err)
	}
	return fmt.Sprintf("judge %s: query %s, document %s: %v; nothing of this run was written", e.Judge, gate.Visible(e.Query), gate.Visible(e.Doc), e.Err)
}

// Unwrap is the infra error it is.
func (e *PairError) Unwrap() error { return &gate.InfraError{QueryID: e.Query, Err: e.Err} }

// write puts the grades into the set file: each touched query's line
// replaced, the rest byte for byte, under the set's writer lock and only
// when the file is still the one read.
func write(path string, set *gate.Set, id Identity, results []graded) error {
	release, err := atomicfile.Lock(path)
	if err != nil {
		return err
	}
	defer release()
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != set.Fingerprint {
		return &gate.InputError{File: path, Err: errors.New("the set changed on disk while the judge graded: nothing written; run recallgate judge again")}
	}
	touched := map[*gate.Query]bool{}
	for _, g := range results {
		q := g.q
		if q.Judges == nil {
			q.Judges = map[string]*gate.JudgeGrades{}
		}
		rec := q.Judges[id.Name]
		if rec == nil || rec.Fingerprint != id.Fingerprint {
			rec = &gate.JudgeGrades{Fingerprint: id.Fingerprint, Grades: map[string]int{}}
			q.Judges[id.Name] = rec
		}
		touched[q] = true
		rec.Grades[g.req.Doc] = g.a.Grade
		if g.a.Reason != "" {
			if rec.Reasons == nil {
				rec.Reasons = map[string]string{}
			}
			rec.Reasons[g.req.Doc] = g.a.Reason
		}
	}
	var qs []*gate.Query
	for _, q := range set.Queries {
		if touched[q] {
			qs = append(qs, q)
		}
	}
	out, err := setfile.ReplaceQueryLines(data, qs...)
	if err != nil {
		return err
	}
	if err := readable(path, out, qs, id); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { _, err := w.Write(out); return err })
}

// readable checks, before anything is written, that the set with the
// judge's grades (out) is one its readers take: each touched query's line
// within gate.MaxSetLineBytes, and the whole read back as the judge read
// it. A line the grades would break is the judge's doing (its reasons):
// a *PairError naming the query, exit 3.
func readable(path string, out []byte, qs []*gate.Query, id Identity) error {
	for _, q := range qs {
		line, err := q.MarshalLine()
		if err == nil && len(line) > gate.MaxSetLineBytes {
			err = fmt.Errorf("its line in %s would be %d bytes with the judge's grades and reasons, over the %s a set line may hold", path, len(line), gate.FormatBytes(gate.MaxSetLineBytes))
		}
		if err != nil {
			return &PairError{Judge: id.Name, Query: q.ID, Err: err}
		}
	}
	if _, err := setfile.Parse(bytes.NewReader(out), path); err != nil {
		query := ""
		if ie := new(gate.InputError); errors.As(err, &ie) {
			for _, q := range qs {
				if q.Line == ie.Line {
					query = q.ID
				}
			}
		}
		return &PairError{Judge: id.Name, Query: query, Err: fmt.Errorf("the set with the judge's grades would not read back: %w", err)}
	}
	return nil
}

// summarize writes the run's end: the pairs graded, tokens, latency.
func summarize(w io.Writer, id Identity, results []graded, skipped int, path string) {
	debt, tokens := 0, 0
	durs := make([]time.Duration, 0, len(results))
	queries := map[string]bool{}
	for _, g := range results {
		if g.debt {
			debt++
		}
		tokens += g.a.Tokens
		durs = append(durs, g.dur)
		queries[g.req.QueryID] = true
	}
	fmt.Fprintf(w, "judge %s: graded %d pairs in %d queries (%d label debt, %d calibration), %d already graded under this fingerprint skipped; wrote %s as labeller %s\n",
		id.Name, len(results), len(queries), debt, len(results)-debt, skipped, path, id.Labeller())
	// The percentiles as every report takes them (nearest rank); none
	// when no pair was sent.
	if l := gate.Latencies(durs, 0); l != nil {
		fmt.Fprintf(w, "judge %s: %d tokens; latency p50 %s, p95 %s\n", id.Name, tokens, l.P50.Round(time.Millisecond), l.P95.Round(time.Millisecond))
	} else {
		fmt.Fprintf(w, "judge %s: %d tokens; no pair sent\n", id.Name, tokens)
	}
}
