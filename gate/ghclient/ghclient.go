// Package ghclient is recallgate's GitHub REST client: the sticky pull
// request comment, the archive of the PR's base commit, and the
// tracking issue of the nightly drift run. It is the only importer of
// go-github. A permission refusal (403, or 404 for a token that may not
// see the repository) comes back as a *PermissionError, so callers can warn
// and keep their verdict.
package ghclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/recallgate/recallgate/gate/publish"
)

// MaxCommentLength is GitHub's limit on an issue or PR comment body.
const MaxCommentLength = 65536

// DefaultTimeout bounds each API call, so a slow API cannot hang a job.
const DefaultTimeout = 30 * time.Second

// Client talks to one repository.
type Client struct {
	gh          *github.Client
	hc          *http.Client
	owner, repo string
	// Timeout bounds each API call (DefaultTimeout unless changed).
	Timeout time.Duration
	// me is who the token is, once asked.
	me *author
}

// call returns a context bounded by the client's timeout.
func (c *Client) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.Timeout)
}

// New returns a client for repository "owner/name" at the REST API root
// apiURL (GITHUB_API_URL), authenticated with token.
func New(hc *http.Client, apiURL, token, repository string) (*Client, error) {
	owner, repo, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("repository %q is not owner/name", repository)
	}
	if token == "" {
		return nil, errors.New("no token: set the github-token input")
	}
	gh := github.NewClient(hc).WithAuthToken(token)
	if apiURL != "" {
		u, err := url.Parse(strings.TrimSuffix(apiURL, "/") + "/")
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("API URL %q is not a URL", apiURL)
		}
		gh.BaseURL = u
	}
	return &Client{gh: gh, hc: hc, owner: owner, repo: repo, Timeout: DefaultTimeout}, nil
}

// Ports is the client as the publishing rules' ports (the sticky comment,
// the drift issue); nil, nil for a nil client (no token), so the rules warn.
func (c *Client) Ports() (publish.Comments, publish.Issues) {
	if c == nil {
		return nil, nil
	}
	return c, c
}

// PermissionError means GitHub refused the call for lack of permission, as
// on pull requests from forks, whose tokens are read-only.
type PermissionError struct {
	Op     string
	Status int
	Err    error
}

// Error implements error.
func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: GitHub answered %d (the token lacks permission; on a fork PR use the two-workflow pattern): %v", e.Op, e.Status, e.Err)
}

// Unwrap returns the API error.
func (e *PermissionError) Unwrap() error { return e.Err }

// wrap classifies an API error.
func wrap(op string, resp *github.Response, err error) error {
	if err == nil {
		return nil
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("%s: GitHub API rate limit exhausted until %s: %w", op, rl.Rate.Reset.Time.UTC().Format(time.RFC3339), err)
	}
	if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound) {
		var rl *github.RateLimitError
		var arl *github.AbuseRateLimitError
		if !errors.As(err, &rl) && !errors.As(err, &arl) {
			return &PermissionError{Op: op, Status: resp.StatusCode, Err: err}
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// author is who the token writes as: a user's login (a personal or
// fine-grained token), or, for a token that cannot read /user (the job's
// GITHUB_TOKEN, a GitHub App's installation token), any Bot account:
// github-actions[bot] or the App's <app>[bot], whose login such a token
// cannot ask for.
type author struct {
	login string
	bot   bool
}

// wrote reports whether u is the token's own account.
func (a author) wrote(u *github.User) bool {
	if a.login != "" {
		return strings.EqualFold(u.GetLogin(), a.login)
	}
	return a.bot && u.GetType() == "Bot"
}

// self asks GitHub once who the token is: GET /user answers 200 for a
// user's token and 403 for an installation token (the job's, an App's).
func (c *Client) self(ctx context.Context) (author, error) {
	if c.me != nil {
		return *c.me, nil
	}
	u, resp, err := c.gh.Users.Get(ctx, "")
	var a author
	switch {
	case err == nil && u.GetLogin() != "":
		a.login = u.GetLogin()
	case err == nil:
		return a, errors.New("who is the token (GET /user): GitHub answered no login")
	case resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound):
		a.bot = true
	default:
		return a, wrap("who is the token (GET /user)", resp, err)
	}
	c.me = &a
	return a, nil
}

// UpsertComment keeps the gate's sticky comment: it finds it (see
// FindComment) and replaces its body, or creates it the first time. The
// body starts with markers[0] and is fitted under GitHub's length limit
// (see Fit). It reports whether a comment was created and its URL.
func (c *Client) UpsertComment(ctx context.Context, pr int, markers []string, body string) (created bool, link string, err error) {
	id, err := c.FindComment(ctx, pr, markers)
	if err != nil {
		return false, "", err
	}
	return c.WriteComment(ctx, pr, id, markers[0], body)
}

// WriteComment edits comment id with body, or creates a comment on the PR
// when id is 0. The body starts with marker and is fitted under GitHub's
// length limit (see Fit).
func (c *Client) WriteComment(ctx context.Context, pr int, id int64, marker, body string) (created bool, link string, err error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	if !strings.HasPrefix(body, marker) {
		body = marker + "\n" + body
	}
	body = Fit(body, MaxCommentLength)
	if id != 0 {
		cm, resp, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, id, &github.IssueComment{Body: &body})
		if err != nil {
			return false, "", wrap("update PR comment", resp, err)
		}
		return false, cm.GetHTMLURL(), nil
	}
	cm, resp, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, pr, &github.IssueComment{Body: &body})
	if err != nil {
		return false, "", wrap("create PR comment", resp, err)
	}
	return true, cm.GetHTMLURL(), nil
}

