// Package spec is how a config describes a retriever: the table type of
// [retriever], [base.retriever] and [head.retriever], and the one list of
// kinds the config checks against. It imports nothing of recallgate's, so
// the config reader can use it without pulling in the retrievers; the
// factory in gate/retriever builds a retriever from a spec.
package spec

import (
	"fmt"
	"strings"
	"time"
)

// Kinds are the retriever types a config may name, in the order messages list them.
var Kinds = []string{"builtin", "http", "command", "file"}

// DockerActionEnv is the variable the Docker action's image sets to "1":
// a process that sees it runs inside that image, which holds recallgate
// and nothing else (no Python, no shell).
const DockerActionEnv = "RECALLGATE_DOCKER_ACTION"

// NativeActionFix is the advice for a command retriever whose program
// the Docker action's image cannot start.
func NativeActionFix(program string) string {
	return fmt.Sprintf("the Docker action has no %s (its image holds recallgate alone): use the native action, `recallgate/recallgate/native@v1`, which runs on the runner beside the job's own toolchain (`recallgate init --retriever command` writes that workflow), or an http retriever", program)
}

// KindList is Kinds as a message says it: "builtin, http, command or file".
func KindList() string {
	return strings.Join(Kinds[:len(Kinds)-1], ", ") + " or " + Kinds[len(Kinds)-1]
}

// RequiredKey is the key a table of its kind cannot do without and its
// value ("" and "" when the kind has none that is a string).
func (r *Retriever) RequiredKey() (key, value string) {
	switch r.Type {
	case "builtin":
		return "corpus", r.Corpus
	case "http":
		return "url", r.URL
	case "file":
		return "path", r.Path
	}
	return "", ""
}

// Retriever configures one side's retriever, as a [retriever], [base.retriever]
// or [head.retriever] table of recallgate.toml. Which keys apply depends on
// Type, one of Kinds.
type Retriever struct {
	// Type names the retriever kind.
	Type string `toml:"type"`
	// Concurrency is how many queries run at once (default 4).
	Concurrency int `toml:"concurrency"`
	// Timeout bounds each query, as a Go duration ("10s"; default 30s).
	Timeout Duration `toml:"timeout"`
	// RateLimit caps requests a second to the retriever (0 = none); sides
	// with the same URL share the limit.
	RateLimit float64 `toml:"rate_limit"`

	// Path is the run file of a "file" retriever, resolved like Set.
	Path string `toml:"path"`

	// Corpus is the folder or JSONL file a "builtin" retriever indexes.
	Corpus       string   `toml:"corpus"`
	ChunkWords   int      `toml:"chunk_words"`
	ChunkOverlap int      `toml:"chunk_overlap"`
	K1           *float64 `toml:"k1"`
	B            *float64 `toml:"b"`
	TitleBoost   float64  `toml:"title_boost"`
	Stem         *bool    `toml:"stem"`
	StopWords    *bool    `toml:"stop_words"`

	// URL, Method, Body and Headers describe an "http" retriever's request.
	URL     string            `toml:"url"`
	Method  string            `toml:"method"`
	Body    string            `toml:"body"`
	Headers map[string]string `toml:"headers"`
	// Hits, Doc, Chunk, Score and Text are paths into the JSON response:
	// Hits to the array of hits, the others relative to one hit.
	Hits      string `toml:"hits"`
	DocPath   string `toml:"doc"`
	ChunkPath string `toml:"chunk"`
	ScorePath string `toml:"score"`
	TextPath  string `toml:"text"`
	// StartPath, EndPath and SectionPath are optional paths relative to
	// one hit: its byte offsets in its document's text and its section's
	// anchor (http only), which place it in the document's sections.
	StartPath   string `toml:"start_offset" json:",omitempty"`
	EndPath     string `toml:"end_offset" json:",omitempty"`
	SectionPath string `toml:"section" json:",omitempty"`
	// Context is the path to the array of passages the pipeline handed
	// the model; ContextDoc, ContextChunk, ContextText and ContextTokens
	// are paths inside one passage. Abstain is the path to the pipeline's
	// refusal signal, a boolean. All optional, http only.
	Context       string `toml:"context" json:",omitempty"`
	ContextDoc    string `toml:"context_doc" json:",omitempty"`
	ContextChunk  string `toml:"context_chunk" json:",omitempty"`
	ContextText   string `toml:"context_text" json:",omitempty"`
	ContextTokens string `toml:"context_tokens" json:",omitempty"`
	Abstain       string `toml:"abstain" json:",omitempty"`
	Retries       *int   `toml:"retries"`
	MaxBody       int64  `toml:"max_body_bytes"`

	// Start, when set, is the argv (no shell) of the search service an
	// "http" retriever starts itself, in the side's own tree (Dir), on a
	// free loopback port written for {port} (PortPlaceholder) in Start and
	// URL; Ready is the path polled until the service answers (default
	// URL's), StartTimeout how long that may take (default
	// DefaultStartTimeout). See CheckStart.
	Start        []string  `toml:"start" json:",omitempty"`
	Ready        string    `toml:"ready" json:",omitempty"`
	StartTimeout *Duration `toml:"start_timeout" json:",omitempty"`

	// Command is the argv of a "command" retriever (no shell).
	Command []string `toml:"command"`
	// Env names the variables a command retriever (or an http retriever's
	// started service) gets besides the defaults (childenv.ChildEnvNames);
	// the runner's credentials never.
	Env []string `toml:"env" json:",omitempty"`

	// Dir is the folder of the config file the table came from: a command
	// retriever runs there, and relative paths were resolved from it.
	Dir string `toml:"-" json:"-"`
	// Sum is set by the config reader: "sha256:" and the hash of the table
	// as written (paths unresolved).
	Sum string `toml:"-" json:"-"`
}

// Fingerprint is "sha256:" and the hash of the table as written (paths
// unresolved), so it does not depend on the working folder.
func (r *Retriever) Fingerprint() string { return r.Sum }

// Duration is a time.Duration written as a string in TOML ("10s").
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration like \"10s\": %w", err)
	}
	if v < 0 {
		return fmt.Errorf("duration must not be negative, got %s", v)
	}
	d.Duration = v
	return nil
}
