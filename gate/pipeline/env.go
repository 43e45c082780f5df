// Package pipeline is the gate job: it retrieves the eval set with each
// side's retriever (concurrently, with repeats, a run cache and progress),
// materialises the base commit's tree for the base side, keeps every path
// of a job inside its workspace, and gathers what a comparison needs
// besides the two scorecards (waivers, the corpus, health, fingerprints,
// latency, stability). The gate, action, retrieve, drift and label
// commands all run through it; cmd/recallgate only parses flags, builds
// the Env and maps errors to exit codes.
package pipeline

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/recallgate/recallgate/gate/atomicfile"
	"github.com/recallgate/recallgate/gate/corpus"
)

// Env is what the job may touch of the world, so tests replace it.
type Env struct {
	// Getenv reads the environment (a command retriever's allowlisted
	// variables, http header values).
	Getenv func(string) string
	// Stderr receives progress, warnings and a command retriever's stderr.
	Stderr io.Writer
	// Stdout is the command's output stream: what an output named "-" or
	// /dev/stdout is written to (nil: such a name is refused).
	Stdout io.Writer
	// Client is the HTTP client of http retrievers; nil means a default one.
	Client *http.Client
	// Now is the clock (waiver expiry, label age); nil means time.Now.
	Now func() time.Time
	// Cache keeps runs between jobs; nil means no cache.
	Cache *RunCache
	// Fence, when set, opens a block in which output recallgate does not
	// control is never parsed as workflow commands, and returns its close.
	Fence func() (release func())
	// Corpora reads each corpus of the run once (the gold check, the
	// cache key, the index builds, attribution, the drift check and the
	// baseline record share its snapshot); nil: made on first use.
	Corpora *corpus.Reads
}

// corpora is the run's corpus reads, made on first use.
func (e *Env) corpora() *corpus.Reads {
	if e.Corpora == nil {
		e.Corpora = &corpus.Reads{}
	}
	return e.Corpora
}

// Streams are the env's output streams, for an output path named "-",
// /dev/stdout or /dev/stderr (see atomicfile.Streams.Write).
func (e *Env) Streams() atomicfile.Streams {
	return atomicfile.Streams{Stdout: e.Stdout, Stderr: e.Stderr}
}

// Clock is the current time.
func (e *Env) Clock() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// HTTPClient is the client retrievers use; per-query timeouts come from contexts.
func (e *Env) HTTPClient() *http.Client {
	if e.Client != nil {
		return e.Client
	}
	return &http.Client{Transport: http.DefaultTransport}
}

// Warn prints a warning line on Stderr.
func (e *Env) Warn(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "recallgate: warning: "+format+"\n", args...)
}

// Note prints a line on Stderr that says what was done, not a problem.
func (e *Env) Note(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "recallgate: "+format+"\n", args...)
}

// fence opens the Fence block, when there is one.
func (e *Env) fence() func() {
	if e.Fence == nil {
		return func() {}
	}
	return e.Fence()
}
