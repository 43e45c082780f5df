// Package retriever builds a retriever from its spec (the config's table)
// and holds the kinds, each a package of its own in this folder, named as
// the config names it: builtin (BM25 over a corpus), http (a search
// service, started by service when the table says how), command (a
// long-lived subprocess) and file (a run made elsewhere). To add a kind: its package here, its name in spec.Kinds (and
// its required key in spec.Retriever.RequiredKey), its case in New.
package retriever

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/childenv"
	"github.com/recallgate/recallgate/gate/corpus"
	"github.com/recallgate/recallgate/gate/retriever/builtin"
	"github.com/recallgate/recallgate/gate/retriever/command"
	"github.com/recallgate/recallgate/gate/retriever/file"
	httpretriever "github.com/recallgate/recallgate/gate/retriever/http"
	"github.com/recallgate/recallgate/gate/retriever/service"
	"github.com/recallgate/recallgate/gate/retriever/spec"
)

// Deps are what a retriever may need of the world.
type Deps struct {
	// ConfigPath is the config file the table came from, for errors; Side
	// is "base" or "head" (the table is "<side>.retriever").
	ConfigPath, Side string
	// Getenv reads the environment: a command retriever's allowlisted
	// variables, http header values.
	Getenv func(string) string
	// Stderr receives a command retriever's stderr.
	Stderr io.Writer
	// Client is the http retrievers' client.
	Client *http.Client
	// Warn reports something the build had to work around.
	Warn func(string)
	// IndexDir, when set, keeps builtin indexes between jobs.
	IndexDir string
	// Indexes, when set, builds each distinct builtin index once for all
	// the tables built with it (builtin.Shared); nil: each its own.
	Indexes *builtin.Shared
	// Corpora reads each builtin corpus once for every index built from
	// it and the rest of the run (nil: each build reads its own).
	Corpora *corpus.Reads
	// Fence, when set, fences a subprocess's output (action mode) and
	// returns the release.
	Fence func() func()
}

// Closer releases what a retriever holds (a subprocess, connections).
type Closer func() error

// New builds the retriever a table describes.
func New(ctx context.Context, r *spec.Retriever, d Deps) (gate.Retriever, Closer, error) {
	none := func() error { return nil }
	table, side := d.Side+".retriever", d.Side
	switch r.Type {
	case "file":
		rt, err := file.Load(r.Path)
		return rt, none, err
	case "builtin":
		o, err := builtinOptions(r, d)
		if err != nil {
			return nil, none, err
		}
		build := func(path string, o builtin.Options) (*builtin.Index, error) {
			snap, err := d.Corpora.Get(path)
			if err != nil {
				return nil, err
			}
			if d.IndexDir != "" {
				return builtin.BuildCached(snap, o, d.IndexDir, d.Warn)
			}
			return builtin.Build(snap, o)
		}
		var ix *builtin.Index
		if d.Indexes != nil {
			ix, err = d.Indexes.Build(r.Corpus, o, build)
		} else {
			ix, err = build(r.Corpus, o)
		}
		if err != nil {
			return nil, none, fmt.Errorf("%s: build index: %w", side, err)
		}
		return ix, none, nil
	case "command":
		dir := r.Dir
		if dir == "" {
			dir = filepath.Dir(d.ConfigPath)
		}
		resume := func() {}
		if d.Fence != nil {
			resume = d.Fence() // the process's stderr is the PR's text
		}
		warn := func(string) {}
		if d.Warn != nil {
			warn = func(s string) { d.Warn(side + ": " + s) }
		}
		sp, err := command.Start(r.Command, command.Options{Dir: dir, Env: childenv.ChildEnv(d.Getenv, r.Env), Stderr: d.Stderr, Warn: warn})
		if err != nil {
			resume()
			return nil, none, startError(err, r.Command[0], table+".command", d)
		}
		return sp, func() error { defer resume(); return sp.Close(command.StopGrace) }, nil
	case "http":
		stop := none
		if len(r.Start) > 0 {
			svc, release, err := startService(ctx, r, d)
			if err != nil {
				return nil, none, err
			}
			filled := *r
			filled.URL = svc.Fill(r.URL)
			r = &filled
			stop = func() error { defer release(); svc.Stop(); return nil }
		}
		ep, err := newHTTP(r, d)
		if err != nil {
			_ = stop()
			return nil, none, err
		}
		pctx, cancel := context.WithTimeout(ctx, r.Timeout.Duration)
		defer cancel()
		if err := ep.Preflight(pctx); err != nil {
			_ = stop()
			return nil, none, &gate.InfraError{Err: fmt.Errorf("%s: preflight request failed: %w", side, err)}
		}
		return ep, stop, nil
	}
	return nil, none, &gate.InputError{File: d.ConfigPath, Field: table + ".type", Err: fmt.Errorf("retriever type %q is not available in this build", r.Type)}
}

