package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/retrieval"
	"github.com/recallgate/recallgate/gate/retriever"
	"github.com/recallgate/recallgate/gate/retriever/builtin"
	"github.com/recallgate/recallgate/gate/retriever/file"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/setfile"
)

// SideRun is one side's retrieval outcome.
type SideRun struct {
	// Results holds one run per repeat; Results[0] is the one compared.
	Results [][]gate.Result
	// Err is why the side could not be retrieved.
	Err error
	// Config and Corpus are the side's fingerprints ("" when unknown).
	Config, Corpus string
	// Cached says the run came from the cache.
	Cached bool
	// Startup is how long the retriever took to be ready: an index built,
	// a subprocess started until its first answer, a preflight answered.
	Startup time.Duration
}

// latency summarises the timed calls of every repeat; nil for a cached run.
func (s SideRun) Latency() *gate.LatencyStats {
	if s.Cached {
		return nil
	}
	var calls, waits []time.Duration
	for _, res := range s.Results {
		for _, r := range res {
			if r.Latency > 0 {
				calls, waits = append(calls, r.Latency), append(waits, r.Queue)
			}
		}
	}
	return gate.LatenciesQueued(calls, waits, s.Startup)
}

// first is the run the comparison uses.
func (s SideRun) First() []gate.Result { return s.Results[0] }

// SideTable is the retriever table of a side: "base", "head", or an
// experiment's variant, "variant.NAME" (config.Variant.Side); nil when the
// config has none.
func SideTable(cfg *config.Config, side string) *config.Retriever {
	switch side {
	case "base":
		return cfg.Base
	case "head":
		return cfg.Head
	}
	if name, ok := strings.CutPrefix(side, "variant."); ok {
		if v := cfg.Variant(name); v != nil {
			return v.Retriever
		}
	}
	return nil
}

// Retrieve retrieves the top k hits of every query of the set for each
// named side at the same time, so the two sides share the wall time,
// repeats times over. A side whose
// run is in the cache is never built: no index loaded, no subprocess
// started. Builtin sides of one corpus and index options (differing only
// in k1, b or the title's weight) share one index build. Every retriever
// that was built is closed before it returns.
func Retrieve(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, sides []string, k, repeats int) (map[string]SideRun, error) {
	bs := map[string]*built{}
	defer func() {
		for _, b := range bs {
			_ = b.close()
		}
	}()
	out := map[string]SideRun{}
	cacheOn := e.Cache != nil && max(repeats, 1) == 1
	indexDir := ""
	indexes := &builtin.Shared{} // sides of one corpus and index options: one build
	if e.Cache != nil {
		indexDir = e.Cache.IndexDir(e)
	}
	for _, side := range sides {
		rc := SideTable(cfg, side)
		if rc == nil {
			return nil, &gate.InputError{File: cfg.Path, Field: side + ".retriever", Err: fmt.Errorf("no retriever configured: add [retriever] or [%s.retriever]", side)}
		}
		fp := SideRun{Config: rc.Fingerprint()}
		var cacheKey string
		if cacheOn {
			if rc.Type == "builtin" {
				// The snapshot the index is built from, should the run not
				// be cached: the corpus is read once.
				snap, err := e.corpora().Get(rc.Corpus)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", side, err)
				}
				fp.Corpus = snap.Fingerprint
			}
			if cacheKey = e.Cache.key(set, fp, side, k); cacheKey != "" {
				if res, ok := e.Cache.load(e, cacheKey, set); ok {
					fp.Results, fp.Cached = [][]gate.Result{res}, true
					out[side] = fp
					fmt.Fprintf(e.Stderr, "recallgate: %s: reused the cached run %s\n", side, e.Cache.path(cacheKey))
					continue
				}
			}
		}
		start := time.Now()
		deps := retriever.Deps{ConfigPath: cfg.Path, Side: side, Getenv: e.Getenv, Stderr: e.Stderr, Client: e.HTTPClient(), Warn: func(s string) { e.Warn("%s", s) }, Fence: e.fence}
		deps.IndexDir, deps.Indexes, deps.Corpora = indexDir, indexes, e.corpora()
		r, c, err := retriever.New(ctx, rc, deps)
		if err != nil {
			return nil, gate.AtStage(gate.StageRetrieve, side, err)
		}
		b := &built{r: r, close: c, cacheKey: cacheKey, opts: retrieval.Options{K: k, Concurrency: rc.Concurrency, Timeout: rc.Timeout.Duration}}
		bs[side] = b
		fp.Startup = time.Since(start)
		if rf, ok := r.(*file.Retriever); ok {
			if err := rf.CheckSet(set); err != nil {
				return nil, err
			}
		}
		if ix, ok := r.(interface{ Fingerprint() string }); ok && fp.Corpus == "" {
			fp.Corpus = ix.Fingerprint()
		}
		out[side] = fp
	}
	shareLimiters(cfg, sides, bs)
	prog := newProgress(e.Stderr, len(set.Queries)*len(bs)*max(repeats, 1))
	defer prog.finish()
	for _, b := range bs {
		b.opts.Progress = func(int) { prog.add() }
	}
	retrieveRepeats(ctx, set, bs, out, repeats)
	for side, b := range bs {
		// A process's start-up runs until it answered, not only its spawn.
		if fa, ok := b.r.(interface{ FirstAnswer() time.Duration }); ok {
			sr := out[side]
			sr.Startup += fa.FirstAnswer()
			out[side] = sr
		}
		if b.cacheKey != "" && out[side].Err == nil {
			if err := e.Cache.store(b.cacheKey, out[side].First(), gate.RunMeta{Set: set.Fingerprint, Config: out[side].Config}); err != nil {
				e.Warn("cache: %v", err)
			}
		}
	}
	return out, nil
}

