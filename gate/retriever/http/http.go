// Package httpretriever, in gate/retriever/http, is the "http" retriever:
// it sends each query to a search service over HTTP and reads the ranked hits out of the JSON answer with
// configurable paths, so Elasticsearch/OpenSearch, Qdrant and home-made
// services work without code. It retries throttling and server errors a
// bounded number of times, honours Retry-After, limits the size of what it
// reads and never prints header values.
package httpretriever

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
)

// Config describes the request and where the hits are in the answer.
type Config struct {
	// URL may hold {{query}} (URL-escaped), {{k}} and {{id}}.
	URL string
	// Method defaults to POST when Body is set, else GET.
	Method string
	// Body may hold {{query}} and {{id}} (each a JSON string literal, quotes
	// included) and {{k}} (a number).
	Body string
	// Headers are sent with every request; ${VAR} in a value reads the
	// environment. Values are secrets: they never appear in messages.
	Headers map[string]string
	// Hits is the path to the array of hits, e.g. "hits.hits" or "result".
	Hits string
	// Doc, Chunk, Score and Text are paths inside one hit; Doc is required.
	Doc, Chunk, Score, Text string
	// Start, End and Section are optional paths inside one hit: the
	// passage's byte offsets in its document's text and the anchor of its
	// section, which place it in the document's sections.
	Start, End, Section string
	// Context, when set, is the path to the array of passages the pipeline
	// handed the model, in order; ContextDoc, ContextChunk, ContextText and
	// ContextTokens are paths inside one passage (default "doc", "chunk",
	// "text" and "tokens"). An answer without it is an error.
	Context                                              string
	ContextDoc, ContextChunk, ContextText, ContextTokens string
	// Abstain, when set, is the path to the pipeline's refusal signal, a
	// boolean ("answer.abstained"). An answer without it is an error.
	Abstain string
	// Retries is how many times a 429, 5xx or broken connection is retried.
	Retries int
	// MaxBody is the largest response body read, in bytes.
	MaxBody int64
	// Backoff is the first wait between retries when the server gives no
	// Retry-After; it doubles each time. MaxWait caps any single wait.
	Backoff, MaxWait time.Duration
	// Warn, when set, is told once when an answer holds more than
	// input.MaxKeptHits(k) hits (the rest are dropped, never built).
	Warn func(string)
}

// Defaults for the optional fields.
const (
	DefaultRetries = 3
	DefaultMaxBody = 16 << 20
)

// Retriever is a configured HTTP retriever.
type Retriever struct {
	cfg      Config
	caller   *Caller
	hits     []string
	fields   [4][]string // doc, chunk, score, text
	place    [3][]string // start, end, section (nil: not asked for)
	context  []string
	cfields  [4][]string // a passage's doc, chunk, text, tokens
	abstain  []string
	dropped  sync.Once // the warning about answers over input.MaxKeptHits
	textless sync.Once // the warning about a context without any text
}

// Caller sends one templated request and reads its answer, as every
// HTTP kind does: {{name}} placeholders filled in (URL-escaped in the URL,
// JSON in the body), header values reading ${VAR} (secrets, never in a
// message), 429, 5xx and broken connections retried with backoff and
// Retry-After, the body read up to MaxBody. The judge's http transport
// speaks through it too.
type Caller struct {
	cfg     Config
	client  *http.Client
	headers http.Header
	secrets []string
}

// Var is one {{Name}} of a templated request and its value: a string
// (a JSON string in the body) or, with Number, a number written as is.
type Var struct {
	Name, Value string
	Number      bool
}

// placeholder is a {{name}} of a template.
var placeholder = regexp.MustCompile(`\{\{[a-z_]+\}\}`)

