package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/builtin"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/endpoint"
	"github.com/recallgate/recallgate/gate/runfile"
	"github.com/recallgate/recallgate/gate/stdio"
)

// closer releases what a retriever holds (a subprocess, connections).
type closer func() error

// newRetriever builds the retriever a config table describes.
func newRetriever(ctx context.Context, e *Env, cfg *config.Config, r *config.Retriever, side string) (gate.Retriever, closer, error) {
	none := func() error { return nil }
	table := side + ".retriever"
	switch r.Type {
	case "file":
		rt, err := runfile.Load(r.Path)
		return rt, none, err
	case "builtin":
		o := builtin.DefaultOptions()
		o.ChunkWords, o.ChunkOverlap, o.TitleBoost = r.ChunkWords, r.ChunkOverlap, r.TitleBoost
		if r.K1 != nil {
			o.K1 = *r.K1
		}
		if r.B != nil {
			o.B = *r.B
		}
		if r.Stem != nil {
			o.Analysis.Stem = *r.Stem
		}
		if r.StopWords != nil {
			o.Analysis.StopWords = *r.StopWords
		}
		if err := o.Validate(); err != nil {
			return nil, none, &gate.InputError{File: cfg.Path, Field: table, Err: err}
		}
		build := builtin.Build
		if e.Cache != nil {
			build = func(corpus string, o builtin.Options) (*builtin.Index, error) {
				return builtin.BuildCached(corpus, o, e.Cache.Dir, func(s string) { e.Warn("%s", s) })
			}
		}
		ix, err := build(r.Corpus, o)
		if err != nil {
			return nil, none, fmt.Errorf("%s: build index: %w", side, err)
		}
		return ix, none, nil
	case "command":
		dir := r.Dir
		if dir == "" {
			dir = filepath.Dir(cfg.Path)
		}
		resume := e.fence() // the process's stderr is the PR's text
		sp, err := stdio.Start(r.Command, dir, gate.ChildEnv(e.Getenv, r.Env), e.Stderr)
		if err != nil {
			resume()
			return nil, none, &gate.InfraError{Err: fmt.Errorf("%s: %w", side, err)}
		}
		return sp, func() error { defer resume(); return sp.Close(5 * time.Second) }, nil
	case "http":
		retries := endpoint.DefaultRetries
		if r.Retries != nil {
			retries = *r.Retries
		}
		ep, err := endpoint.New(endpoint.Config{
			URL: r.URL, Method: r.Method, Body: r.Body, Headers: r.Headers,
			Hits: r.Hits, Doc: r.DocPath, Chunk: r.ChunkPath, Score: r.ScorePath, Text: r.TextPath,
			Retries: retries, MaxBody: r.MaxBody,
		}, e.HTTPClient(), e.Getenv)
		if err != nil {
			return nil, none, &gate.InputError{File: cfg.Path, Field: table, Err: err}
		}
		pctx, cancel := context.WithTimeout(ctx, r.Timeout.Duration)
		defer cancel()
		if err := ep.Preflight(pctx); err != nil {
			return nil, none, &gate.InfraError{Err: fmt.Errorf("%s: preflight request failed: %w", side, err)}
		}
		return ep, none, nil
	}
	return nil, none, &gate.InputError{File: cfg.Path, Field: table + ".type", Err: fmt.Errorf("retriever type %q is not available in this build", r.Type)}
}

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
	// Startup is how long building the retriever took (index, subprocess, preflight).
	Startup time.Duration
}

// latency summarises the timed calls of every repeat; nil for a cached run.
func (s SideRun) Latency() *gate.LatencyStats {
	if s.Cached {
		return nil
	}
	var calls []time.Duration
	for _, res := range s.Results {
		for _, r := range res {
			if r.Latency > 0 {
				calls = append(calls, r.Latency)
			}
		}
	}
	return gate.Latencies(calls, s.Startup)
}

// first is the run the comparison uses.
func (s SideRun) First() []gate.Result { return s.Results[0] }