// FindComment returns the id of the gate's sticky comment on the PR, 0
// when there is none: the first comment the token's own account wrote
// (see author) that starts with markers[0], else, listed in the same pass,
// one that starts with a later marker (an earlier release's marker of the
// same gate, taken over once: the edit gives it markers[0]). A person's
// comment quoting a marker is never it.
func (c *Client) FindComment(ctx context.Context, pr int, markers []string) (int64, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	me, err := c.self(ctx)
	if err != nil {
		return 0, err
	}
	best, rank := int64(0), len(markers)
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cms, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, pr, opt)
		if err != nil {
			return 0, wrap("list PR comments", resp, err)
		}
		for _, cm := range cms {
			if !me.wrote(cm.GetUser()) {
				continue
			}
			for i, m := range markers[:rank] {
				if strings.HasPrefix(cm.GetBody(), m) {
					best, rank = cm.GetID(), i
					break
				}
			}
			if rank == 0 {
				return best, nil
			}
		}
		if resp.NextPage == 0 {
			return best, nil
		}
		opt.Page = resp.NextPage
	}
}

// PullRequestHead returns the head commit SHA of pull request n.
func (c *Client) PullRequestHead(ctx context.Context, n int) (string, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	pr, resp, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, n)
	if err != nil {
		return "", wrap(fmt.Sprintf("read pull request %d", n), resp, err)
	}
	return pr.GetHead().GetSHA(), nil
}