// NewCaller checks the request part of cfg (URL, Method, Body, Headers,
// Retries, MaxBody, Backoff, MaxWait) and resolves ${VAR} in header
// values with getenv.
func NewCaller(cfg Config, client *http.Client, getenv func(string) string) (*Caller, error) {
	if client == nil {
		client = http.DefaultClient
	}
	if cfg.URL == "" {
		return nil, errors.New("url is required")
	}
	var err error
	if cfg.URL, err = ExpandURL(cfg.URL, getenv); err != nil {
		return nil, err
	}
	u, err := url.Parse(placeholder.ReplaceAllString(cfg.URL, "x"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url %q is not an http(s) URL", redactURL(cfg.URL))
	}
	if cfg.Method == "" {
		cfg.Method = http.MethodGet
		if cfg.Body != "" {
			cfg.Method = http.MethodPost
		}
	}
	cfg.Method = strings.ToUpper(cfg.Method)
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Retries < 0 {
		return nil, errors.New("retries must not be negative")
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 30 * time.Second
	}
	c := &Caller{cfg: cfg, client: client, headers: http.Header{}}
	for name, v := range cfg.Headers {
		var missing, secret []string
		val := os.Expand(v, func(k string) string {
			if gate.RunnerSecret(k) {
				secret = append(secret, k)
				return ""
			}
			s := getenv(k)
			if s == "" {
				missing = append(missing, k)
			} else {
				c.secrets = append(c.secrets, s) // "Bearer ${KEY}": the key alone is a secret too
			}
			return s
		})
		if len(secret) > 0 {
			return nil, fmt.Errorf("header %s reads %s: the runner's credentials are never sent to a retriever (a pull request's config is code running next to them); give the service its own key in another variable", name, strings.Join(secret, ", "))
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("header %s reads unset environment variable %s", name, strings.Join(missing, ", "))
		}
		if val != "" {
			c.secrets = append(c.secrets, val)
		}
		c.headers.Set(name, val)
	}
	if c.headers.Get("Content-Type") == "" && cfg.Body != "" {
		c.headers.Set("Content-Type", "application/json")
	}
	return c, nil
}

// envRef is a ${NAME} in a url.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ExpandURL writes the environment's value (getenv) for each ${NAME} in a
// url, so one config reaches a deployment per side (a preview's URL in
// the pull request's job). Only the braced form is read: a bare $ stays.
// The runner's credentials are refused (gate.RunnerSecret), as in a
// header, and so is a variable that is not set.
func ExpandURL(raw string, getenv func(string) string) (string, error) {
	return expand(raw, "url", getenv)
}

// ExpandStart is ExpandURL for each word of a service's start command:
// its errors name the variable, never a value.
func ExpandStart(argv []string, getenv func(string) string) ([]string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		v, err := expand(a, "start", getenv)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// expand writes getenv's value for each ${NAME} in raw; key names what
// reads them in its errors.
func expand(raw, key string, getenv func(string) string) (string, error) {
	var missing, secret []string
	out := envRef.ReplaceAllStringFunc(raw, func(m string) string {
		name := envRef.FindStringSubmatch(m)[1]
		if gate.RunnerSecret(name) {
			secret = append(secret, name)
			return ""
		}
		v := ""
		if getenv != nil {
			v = getenv(name)
		}
		if v == "" {
			missing = append(missing, name)
		}
		return v
	})
	if len(secret) > 0 {
		return "", fmt.Errorf("%s reads %s: the runner's credentials are never sent to a retriever", key, strings.Join(secret, ", "))
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("%s reads unset environment variable %s", key, strings.Join(missing, ", "))
	}
	return out, nil
}

// Call sends the request with vars filled in and returns the answer's
// body; its errors name the URL without its query string and never a
// header value.
func (c *Caller) Call(ctx context.Context, vars []Var) ([]byte, error) {
	b, err := c.call(ctx, vars, false)
	if err != nil {
		return nil, c.redact(err)
	}
	return b, nil
}

// Where is the URL as messages show it (no query string, no user info).
func (c *Caller) Where() string { return redactURL(c.cfg.URL) }

// Same reports whether two callers send one request to one place: the
// same method, URL (${VAR} read), body template and headers (values
// read), so one service would answer both.
func (c *Caller) Same(o *Caller) bool {
	if c.cfg.Method != o.cfg.Method || c.cfg.URL != o.cfg.URL || c.cfg.Body != o.cfg.Body || len(c.headers) != len(o.headers) {
		return false
	}
	for k, v := range c.headers {
		if !slices.Equal(v, o.headers[k]) {
			return false
		}
	}
	return true
}

// New checks the config and resolves ${VAR} in header values with getenv.
func New(cfg Config, client *http.Client, getenv func(string) string) (*Retriever, error) {
	if cfg.URL != "" && cfg.Doc == "" {
		if _, err := NewCaller(Config{URL: cfg.URL}, client, getenv); err != nil {
			return nil, err
		}
		return nil, errors.New("doc (the path to a hit's document id) is required")
	}
	c, err := NewCaller(cfg, client, getenv)
	if err != nil {
		return nil, err
	}
	cfg = c.cfg
	r := &Retriever{cfg: cfg, caller: c, hits: splitPath(cfg.Hits)}
	for i, p := range []string{cfg.Doc, cfg.Chunk, cfg.Score, cfg.Text} {
		r.fields[i] = splitPath(p)
	}
	for i, p := range []string{cfg.Start, cfg.End, cfg.Section} {
		r.place[i] = splitPath(p)
	}
	if cfg.Context == "" && cfg.ContextDoc+cfg.ContextChunk+cfg.ContextText+cfg.ContextTokens != "" {
		return nil, errors.New("context_doc, context_chunk, context_text and context_tokens are paths inside the context: set context (the path to the array of passages) too")
	}
	r.context, r.abstain = splitPath(cfg.Context), splitPath(cfg.Abstain)
	for i, p := range []string{orDefault(cfg.ContextDoc, "doc"), orDefault(cfg.ContextChunk, "chunk"), orDefault(cfg.ContextText, "text"), orDefault(cfg.ContextTokens, "tokens")} {
		r.cfields[i] = splitPath(p)
	}
	return r, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Where is the URL as messages show it (no query string, no user info).
func (r *Retriever) Where() string { return r.caller.Where() }

// Preflight sends one request with a harmless query, so a wrong URL or
// credentials fail before the whole set is run. A refused connection or an
// unknown host is not retried there: nothing listens at that address, and
// waiting for the backoff would only delay the error.
func (r *Retriever) Preflight(ctx context.Context) error {
	_, err := r.retrieve(ctx, &gate.Query{ID: "recallgate-preflight", Text: "recallgate preflight"}, 1, true)
	return err
}

// Retrieve implements gate.Retriever.
func (r *Retriever) Retrieve(ctx context.Context, q *gate.Query, k int) ([]gate.Hit, error) {
	a, err := r.retrieve(ctx, q, k, false)
	return a.Hits, err
}

// Answer implements gate.AnswerRetriever: the hits, and the final context
// and refusal signal at the configured context and abstain paths.
func (r *Retriever) Answer(ctx context.Context, q *gate.Query, k int) (gate.Answer, error) {
	return r.retrieve(ctx, q, k, false)
}

func (r *Retriever) retrieve(ctx context.Context, q *gate.Query, k int, preflight bool) (gate.Answer, error) {
	body, err := r.caller.call(ctx, queryVars(q, k), preflight)
	if err != nil {
		return gate.Answer{}, r.caller.redact(err)
	}
	keep := input.MaxKeptHits(k)
	hits, total, err := r.parse(body, keep)
	if err != nil {
		return gate.Answer{}, fmt.Errorf("%s: %w", redactURL(r.cfg.URL), err)
	}
	a := gate.Answer{Hits: hits}
	if !preflight {
		if a.Context, a.Abstain, err = r.parseAnswer(body, keep); err != nil {
			return gate.Answer{}, fmt.Errorf("%s: %w", redactURL(r.cfg.URL), err)
		}
	}
	if textless(a.Context) && r.cfg.Warn != nil {
		r.textless.Do(func() {
			r.cfg.Warn(fmt.Sprintf("%s answered query %s with a context of %d passages and no text at their %q path: no required fact can be found in them (check context_text)",
				redactURL(r.cfg.URL), q.ID, len(a.Context), strings.Join(r.cfields[2], ".")))
		})
	}
	if total > keep && r.cfg.Warn != nil {
		r.dropped.Do(func() {
			r.cfg.Warn(fmt.Sprintf("%s answered query %s with %d hits: only the first %d are kept (%d per candidate asked for, at least %d), the rest of this and every later answer over the limit dropped",
				redactURL(r.cfg.URL), q.ID, total, keep, input.HitsPerDepth, input.MinKeptHits))
		})
	}
	return a, nil
}

// textless reports a final context of passages none of which has text:
// most likely a context_text path that names nothing in the answer.
func textless(ctx []gate.Passage) bool {
	for _, p := range ctx {
		if p.Text != "" {
			return false
		}
	}
	return len(ctx) > 0
}

// queryVars are a retriever request's placeholders: {{query}}, {{k}}, {{id}}.
func queryVars(q *gate.Query, k int) []Var {
	return []Var{{Name: "query", Value: q.Text}, {Name: "k", Value: strconv.Itoa(k), Number: true}, {Name: "id", Value: q.ID}}
}

func (c *Caller) request(ctx context.Context, vars []Var) (*http.Request, error) {
	inURL := make([]string, 0, 2*len(vars))
	inBody := make([]string, 0, 2*len(vars))
	for _, v := range vars {
		key := "{{" + v.Name + "}}"
		inURL = append(inURL, key, url.QueryEscape(v.Value))
		lit := v.Value
		if !v.Number {
			b, _ := json.Marshal(v.Value)
			lit = string(b)
		}
		inBody = append(inBody, key, lit)
	}
	u := strings.NewReplacer(inURL...).Replace(c.cfg.URL)
	var body io.Reader
	if c.cfg.Body != "" {
		body = strings.NewReader(strings.NewReplacer(inBody...).Replace(c.cfg.Body))
	}
	req, err := http.NewRequestWithContext(ctx, c.cfg.Method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header = c.headers.Clone()
	return req, nil
}

// unreachable reports a transport error that says nothing listens at the
// address: the connection was refused or the host name is unknown.
func unreachable(err error) bool {
	var dns *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &dns) && dns.IsNotFound)
}

// call sends the request, retrying 429, 5xx and transport errors (in the
// preflight, all but an unreachable address).
func (c *Caller) call(ctx context.Context, vars []Var, preflight bool) ([]byte, error) {
	r := c
	wait := r.cfg.Backoff
	for attempt := 0; ; attempt++ {
		req, err := r.request(ctx, vars)
		if err != nil {
			return nil, err
		}
		resp, err := r.client.Do(req)
		var retryAfter time.Duration
		var lastErr error
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = fmt.Errorf("request to %s: %w", redactURL(r.cfg.URL), err)
			if preflight && unreachable(err) {
				return nil, fmt.Errorf("%w (nothing answers at that address: is the service running and the url right?)", lastErr)
			}
		} else {
			body, rerr := readLimited(resp.Body, r.cfg.MaxBody)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
				lastErr = fmt.Errorf("HTTP %d from %s%s", resp.StatusCode, redactURL(r.cfg.URL), excerpt(body))
				retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			case resp.StatusCode < 200 || resp.StatusCode > 299:
				return nil, fmt.Errorf("HTTP %d from %s%s", resp.StatusCode, redactURL(r.cfg.URL), excerpt(body))
			case rerr != nil:
				lastErr = fmt.Errorf("read answer of %s: %w", redactURL(r.cfg.URL), rerr)
				if errors.Is(rerr, errTooLarge) {
					return nil, lastErr
				}
			default:
				return body, nil
			}
		}
		if attempt >= r.cfg.Retries {
			if r.cfg.Retries > 0 {
				return nil, fmt.Errorf("%w (gave up after %d retries)", lastErr, r.cfg.Retries)
			}
			return nil, lastErr
		}
		d := wait
		if retryAfter > 0 {
			d = retryAfter
		}
		d = min(d, r.cfg.MaxWait)
		wait = min(wait*2, r.cfg.MaxWait)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (while waiting to retry: %v)", ctx.Err(), lastErr)
		case <-time.After(d):
		}
	}
}

var errTooLarge = errors.New("response body is over the size limit")

// readLimited reads at most max bytes and fails beyond that.
func readLimited(rc io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w (%d bytes; raise max_body_bytes)", errTooLarge, max)
	}
	return b, nil
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// excerpt is the start of a response body for an error message, on one
// line: the body is the server's text, and a line break in it could forge
// a line of the log.
func excerpt(b []byte) string {
	s := strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, string(b)))
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return ": " + s
}

// redactURL drops the query string and user info, where keys tend to hide.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the configured URL"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}

// redact removes every header value from an error message.
func (r *Caller) redact(err error) error {
	msg := err.Error()
	changed := false
	for _, s := range r.secrets {
		if len(s) >= 4 && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "***")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return errors.New(msg)
}
