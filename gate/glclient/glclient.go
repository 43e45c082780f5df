// Package glclient is recallgate's GitLab REST client: the sticky merge
// request note, the archive of the merge request's base commit, and the
// tracking issue of the nightly drift run. It is the only importer of
// gitlab.com/gitlab-org/api/client-go. A refusal for lack of permission
// (401, 403, or 404 for a token that may not see the project) comes back
// as a *PermissionError, so callers can warn and keep their verdict.
package glclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/recallgate/recallgate/gate/publish"
)

// MaxNoteLength is GitLab's limit on a note's body (1,000,000 characters;
// fitted in bytes, which is never more).
const MaxNoteLength = 1_000_000

// DefaultTimeout bounds each API call (a listing with all its pages), so a
// slow API cannot hang a job.
const DefaultTimeout = 30 * time.Second

// ArchiveTimeout bounds the download of a commit's archive.
const ArchiveTimeout = 10 * time.Minute

// MaxResponseBytes bounds the body of every API answer but the archive's
// (which basetree bounds as it unpacks): a page of 100 notes, each under
// GitLab's 1,000,000-character limit, fits with room, and an answer that
// never ends is cut here instead of filling memory until the timeout.
const MaxResponseBytes = 64 << 20

// maxPages bounds a listing, so an API that always names a next page
// cannot keep the job listing.
const maxPages = 500

// retries is how often a call GitLab answered 429 or 5xx is tried again
// (GET and PUT only: a POST GitLab may have acted on is not repeated).
const retries = 2

// fitWhere is where a fitted note says the full report is.
const fitWhere = "the job's JSON report and JUnit report artifacts"

// Client talks to one project.
type Client struct {
	gl      *gitlab.Client
	project string
	// WebURL is the project's page (CI_PROJECT_URL), for links to notes;
	// "" gives links that name the note and merge request instead.
	WebURL string
	// Timeout bounds each API call (DefaultTimeout unless changed);
	// ArchiveTimeout the archive's download (ArchiveTimeout unless changed).
	Timeout, ArchiveTimeout time.Duration
	// Warn receives a line when a body had to be shortened to fit
	// GitLab's limit (nil: silent).
	Warn func(string)
	// me is who the token is, once asked.
	me *gitlab.User
	// token is masked in every error the client returns.
	token string
}

// New returns a client for the project (CI_PROJECT_ID, or its path) at the
// REST API root apiURL (CI_API_V4_URL), authenticated with a personal,
// project or group access token.
func New(hc *http.Client, apiURL, token, project string) (*Client, error) {
	if project == "" {
		return nil, errors.New("no project: CI_PROJECT_ID is not set")
	}
	if token == "" {
		return nil, errors.New("no token: set RECALLGATE_GITLAB_TOKEN to a project access token with the api scope")
	}
	u, err := url.Parse(apiURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("API URL %q is not an http(s) URL (CI_API_V4_URL)", apiURL)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return nil, fmt.Errorf("API URL %q is plain http to another machine: the token would cross the network unencrypted, so it is not sent; use https (CI_API_V4_URL)", apiURL)
	}
	if hc == nil {
		hc = &http.Client{}
	}
	capped := *hc
	capped.Transport = &capTransport{base: hc.Transport, max: MaxResponseBytes}
	capped.CheckRedirect = keepTokenHome(hc.CheckRedirect)
	hc = &capped
	gl, err := gitlab.NewClient(token,
		gitlab.WithBaseURL(apiURL),
		gitlab.WithHTTPClient(hc),
		gitlab.WithCustomRetryMax(retries),
		gitlab.WithCustomRetryWaitMinMax(200*time.Millisecond, 2*time.Second),
		gitlab.WithOnlyIdempotentRetries(),
		// recallgate checked the URL; the library would log to the process's stderr.
		gitlab.WithURLWarningLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	)
	if err != nil {
		return nil, fmt.Errorf("GitLab client: %w", err)
	}
	return &Client{gl: gl, project: project, Timeout: DefaultTimeout, ArchiveTimeout: ArchiveTimeout, token: token}, nil
}

// Ports is the client as the publishing rules' ports (the sticky note,
// the drift issue); nil, nil for a nil client (no token), so the rules warn.
func (c *Client) Ports() (publish.Comments, publish.Issues) {
	if c == nil {
		return nil, nil
	}
	return c, c
}