// startService starts an http table's service (its start key) in the
// side's own tree, with the allowlisted environment, its output fenced in
// action mode until the returned release.
func startService(ctx context.Context, r *spec.Retriever, d Deps) (*service.Service, func(), error) {
	dir := r.Dir
	if dir == "" {
		dir = filepath.Dir(d.ConfigPath)
	}
	argv, err := startArgs(r, d)
	if err != nil {
		return nil, nil, err
	}
	release := func() {}
	if d.Fence != nil {
		release = d.Fence() // the service's output is the PR's text
	}
	svc, err := service.Start(ctx, argv, service.Options{
		Dir: dir, Env: childenv.ChildEnv(d.Getenv, r.Env), Output: d.Stderr, URL: r.URL, Ready: r.Ready,
		Timeout: r.StartWait(), Client: d.Client, Name: d.Side + " side's service",
		Program: r.Start[0], Prefix: d.Side + ": ",
	})
	if err != nil {
		release()
		return nil, nil, startError(err, r.Start[0], d.Side+".retriever.start", d)
	}
	return svc, release, nil
}

// startArgs is the table's start command with ${VAR} read as in its url
// (httpretriever.ExpandStart): a runner credential or an unset variable
// is the config's error (exit 2), naming the variable, never a value.
func startArgs(r *spec.Retriever, d Deps) ([]string, error) {
	argv, err := httpretriever.ExpandStart(r.Start, d.Getenv)
	if err != nil {
		return nil, &gate.InputError{File: d.ConfigPath, Field: d.Side + ".retriever.start", Err: err}
	}
	return argv, nil
}

// startError is a program (a command retriever, a service) that did not
// start: the retriever's trouble (exit 3), with how to make it there when
// it is missing (inside the Docker action's image, no install helps).
func startError(err error, program, field string, d Deps) error {
	side := d.Side
	err = &gate.InfraError{Err: fmt.Errorf("%s: %w", side, err)}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		// Not a retriever that is down: there is none to start.
		fix := fmt.Sprintf("install %s where recallgate runs (a bare name is looked up on PATH), or fix %s to name a program that is there and executable", program, field)
		if d.Getenv != nil && d.Getenv(spec.DockerActionEnv) == "1" {
			// Inside the Docker action's image: no install helps.
			fix = spec.NativeActionFix(program)
			err = &gate.InfraError{Err: fmt.Errorf("%w; %s", errors.Unwrap(err), fix)}
		}
		err = gate.WithFix(err, fix)
	}
	return err
}

// Check refuses, as New would, a table that cannot be built, without
// building it: no index, no process, no request. validate --config
// calls it so it refuses what the gate refuses.
func Check(r *spec.Retriever, d Deps) error {
	var err error
	switch r.Type {
	case "builtin":
		_, err = builtinOptions(r, d)
	case "http":
		if len(r.Start) > 0 {
			if _, err := startArgs(r, d); err != nil {
				return err
			}
			filled := *r // the port is known once the service starts
			filled.URL = strings.ReplaceAll(r.URL, spec.PortPlaceholder, "1")
			r = &filled
		}
		_, err = newHTTP(r, d)
	case "file", "command":
	default:
		err = &gate.InputError{File: d.ConfigPath, Field: d.Side + ".retriever.type", Err: fmt.Errorf("retriever type %q is not available in this build", r.Type)}
	}
	return err
}

