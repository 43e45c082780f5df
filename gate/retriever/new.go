// Package retriever builds a retriever from its spec (the config's table)
// and holds the kinds, each a package of its own in this folder, named as
// the config names it: builtin (BM25 over a corpus), http (a search
// service), command (a long-lived subprocess) and file (a run made
// elsewhere). To add a kind: its package here, its name in spec.Kinds (and
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

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/childenv"
	"github.com/recallgate/recallgate/gate/retriever/builtin"
	"github.com/recallgate/recallgate/gate/retriever/command"
	"github.com/recallgate/recallgate/gate/retriever/file"
	httpretriever "github.com/recallgate/recallgate/gate/retriever/http"
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
		build := builtin.Build
		if d.IndexDir != "" {
			build = func(corpus string, o builtin.Options) (*builtin.Index, error) {
				return builtin.BuildCached(corpus, o, d.IndexDir, d.Warn)
			}
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
			err = &gate.InfraError{Err: fmt.Errorf("%s: %w", side, err)}
			if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				// Not a retriever that is down: there is none to start.
				fix := fmt.Sprintf("install %s where recallgate runs (a bare name is looked up on PATH), or fix %s.command to name a program that is there and executable", r.Command[0], table)
				if d.Getenv != nil && d.Getenv(spec.DockerActionEnv) == "1" {
					// Inside the Docker action's image: no install helps.
					fix = spec.NativeActionFix(r.Command[0])
					err = &gate.InfraError{Err: fmt.Errorf("%w; %s", errors.Unwrap(err), fix)}
				}
				err = gate.WithFix(err, fix)
			}
			return nil, none, err
		}
		return sp, func() error { defer resume(); return sp.Close(command.StopGrace) }, nil
	case "http":
		ep, err := newHTTP(r, d)
		if err != nil {
			return nil, none, err
		}
		pctx, cancel := context.WithTimeout(ctx, r.Timeout.Duration)
		defer cancel()
		if err := ep.Preflight(pctx); err != nil {
			return nil, none, &gate.InfraError{Err: fmt.Errorf("%s: preflight request failed: %w", side, err)}
		}
		return ep, none, nil
	}
	return nil, none, &gate.InputError{File: d.ConfigPath, Field: table + ".type", Err: fmt.Errorf("retriever type %q is not available in this build", r.Type)}
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
		_, err = newHTTP(r, d)
	case "file", "command":
	default:
		err = &gate.InputError{File: d.ConfigPath, Field: d.Side + ".retriever.type", Err: fmt.Errorf("retriever type %q is not available in this build", r.Type)}
	}
	return err
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
