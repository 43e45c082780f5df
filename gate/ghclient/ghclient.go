// Package ghclient is recallgate's GitHub REST client: the sticky pull
// request comment, the archive of the PR's base commit, and the
// tracking issue of the nightly drift run. It is the only importer of
// go-github. A permission refusal (403, or 404 for a token that may not
// see the repository) comes back as a *PermissionError, so callers can warn
// and keep their verdict.
package ghclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
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

// Marker is the hidden line that identifies recallgate's sticky comment for
// one config on a PR.
func Marker(config string) string {
	return fmt.Sprintf("<!-- recallgate: %s -->", strings.NewReplacer("--", "-", ">", "").Replace(config))
}

// UpsertComment finds the comment on the PR that a bot wrote starting with
// marker, across all pages, and replaces its body; it creates the comment the first time.
// The body is fitted under GitHub's length limit (see Fit).
// It reports whether a comment was created and the comment's URL.
func (c *Client) UpsertComment(ctx context.Context, pr int, marker, body string) (created bool, link string, err error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	if !strings.Contains(body, marker) {
		body = marker + "\n" + body
	}
	body = Fit(body, MaxCommentLength)
	id, err := c.findComment(ctx, pr, marker)
	if err != nil {
		return false, "", err
	}
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

// HasComment reports whether the PR already carries the sticky comment.
func (c *Client) HasComment(ctx context.Context, pr int, marker string) (bool, error) {
	ctx, cancel := c.call(ctx)
	defer cancel()
	id, err := c.findComment(ctx, pr, marker)
	return id != 0, err
}

func (c *Client) findComment(ctx context.Context, pr int, marker string) (int64, error) {
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cms, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, pr, opt)
		if err != nil {
			return 0, wrap("list PR comments", resp, err)
		}
		for _, cm := range cms {
			// Only a comment a bot wrote that starts with the marker: a
			// person (or a PR author) quoting the marker in a comment of
			// their own must not become the sticky comment.
			if strings.HasPrefix(cm.GetBody(), marker) && cm.GetUser().GetType() == "Bot" {
				return cm.GetID(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
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

// UpsertIssue keeps one open issue with the label: it updates the body of
// the oldest open one or opens a new one. The body is fitted like a comment's. It returns the issue's URL.
func (c *Client) UpsertIssue(ctx context.Context, label, title, body string) (created bool, link string, err error) {
	body = Fit(body, MaxCommentLength)
	ctx, cancel := c.call(ctx)
	defer cancel()
	is, err := c.openIssue(ctx, label)
	if err != nil {
		return false, "", err
	}
	if is != nil {
		up, resp, err := c.gh.Issues.Edit(ctx, c.owner, c.repo, is.GetNumber(), &github.IssueRequest{Title: &title, Body: &body})
		if err != nil {
			return false, "", wrap("update drift issue", resp, err)
		}
		return false, up.GetHTMLURL(), nil
	}
	labels := []string{label}
	nw, resp, err := c.gh.Issues.Create(ctx, c.owner, c.repo, &github.IssueRequest{Title: &title, Body: &body, Labels: &labels})
	if err != nil {
		return false, "", wrap("open drift issue", resp, err)
	}
	return true, nw.GetHTMLURL(), nil
}

// CommentOnIssue adds a comment to the open issue with the label, if any,
// and reports whether there was one. It never closes the issue: people do.
func (c *Client) CommentOnIssue(ctx context.Context, label, body string) (bool, error) {
	body = Fit(body, MaxCommentLength)
	ctx, cancel := c.call(ctx)
	defer cancel()
	is, err := c.openIssue(ctx, label)
	if err != nil || is == nil {
		return false, err
	}
	_, resp, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, is.GetNumber(), &github.IssueComment{Body: &body})
	return true, wrap("comment on drift issue", resp, err)
}

// openIssue returns the oldest open issue (not PR) with the label, or nil.
func (c *Client) openIssue(ctx context.Context, label string) (*github.Issue, error) {
	opt := &github.IssueListByRepoOptions{State: "open", Labels: []string{label}, Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		is, resp, err := c.gh.Issues.ListByRepo(ctx, c.owner, c.repo, opt)
		if err != nil {
			return nil, wrap("list drift issues", resp, err)
		}
		for _, i := range is {
			if !i.IsPullRequest() {
				return i, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
}

// Fit shortens a Markdown body to at most limit bytes: it cuts at a line
// break, closes any <details> left open and says how much was left out.
func Fit(body string, limit int) string {
	if len(body) <= limit {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	note := func(n int) string {
		return fmt.Sprintf("\n…and %d more lines: the full report is in the job summary and the JSON report.\n", n)
	}
	kept, size, open := 0, 0, 0
	for i, l := range lines {
		closing := strings.Repeat("\n</details>\n", open+strings.Count(l, "<details>")-strings.Count(l, "</details>"))
		if size+len(l)+len(closing)+len(note(len(lines)-i))+16 > limit {
			break
		}
		size += len(l)
		open += strings.Count(l, "<details>") - strings.Count(l, "</details>")
		kept = i + 1
	}
	out := strings.Join(lines[:kept], "")
	out += note(len(lines) - kept)
	out += strings.Repeat("\n</details>\n", max(open, 0))
	return out
}