// Preflight builds the table's retriever as New does and asks it one
// harmless query, then closes it: an http table's service started when
// the table says how and sent the preflight request (its answer read
// with the table's paths), a command table's program started and asked
// once. When first is given, it is then asked that query (the set's
// first) for k hits, so an empty index shows before the gate runs. It
// returns what answered, for a message; builtin and file tables send
// nothing (a zero Preflighted and nil).
func Preflight(ctx context.Context, r *spec.Retriever, d Deps, first *gate.Query, k int) (Preflighted, error) {
	if r.Type != "http" && r.Type != "command" {
		return Preflighted{}, nil
	}
	rt, closer, err := New(ctx, r, d)
	if err != nil {
		return Preflighted{}, err
	}
	defer func() { _ = closer() }()
	var p Preflighted
	if r.Type == "http" {
		p.What = rt.(*httpretriever.Retriever).Where()
		if len(r.Start) > 0 {
			p.What += " (the service started by " + strings.Join(r.Start, " ") + ")"
		}
		// New sent the preflight request
	} else {
		p.What = "the command " + r.Command[0]
		qctx, cancel := context.WithTimeout(ctx, r.Timeout.Duration)
		defer cancel()
		if _, err := rt.Retrieve(qctx, &gate.Query{ID: "recallgate-preflight", Text: "recallgate preflight"}, 1); err != nil {
			return Preflighted{}, &gate.InfraError{Err: fmt.Errorf("%s: preflight query failed: %w", d.Side, err)}
		}
	}
	if first == nil {
		return p, nil
	}
	qctx, cancel := context.WithTimeout(ctx, r.Timeout.Duration)
	defer cancel()
	hits, err := rt.Retrieve(qctx, first, max(k, 1))
	if err != nil {
		return Preflighted{}, &gate.InfraError{Err: fmt.Errorf("%s: query %s failed: %w", d.Side, gate.ClipID(first.ID), err)}
	}
	p.Asked, p.Hits = first.ID, len(hits)
	return p, nil
}

// Preflighted is what Preflight found: What answered (for a message),
// and, when it was asked the set's first query, that query's id (Asked)
// and how many hits the answer held.
type Preflighted struct {
	What, Asked string
	Hits        int
}

// SameRequest reports whether two http tables without start would send
// one request to one service (httpretriever.Caller.Same: ${VAR} read in
// the url and headers), and where: the URL as messages show it. false for
// other kinds, a table with start (each side starts its own) or one New
// would refuse (its own build says why).
func SameRequest(a, b *spec.Retriever, getenv func(string) string) (same bool, where string) {
	if a == nil || b == nil || a.Type != "http" || b.Type != "http" || len(a.Start) > 0 || len(b.Start) > 0 {
		return false, ""
	}
	ca, err := httpretriever.NewCaller(httpretriever.Config{URL: a.URL, Method: a.Method, Body: a.Body, Headers: a.Headers}, nil, getenv)
	if err != nil {
		return false, ""
	}
	cb, err := httpretriever.NewCaller(httpretriever.Config{URL: b.URL, Method: b.Method, Body: b.Body, Headers: b.Headers}, nil, getenv)
	if err != nil {
		return false, ""
	}
	return ca.Same(cb), ca.Where()
}

// IndexKey names the index a builtin table builds (builtin.IndexKey: its
// corpus, chunking, analysis and title field): tables of one key share a
// build when built with one Deps.Indexes. "" for another kind, or a table
// New would refuse: each such table is a retriever of its own.
func IndexKey(r *spec.Retriever) string {
	if r == nil || r.Type != "builtin" {
		return ""
	}
	o, err := builtinOptions(r, Deps{})
	if err != nil {
		return ""
	}
	return builtin.IndexKey(r.Corpus, o)
}

// builtinOptions are the BM25 options of a builtin table.
func builtinOptions(r *spec.Retriever, d Deps) (builtin.Options, error) {
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
		return o, &gate.InputError{File: d.ConfigPath, Field: d.Side + ".retriever", Err: err}
	}
	return o, nil
}

// newHTTP makes an http table's retriever (no request sent).
func newHTTP(r *spec.Retriever, d Deps) (*httpretriever.Retriever, error) {
	retries := httpretriever.DefaultRetries
	if r.Retries != nil {
		retries = *r.Retries
	}
	ep, err := httpretriever.New(httpretriever.Config{
		URL: r.URL, Method: r.Method, Body: r.Body, Headers: r.Headers,
		Hits: r.Hits, Doc: r.DocPath, Chunk: r.ChunkPath, Score: r.ScorePath, Text: r.TextPath,
		Start: r.StartPath, End: r.EndPath, Section: r.SectionPath,
		Context: r.Context, ContextDoc: r.ContextDoc, ContextChunk: r.ContextChunk, ContextText: r.ContextText, ContextTokens: r.ContextTokens,
		Abstain: r.Abstain,
		Retries: retries, MaxBody: r.MaxBody, Warn: func(s string) { warn(d, d.Side, s) },
	}, d.Client, d.Getenv)
	if err != nil {
		return nil, &gate.InputError{File: d.ConfigPath, Field: d.Side + ".retriever", Err: err}
	}
	return ep, nil
}

// warn passes a retriever's warning on, naming the side.
func warn(d Deps, side, s string) {
	if d.Warn != nil {
		d.Warn(side + ": " + s)
	}
}