// call returns a context bounded by the client's timeout.
func (c *Client) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.Timeout)
}

// PermissionError means GitLab refused the call for lack of permission: a
// token without the api scope, a CI_JOB_TOKEN (which cannot write notes or
// issues), or a role below Reporter.
type PermissionError struct {
	Op     string
	Status int
	Err    error
}

// Error implements error.
func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: GitLab answered %d (the token lacks permission: RECALLGATE_GITLAB_TOKEN needs the api scope and at least the Reporter role; CI_JOB_TOKEN cannot write notes): %v", e.Op, e.Status, e.Err)
}

// Unwrap returns the API error.
func (e *PermissionError) Unwrap() error { return e.Err }

// status is the HTTP status of a failed call, 0 when there was none.
func status(resp *gitlab.Response, err error) int {
	if resp != nil && resp.Response != nil {
		return resp.StatusCode
	}
	var er *gitlab.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode
	}
	return 0
}

// wrap classifies an API error, the token masked in its text.
func (c *Client) wrap(op string, resp *gitlab.Response, err error) error {
	if err == nil {
		return nil
	}
	switch s := status(resp, err); s {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return c.mask(&PermissionError{Op: op, Status: s, Err: err})
	case http.StatusTooManyRequests:
		return c.mask(fmt.Errorf("%s: GitLab API rate limit exhausted (tried %d times): %w", op, retries+1, err))
	}
	return c.mask(fmt.Errorf("%s: %w", op, err))
}

// mask hides the token in err's text: GitLab masks a variable in the job
// log only when its owner made it a masked variable, and an answer's body
// (a proxy's, a server's) may repeat the token it was sent.
func (c *Client) mask(err error) error {
	if err == nil || len(c.token) < 4 {
		return err
	}
	return &maskedError{err: err, token: c.token}
}

// maskedError is an error whose text has the token replaced by [MASKED];
// errors.As and errors.Is see the error it wraps.
type maskedError struct {
	err   error
	token string
}

// Error implements error.
func (m *maskedError) Error() string { return strings.ReplaceAll(m.err.Error(), m.token, "[MASKED]") }

// Unwrap returns the error masked.
func (m *maskedError) Unwrap() error { return m.err }

// self asks GitLab once who the token is (GET /user: a person for a
// personal token, the token's bot user for a project or group token).
func (c *Client) self(ctx context.Context) (*gitlab.User, error) {
	if c.me != nil {
		return c.me, nil
	}
	u, resp, err := c.gl.Users.CurrentUser(gitlab.WithContext(ctx))
	if err != nil {
		return nil, c.wrap("who is the token (GET /user)", resp, err)
	}
	if u == nil || (u.ID == 0 && u.Username == "") {
		return nil, errors.New("who is the token (GET /user): GitLab answered no user")
	}
	c.me = u
	return u, nil
}

// wrote reports whether the author (id, username) is the token's own user.
func wrote(me *gitlab.User, id int64, username string) bool {
	if me.ID != 0 && id != 0 {
		return me.ID == id
	}
	return me.Username != "" && strings.EqualFold(me.Username, username)
}

// inertQuickActions puts a zero-width space before the "/" of every line
// that starts with one (after blanks): GitLab runs a quick action
// ("/label", "/merge", "/approve") from a line of a note or description
// the API creates, and no line recallgate writes is one.
func inertQuickActions(body string) string {
	if !strings.Contains(body, "/") {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "/") {
			lines[i] = l[:len(l)-len(t)] + "\u200b" + t
		}
	}
	return strings.Join(lines, "")
}

// fit shortens body under GitLab's limit, warning when it must, and makes
// its quick actions inert.
func (c *Client) fit(what, body string) string {
	body = inertQuickActions(body)
	out := publish.Fit(body, MaxNoteLength, fitWhere)
	if len(out) < len(body) && c.Warn != nil {
		c.Warn(fmt.Sprintf("the %s was %d bytes, over GitLab's limit of %d characters: it is shortened (the full report is in the job's artifacts)", what, len(body), MaxNoteLength))
	}
	return out
}

// noteLink is where note id of merge request mr is seen.
func (c *Client) noteLink(mr int, id int64) string {
	if c.WebURL != "" {
		return fmt.Sprintf("%s/-/merge_requests/%d#note_%d", strings.TrimSuffix(c.WebURL, "/"), mr, id)
	}
	return fmt.Sprintf("note %d on merge request !%d", id, mr)
}