// built is one side's retriever as Retrieve made it.
type built struct {
	r        gate.Retriever
	close    retriever.Closer
	opts     retrieval.Options
	cacheKey string
}

// shareLimiters gives the sides that call one URL one rate limiter; a
// side without a URL, or with a service of its own, has its own.
func shareLimiters(cfg *config.Config, sides []string, bs map[string]*built) {
	limiters := map[string]*retrieval.Limiter{}
	for _, side := range sides {
		b, ok := bs[side]
		if !ok {
			continue
		}
		rc := SideTable(cfg, side)
		key := rc.URL
		if key == "" || len(rc.Start) > 0 {
			key = side // a started service is the side's own, whatever its url says
		}
		if _, ok := limiters[key]; !ok {
			limiters[key] = retrieval.NewLimiter(rc.RateLimit)
		}
		b.opts.Limiter = limiters[key]
	}
}

// retrieveRepeats retrieves the set on every side at once, repeats times
// (at least once), appending each repeat's results to the side's run in
// out; a side that failed is not asked again.
func retrieveRepeats(ctx context.Context, set *gate.Set, bs map[string]*built, out map[string]SideRun, repeats int) {
	for rep := 0; rep < max(repeats, 1); rep++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		active := map[string]*built{}
		for side, b := range bs {
			if out[side].Err == nil {
				active[side] = b
			}
		}
		for side, b := range active {
			wg.Add(1)
			go func(side string, b *built) {
				defer wg.Done()
				res, err := retrieval.All(ctx, side, set, b.r, b.opts)
				mu.Lock()
				sr := out[side]
				sr.Results = append(sr.Results, res)
				sr.Err = err
				out[side] = sr
				mu.Unlock()
			}(side, b)
		}
		wg.Wait()
	}
}

// FingerprintFile hashes a file's bytes, or "" when it cannot be read or
// is not a regular file (a FIFO would block, /dev/zero never end).
func FingerprintFile(path string) string {
	if _, err := gate.CheckInputFile(path); err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// LoadConfigSet loads the config and its set (with query texts for qrels).
func LoadConfigSet(path, setOverride string) (*config.Config, *gate.Set, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, nil, gate.AtStage(gate.StageConfig, "", err)
	}
	set, err := LoadSetFor(cfg, setOverride)
	if err != nil {
		return nil, nil, gate.AtStage(gate.StageSet, "", err)
	}
	return cfg, set, gate.AtStage(gate.StageConfig, "", cfg.Thresholds.CheckSegments(set))
}

// LoadSetFor loads the set a config names, or setOverride, with the
// query texts of its `queries` key: every command that reads a set
// through a config comes here, so each honours the key (and refuses a
// qrels set without it) as the gate does.
func LoadSetFor(cfg *config.Config, setOverride string) (*gate.Set, error) {
	return loadSetFor(cfg, setOverride, setfile.Load)
}

// loadSetFor is LoadSetFor with the loader of the set file (a draft's
// for label).
func loadSetFor(cfg *config.Config, setOverride string, load func(string) (*gate.Set, error)) (*gate.Set, error) {
	setPath := cfg.Set
	if setOverride != "" {
		setPath = setOverride
	}
	if setPath == "" {
		return nil, &gate.InputError{File: cfg.Path, Field: "set", Err: fmt.Errorf("required: the eval set to run (or --set)")}
	}
	set, err := load(setPath)
	if err != nil {
		return nil, fmt.Errorf("load set: %w", err)
	}
	if err := queryTexts(cfg, set); err != nil {
		return nil, err
	}
	return set, nil
}

// queryTexts gives set the texts of cfg's `queries` file, and refuses a
// qrels set when it names none.
func queryTexts(cfg *config.Config, set *gate.Set) error {
	if cfg.Queries != "" {
		if err := setfile.LoadQueryTexts(set, cfg.Queries); err != nil {
			return fmt.Errorf("load query texts: %w", err)
		}
	} else if set.Format == "qrels" {
		return &gate.InputError{File: cfg.Path, Field: "queries", Err: fmt.Errorf("set %s is TREC qrels, which has no query text: name a queries file ({\"id\",\"text\"} lines)", filepath.Base(set.Path))}
	}
	return nil
}

// WriteRunFile writes a run atomically, with its metadata line, to a file
// (a stream's name is refused: see WriteRunTo).
func WriteRunFile(path string, results []gate.Result, meta gate.RunMeta) error {
	return WriteRunTo(atomicfile.Streams{}, path, results, meta)
}

// WriteRunTo writes a run with its metadata line to path by atomicfile's
// rules: "-" and /dev/stdout are s's stdout.
func WriteRunTo(s atomicfile.Streams, path string, results []gate.Result, meta gate.RunMeta) error {
	return s.Write(path, 0o644, func(w io.Writer) error { return runfile.WriteRun(w, results, &meta) })
}