// FindPullRequest returns the open pull request whose head is headOwner's
// branch at commit sha, or 0 when there is none.
func (c *Client) FindPullRequest(ctx context.Context, headOwner, branch, sha string) (int, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	opt := &github.PullRequestListOptions{State: "open", Head: headOwner + ":" + branch, ListOptions: github.ListOptions{PerPage: 100}}
	for {
		prs, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, opt)
		if err != nil {
			return 0, wrap("list pull requests", resp, err)
		}
		for _, pr := range prs {
			if pr.GetHead().GetSHA() == sha {
				return pr.GetNumber(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
		}
		opt.Page = resp.NextPage
	}
}

// ArchiveTimeout bounds the download of a commit's archive.
const ArchiveTimeout = 10 * time.Minute

// Archive returns the gzipped tar archive of the repository at ref (a
// commit SHA): GitHub answers the tarball endpoint with a redirect to a
// short-lived download link, which is fetched without the token. A token
// that may not read the repository's contents gives a *PermissionError.
func (c *Client) Archive(ctx context.Context, ref string) (io.ReadCloser, error) {
	op := fmt.Sprintf("download the archive of %s", ref)
	lctx, cancel := c.call(ctx)
	defer cancel()
	link, resp, err := c.gh.Repositories.GetArchiveLink(lctx, c.owner, c.repo, github.Tarball, &github.RepositoryContentGetOptions{Ref: ref}, 1)
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound) {
			return nil, fmt.Errorf("%s: GitHub answered %d: the token cannot read the repository's contents (it needs contents: read)", op, resp.StatusCode)
		}
		return nil, wrap(op, resp, err)
	}
	dctx, dcancel := context.WithTimeout(ctx, ArchiveTimeout)
	req, err := http.NewRequestWithContext(dctx, http.MethodGet, link.String(), nil)
	if err != nil {
		dcancel()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	hc := c.hc
	if hc == nil {
		hc = http.DefaultClient
	}
	dl, err := hc.Do(req)
	if err != nil {
		dcancel()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if dl.StatusCode != http.StatusOK {
		dl.Body.Close()
		dcancel()
		return nil, fmt.Errorf("%s: the download link answered %s", op, dl.Status)
	}
	return &cancelBody{ReadCloser: dl.Body, cancel: dcancel}, nil
}

// MaxListingBytes bounds the answer of a tree listing: GitHub's own is at
// most 100,000 entries and 7 MB.
const MaxListingBytes = 64 << 20

// Listing calls add with every file, link and submodule of commit ref's
// tree, from GET /repos/{owner}/{repo}/git/trees/{sha}?recursive=1:
// entries of type "blob" and "commit" (folders, "tree", are implied by the
// paths). GitHub cuts a large tree short and says so (truncated): that is
// an error, since what the commit holds would be told from part of it.
func (c *Client) Listing(ctx context.Context, ref string, add func(path, mode, sha string, size int64)) error {
	op := fmt.Sprintf("list the tree of %s", ref)
	ctx, cancel := c.call(ctx)
	defer cancel()
	req, err := c.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/git/trees/%s?recursive=1", url.PathEscape(c.owner), url.PathEscape(c.repo), url.PathEscape(ref)), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	resp, err := c.gh.BareDo(ctx, req)
	if err != nil {
		return wrap(op, resp, err)
	}
	defer resp.Body.Close()
	// Decoded from at most MaxListingBytes: an answer past it (or one
	// that never ends) is refused, not read into memory until the call's
	// time runs out.
	body := &io.LimitedReader{R: resp.Body, N: MaxListingBytes + 1}
	var tree github.Tree
	if err := json.NewDecoder(body).Decode(&tree); err != nil {
		if body.N <= 0 {
			return fmt.Errorf("%s: the answer is over %d bytes", op, MaxListingBytes)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	if tree.GetTruncated() {
		return fmt.Errorf("%s: GitHub cut the listing short (truncated: more entries than its tree API returns at once)", op)
	}
	for _, e := range tree.Entries {
		switch e.GetType() {
		case "tree":
			continue
		case "blob", "commit":
		default:
			return fmt.Errorf("%s: entry %q has an unknown type %q", op, e.GetPath(), e.GetType())
		}
		size := int64(-1)
		if e.Size != nil {
			size = int64(*e.Size)
		}
		add(e.GetPath(), e.GetMode(), e.GetSHA(), size)
	}
	return nil
}

// Blob returns blob sha's content, from GET
// /repos/{owner}/{repo}/git/blobs/{sha} (raw); more than max bytes is an
// error.
func (c *Client) Blob(ctx context.Context, sha string, max int64) ([]byte, error) {
	op := fmt.Sprintf("download blob %s", sha)
	ctx, cancel := context.WithTimeout(ctx, ArchiveTimeout)
	defer cancel()
	req, err := c.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/git/blobs/%s", url.PathEscape(c.owner), url.PathEscape(c.repo), url.PathEscape(sha)), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Accept", "application/vnd.github.v3.raw")
	resp, err := c.gh.BareDo(ctx, req)
	if err != nil {
		return nil, wrap(op, resp, err)
	}
	defer resp.Body.Close()
	// Read no more than the tree may still hold: a blob past it (or a
	// body that never ends) is refused at max+1 bytes, not read whole.
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: over the %d bytes the base tree may still hold", op, max)
	}
	return data, nil
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

// FindIssue returns the oldest open issue with the label that the token's
// own account opened (see author), or nil.
func (c *Client) FindIssue(ctx context.Context, label string) (*publish.Issue, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	is, err := c.openIssue(ctx, label)
	if err != nil || is == nil {
		return nil, err
	}
	return &publish.Issue{Number: is.GetNumber(), Body: is.GetBody(), Link: is.GetHTMLURL()}, nil
}

// CreateIssue opens an issue with the label; the body is fitted like a
// comment's. It returns the issue's URL.
func (c *Client) CreateIssue(ctx context.Context, label, title, body string) (string, error) {
	body = Fit(body, MaxCommentLength)
	ctx, cancel := c.call(ctx)
	defer cancel()
	labels := []string{label}
	nw, resp, err := c.gh.Issues.Create(ctx, c.owner, c.repo, &github.IssueRequest{Title: &title, Body: &body, Labels: &labels})
	if err != nil {
		return "", wrap("open drift issue", resp, err)
	}
	return nw.GetHTMLURL(), nil
}

// EditIssue replaces issue n's body, and its title unless title is "".
// It returns the issue's URL.
func (c *Client) EditIssue(ctx context.Context, n int, title, body string) (string, error) {
	body = Fit(body, MaxCommentLength)
	ctx, cancel := c.call(ctx)
	defer cancel()
	req := &github.IssueRequest{Body: &body}
	if title != "" {
		req.Title = &title
	}
	up, resp, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, n, req)
	if err != nil {
		return "", wrap("update drift issue", resp, err)
	}
	return up.GetHTMLURL(), nil
}

// CommentOnIssue adds a comment to issue n. It never closes the issue:
// people do.
func (c *Client) CommentOnIssue(ctx context.Context, n int, body string) error {
	body = Fit(body, MaxCommentLength)
	ctx, cancel := c.call(ctx)
	defer cancel()
	_, resp, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, n, &github.IssueComment{Body: &body})
	return wrap("comment on drift issue", resp, err)
}

// openIssue returns the oldest open issue (not PR) with the label that
// the token's own account opened (see author), or nil: a person's issue
// with the label is never edited.
func (c *Client) openIssue(ctx context.Context, label string) (*github.Issue, error) {
	me, err := c.self(ctx)
	if err != nil {
		return nil, err
	}
	opt := &github.IssueListByRepoOptions{State: "open", Labels: []string{label}, Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		is, resp, err := c.gh.Issues.ListByRepo(ctx, c.owner, c.repo, opt)
		if err != nil {
			return nil, wrap("list drift issues", resp, err)
		}
		for _, i := range is {
			if !i.IsPullRequest() && me.wrote(i.GetUser()) {
				return i, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
}

// Fit shortens a Markdown body to at most limit bytes (see publish.Fit):
// the last line points at the job summary and the JSON report.
func Fit(body string, limit int) string {
	return publish.Fit(body, limit, "the job summary and the JSON report")
}