// FindComment returns the id of the gate's sticky note on merge request mr
// (its IID), 0 when there is none: the first note the token's own user
// wrote (GET /user) that starts with markers[0], else, listed in the same
// pass, one that starts with a later marker (taken over once). A person's
// note quoting a marker is never it; system notes are skipped.
func (c *Client) FindComment(ctx context.Context, mr int, markers []string) (int64, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	me, err := c.self(ctx)
	if err != nil {
		return 0, err
	}
	best, rank := int64(0), len(markers)
	opt := &gitlab.ListMergeRequestNotesOptions{ListOptions: gitlab.ListOptions{PerPage: 100}, OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc")}
	opts := []gitlab.RequestOptionFunc{gitlab.WithContext(ctx)}
	for page := 0; ; page++ {
		if page == maxPages {
			return 0, fmt.Errorf("list merge request notes: more than %d pages", maxPages)
		}
		notes, resp, err := c.gl.Notes.ListMergeRequestNotes(c.project, int64(mr), opt, opts...)
		if err != nil {
			return 0, c.wrap("list merge request notes", resp, err)
		}
		for _, n := range notes {
			if n == nil || n.System || !wrote(me, n.Author.ID, n.Author.Username) {
				continue
			}
			for i, m := range markers[:rank] {
				if strings.HasPrefix(n.Body, m) {
					best, rank = n.ID, i
					break
				}
			}
			if rank == 0 {
				return best, nil
			}
		}
		next, ok := gitlab.WithNext(resp)
		if !ok {
			return best, nil
		}
		opts = []gitlab.RequestOptionFunc{gitlab.WithContext(ctx), next}
	}
}

// WriteComment edits note id with body, or creates a note on merge request
// mr when id is 0. The body starts with marker and is fitted under GitLab's
// limit.
func (c *Client) WriteComment(ctx context.Context, mr int, id int64, marker, body string) (created bool, link string, err error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	if !strings.HasPrefix(body, marker) {
		body = marker + "\n" + body
	}
	body = c.fit("merge request note", body)
	if id != 0 {
		n, resp, err := c.gl.Notes.UpdateMergeRequestNote(c.project, int64(mr), id, &gitlab.UpdateMergeRequestNoteOptions{Body: &body}, gitlab.WithContext(ctx))
		if err != nil {
			return false, "", c.wrap("update merge request note", resp, err)
		}
		return false, c.noteLink(mr, n.ID), nil
	}
	n, resp, err := c.gl.Notes.CreateMergeRequestNote(c.project, int64(mr), &gitlab.CreateMergeRequestNoteOptions{Body: &body}, gitlab.WithContext(ctx))
	if err != nil {
		return false, "", c.wrap("create merge request note", resp, err)
	}
	return true, c.noteLink(mr, n.ID), nil
}

// UpsertComment keeps the gate's sticky note: it finds it (FindComment)
// and replaces its body, or creates it the first time.
func (c *Client) UpsertComment(ctx context.Context, mr int, markers []string, body string) (created bool, link string, err error) {
	id, err := c.FindComment(ctx, mr, markers)
	if err != nil {
		return false, "", err
	}
	return c.WriteComment(ctx, mr, id, markers[0], body)
}

// FindIssue returns the oldest open issue with the label that the token's
// own user opened, or nil: a person's issue with the label is never edited.
func (c *Client) FindIssue(ctx context.Context, label string) (*publish.Issue, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	me, err := c.self(ctx)
	if err != nil {
		return nil, err
	}
	labels := gitlab.LabelOptions{label}
	opt := &gitlab.ListProjectIssuesOptions{ListOptions: gitlab.ListOptions{PerPage: 100}, State: gitlab.Ptr("opened"), Labels: &labels, OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc")}
	opts := []gitlab.RequestOptionFunc{gitlab.WithContext(ctx)}
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("list drift issues: more than %d pages", maxPages)
		}
		is, resp, err := c.gl.Issues.ListProjectIssues(c.project, opt, opts...)
		if err != nil {
			return nil, c.wrap("list drift issues", resp, err)
		}
		for _, i := range is {
			if i == nil || i.Author == nil || i.State != "opened" || !hasLabel(i.Labels, label) || !wrote(me, i.Author.ID, i.Author.Username) {
				continue
			}
			return &publish.Issue{Number: int(i.IID), Body: i.Description, Link: i.WebURL}, nil
		}
		next, ok := gitlab.WithNext(resp)
		if !ok {
			return nil, nil
		}
		opts = []gitlab.RequestOptionFunc{gitlab.WithContext(ctx), next}
	}
}