// Retrieve retrieves the set for each named side at the same time,
// so the two sides share the wall time, repeats times over.
func Retrieve(ctx context.Context, e *Env, cfg *config.Config, set *gate.Set, sides []string, repeats int) (map[string]SideRun, error) {
	type built struct {
		r        gate.Retriever
		close    closer
		opts     gate.RetrieveOptions
		fp       SideRun
		cacheKey string
	}
	bs := map[string]*built{}
	defer func() {
		for _, b := range bs {
			_ = b.close()
		}
	}()
	for _, side := range sides {
		rc := cfg.Base
		if side == "head" {
			rc = cfg.Head
		}
		if rc == nil {
			return nil, &gate.InputError{File: cfg.Path, Field: side + ".retriever", Err: fmt.Errorf("no retriever configured: add [retriever] or [%s.retriever]", side)}
		}
		start := time.Now()
		r, c, err := newRetriever(ctx, e, cfg, rc, side)
		if err != nil {
			return nil, err
		}
		startup := time.Since(start)
		if rf, ok := r.(*runfile.Retriever); ok {
			if err := rf.CheckSet(set); err != nil {
				return nil, err
			}
		}
		b := &built{r: r, close: c, opts: gate.RetrieveOptions{K: cfg.Depth.Candidates, Concurrency: rc.Concurrency, Timeout: rc.Timeout.Duration}}
		b.fp.Config, b.fp.Startup = rc.Fingerprint(), startup
		if ix, ok := r.(interface{ Fingerprint() string }); ok {
			b.fp.Corpus = ix.Fingerprint()
		}
		bs[side] = b
	}
	limiters := map[string]*gate.Limiter{}
	for _, side := range sides {
		rc := cfg.Base
		if side == "head" {
			rc = cfg.Head
		}
		key := rc.URL
		if key == "" {
			key = side
		}
		if _, ok := limiters[key]; !ok {
			limiters[key] = gate.NewLimiter(rc.RateLimit)
		}
		bs[side].opts.Limiter = limiters[key]
	}
	prog := newProgress(e.Stderr, len(set.Queries)*len(bs)*max(repeats, 1))
	defer prog.finish()
	for _, b := range bs {
		b.opts.Progress = func(int) { prog.add() }
	}
	out := map[string]SideRun{}
	for side, b := range bs {
		out[side] = b.fp
	}
	if c := e.Cache; c != nil && max(repeats, 1) == 1 {
		for side, b := range bs {
			key := c.key(set, b.fp, side)
			if key == "" {
				continue
			}
			if res, ok := c.load(e, key, set); ok {
				sr := out[side]
				sr.Results = [][]gate.Result{res}
				sr.Cached = true
				out[side] = sr
				fmt.Fprintf(e.Stderr, "recallgate: %s: reused the cached run %s\n", side, c.path(key))
				delete(bs, side)
				continue
			}
			b.cacheKey = key
		}
	}
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
				res, err := gate.RetrieveAll(ctx, side, set, b.r, b.opts)
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
	for side, b := range bs {
		if b.cacheKey != "" && out[side].Err == nil {
			if err := e.Cache.store(b.cacheKey, out[side].First(), gate.RunMeta{Set: set.Fingerprint, Config: b.fp.Config}); err != nil {
				e.Warn("cache: %v", err)
			}
		}
	}
	return out, nil
}

// FingerprintFile hashes a file's bytes, or "" when it cannot be read.
func FingerprintFile(path string) string {
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
		return nil, nil, err
	}
	set, err := LoadSetFor(cfg, setOverride)
	if err != nil {
		return nil, nil, err
	}
	return cfg, set, cfg.Thresholds.CheckSegments(set)
}

// LoadSetFor loads the set a config names, or setOverride.
func LoadSetFor(cfg *config.Config, setOverride string) (*gate.Set, error) {
	setPath := cfg.Set
	if setOverride != "" {
		setPath = setOverride
	}
	if setPath == "" {
		return nil, &gate.InputError{File: cfg.Path, Field: "set", Err: fmt.Errorf("required: the eval set to run (or --set)")}
	}
	set, err := gate.LoadSet(setPath)
	if err != nil {
		return nil, fmt.Errorf("load set: %w", err)
	}
	if cfg.Queries != "" {
		if err := set.LoadQueryTexts(cfg.Queries); err != nil {
			return nil, fmt.Errorf("load query texts: %w", err)
		}
	} else if set.Format == "qrels" {
		return nil, &gate.InputError{File: cfg.Path, Field: "queries", Err: fmt.Errorf("set %s is TREC qrels, which has no query text: name a queries file ({\"id\",\"text\"} lines)", filepath.Base(setPath))}
	}
	return set, nil
}

// WriteRunFile writes a run atomically, with its metadata line.
func WriteRunFile(path string, results []gate.Result, meta gate.RunMeta) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return gate.WriteRun(w, results, &meta) })
}