// hasLabel reports whether the issue carries the label (GitLab filters by
// it already; a server that does not is not trusted).
func hasLabel(labels gitlab.Labels, label string) bool {
	for _, l := range labels {
		if l == label {
			return true
		}
	}
	return false
}

// CreateIssue opens an issue with the label; the body is fitted like a
// note's. It returns the issue's URL.
func (c *Client) CreateIssue(ctx context.Context, label, title, body string) (string, error) {
	body = c.fit("drift issue", body)
	ctx, cancel := c.call(ctx)
	defer cancel()
	labels := gitlab.LabelOptions{label}
	is, resp, err := c.gl.Issues.CreateIssue(c.project, &gitlab.CreateIssueOptions{Title: &title, Description: &body, Labels: &labels}, gitlab.WithContext(ctx))
	if err != nil {
		return "", c.wrap("open drift issue", resp, err)
	}
	return issueLink(is), nil
}

// EditIssue replaces issue n's description, and its title unless title is
// "". It returns the issue's URL.
func (c *Client) EditIssue(ctx context.Context, n int, title, body string) (string, error) {
	body = c.fit("drift issue", body)
	ctx, cancel := c.call(ctx)
	defer cancel()
	opt := &gitlab.UpdateIssueOptions{Description: &body}
	if title != "" {
		opt.Title = &title
	}
	is, resp, err := c.gl.Issues.UpdateIssue(c.project, int64(n), opt, gitlab.WithContext(ctx))
	if err != nil {
		return "", c.wrap("update drift issue", resp, err)
	}
	return issueLink(is), nil
}

// CommentOnIssue adds a note to issue n. It never closes the issue: people
// do.
func (c *Client) CommentOnIssue(ctx context.Context, n int, body string) error {
	body = c.fit("drift issue note", body)
	ctx, cancel := c.call(ctx)
	defer cancel()
	_, resp, err := c.gl.Notes.CreateIssueNote(c.project, int64(n), &gitlab.CreateIssueNoteOptions{Body: &body}, gitlab.WithContext(ctx))
	return c.wrap("note on drift issue", resp, err)
}

// issueLink is the issue's page, or its reference when GitLab gave none.
func issueLink(is *gitlab.Issue) string {
	if is == nil {
		return "the drift issue"
	}
	if is.WebURL != "" {
		return is.WebURL
	}
	return "issue #" + strconv.FormatInt(is.IID, 10)
}

// Archive returns the gzipped tar archive of the repository at ref (a
// commit SHA), streamed from GET /projects/:id/repository/archive.tar.gz:
// every entry sits under one top folder, as basetree expects. A token
// that may not read the repository gives a *PermissionError.
func (c *Client) Archive(ctx context.Context, ref string) (io.ReadCloser, error) {
	op := fmt.Sprintf("download the archive of %s", ref)
	dctx, cancel := context.WithTimeout(ctx, c.ArchiveTimeout)
	pr, pw := io.Pipe()
	first := make(chan struct{})
	done := make(chan error, 1)
	w := &firstWrite{w: pw, first: first}
	go func() {
		_, err := c.gl.Repositories.StreamArchive(c.project, w, &gitlab.ArchiveOptions{Format: gitlab.Ptr("tar.gz"), SHA: &ref}, gitlab.WithContext(dctx))
		done <- err
		pw.CloseWithError(c.mask(err))
	}()
	select {
	case <-first:
		return &cancelBody{ReadCloser: pr, cancel: cancel}, nil
	case err := <-done:
		if err != nil {
			cancel()
			var pe *PermissionError
			if err = c.wrap(op, nil, err); errors.As(err, &pe) {
				return nil, c.mask(fmt.Errorf("%s: GitLab answered %d: the token cannot read the repository (RECALLGATE_GITLAB_TOKEN needs the read_repository or api scope): %w", op, pe.Status, pe.Err))
			}
			return nil, err
		}
		return &cancelBody{ReadCloser: pr, cancel: cancel}, nil
	}
}

// maxListingPages bounds the pages of a tree listing (100 entries each).
const maxListingPages = 5000

// Listing calls add with every file, link and submodule of commit ref's
// tree, from GET /projects/:id/repository/tree?recursive=true&ref=SHA,
// page by page (100 entries each, following x-next-page): entries of type
// "blob" and "commit" ("tree" is implied by the paths); GitLab gives no
// sizes (-1). More than maxListingPages pages is an error.
func (c *Client) Listing(ctx context.Context, ref string, add func(path, mode, sha string, size int64)) error {
	op := fmt.Sprintf("list the tree of %s", ref)
	opt := &gitlab.ListTreeOptions{Ref: &ref, Recursive: gitlab.Ptr(true), ListOptions: gitlab.ListOptions{PerPage: 100, Page: 1}}
	for pages := 0; ; pages++ {
		if pages == maxListingPages {
			return c.mask(fmt.Errorf("%s: more than %d pages of entries", op, maxListingPages))
		}
		lctx, cancel := c.call(ctx)
		nodes, resp, err := c.gl.Repositories.ListTree(c.project, opt, gitlab.WithContext(lctx))
		cancel()
		if err != nil {
			return c.wrap(op, resp, err)
		}
		for _, n := range nodes {
			switch n.Type {
			case "tree":
				continue
			case "blob", "commit":
			default:
				return c.mask(fmt.Errorf("%s: entry %q has an unknown type %q", op, n.Path, n.Type))
			}
			add(n.Path, n.Mode, n.ID, -1)
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		opt.Page = resp.NextPage
	}
}

// Blob returns blob sha's content, from GET
// /projects/:id/repository/blobs/:sha/raw; more than max bytes is an
// error.
func (c *Client) Blob(ctx context.Context, sha string, max int64) ([]byte, error) {
	op := fmt.Sprintf("download blob %s", sha)
	dctx, cancel := context.WithTimeout(ctx, c.ArchiveTimeout)
	defer cancel()
	data, resp, err := c.gl.Repositories.RawBlobContent(c.project, sha, gitlab.WithContext(dctx))
	if err != nil {
		return nil, c.wrap(op, resp, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %d bytes, over the %d the base tree may still hold", op, len(data), max)
	}
	return data, nil
}

// tokenHeaders are the headers GitLab's client sends the token in. Go
// drops Authorization on a redirect to another host, but not these.
var tokenHeaders = []string{"PRIVATE-TOKEN", "JOB-TOKEN", "Authorization"}

// keepTokenHome is a CheckRedirect that follows a redirect (as next, or
// Go's default of at most 10, would) but without the token when it leaves
// the host (or the scheme) the first request went to: the token is never
// sent elsewhere, nor in clear after https.
func keepTokenHome(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		} else if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if len(via) > 0 && (!strings.EqualFold(req.URL.Host, via[0].URL.Host) || req.URL.Scheme != via[0].URL.Scheme) {
			for _, h := range tokenHeaders {
				req.Header.Del(h)
			}
		}
		return nil
	}
}

// capTransport cuts every answer's body but the archive's (a 2xx one) at max bytes:
// reading past it is an error that says so.
type capTransport struct {
	base http.RoundTripper
	max  int64
}

// RoundTrip implements http.RoundTripper.
func (t *capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.StatusCode/100 == 2 && strings.HasSuffix(req.URL.Path, "/repository/archive.tar.gz") {
		return resp, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.max, max: t.max}
	return resp, nil
}

// cappedBody reads at most max bytes of a body, then fails.
type cappedBody struct {
	io.ReadCloser
	left, max int64
}

// Read implements io.Reader.
func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("GitLab's answer is over %d MiB: recallgate reads no more of it", b.max>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// firstWrite closes first on the first write: the archive's body has begun
// (GitLab answered 200).
type firstWrite struct {
	w     io.Writer
	first chan struct{}
	seen  bool
}

// Write implements io.Writer.
func (f *firstWrite) Write(p []byte) (int, error) {
	if !f.seen {
		f.seen = true
		close(f.first)
	}
	return f.w.Write(p)
}

// cancelBody releases the download's context when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

// Close implements io.Closer.
func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// loopback reports a host name that stays on this machine: the only place
// plain http may carry the token.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
