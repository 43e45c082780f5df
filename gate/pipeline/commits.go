package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/config"
	"github.com/recallgate/recallgate/gate/report"
	"github.com/recallgate/recallgate/gate/visible"
	"github.com/recallgate/recallgate/internal/confine"
	"github.com/recallgate/recallgate/internal/gitexec"
)

// InputFiles are the files and folders a drift run's inputs come from:
// the config, the set and its queries file, the corpus, the head
// retriever's corpus or run file, and the files its command names
// (spec.Retriever.NamedFiles, the same list the retriever fingerprint
// hashes). Absolute, each once, in that order.
func InputFiles(cfg *config.Config) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil && !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	add(cfg.Path)
	add(cfg.Set)
	add(cfg.Queries)
	add(cfg.SideCorpus("head"))
	if r := cfg.Head; r != nil {
		add(r.Corpus)
		add(r.Path)
		for _, f := range r.NamedFiles() {
			add(f)
		}
	}
	return out
}

// headCommit is the commit checked out in the git checkout holding the
// config ("" and no error outside one, or without git), read with
// bounded git (readGit): the commit a baseline is made at.
func headCommit(ctx context.Context, cfg *config.Config) (string, error) {
	if !gitexec.Installed() {
		return "", nil
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	top, err := gitexec.TopLevel(ctx, filepath.Dir(abs))
	if err != nil {
		return "", nil // not a checkout
	}
	c, err := gitexec.Head(ctx, top)
	if err != nil {
		return "", fmt.Errorf("no commit checked out (%v)", err)
	}
	return c, nil
}

// maxSubjectRunes bounds a commit subject as reports show it.
const maxSubjectRunes = 200

// CommitsSince lists the commits after since, newest first and at most
// gate.MaxBaselineCommits, that touched one of the drift run's inputs
// (InputFiles), in the git checkout holding the config; more says older
// ones were left out. git runs bounded in time, with no pager, no hooks,
// no fsmonitor and no signature check (nothing of the repository's runs).
// An error says why they cannot be listed (no git, not a checkout, the
// commit not in this clone).
func CommitsSince(ctx context.Context, cfg *config.Config, since string) (commits []gate.BaselineCommit, more bool, err error) {
	if !report.IsCommitSHA(since) {
		return nil, false, fmt.Errorf("%.80q is not a commit hash", since)
	}
	if !gitexec.Installed() {
		return nil, false, gitexec.ErrNotInstalled
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	top, err := gitexec.TopLevel(ctx, filepath.Dir(abs))
	if err != nil {
		return nil, false, fmt.Errorf("not a git checkout (%v)", err)
	}
	if _, err := readGit(ctx, top, "cat-file", "-e", since+"^{commit}"); err != nil {
		return nil, false, fmt.Errorf("commit %s is not in this checkout (a shallow clone? fetch the history, e.g. fetch-depth: 0)", ShortSHA(since))
	}
	args := []string{"log", "--no-color", "--no-decorate", "--no-show-signature", "--no-ext-diff", "--no-textconv", "--format=%h%x00%s",
		"-n", fmt.Sprint(gate.MaxBaselineCommits + 1), since + "..HEAD", "--"}
	paths := 0
	for _, f := range InputFiles(cfg) {
		if rel, ok := inside(top, f); ok {
			args = append(args, ":(literal)"+rel)
			paths++
		}
	}
	if paths == 0 {
		return nil, false, errors.New("no input is inside the checkout")
	}
	out, err := readGit(ctx, top, args...)
	if err != nil {
		return nil, false, err
	}
	for _, line := range strings.Split(out, "\n") {
		sha, subject, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		// A subject is the repository's text: valid UTF-8 without control
		// characters, as reports and their strict reader take it.
		subject = plainText(subject)
		if r := []rune(subject); len(r) > maxSubjectRunes {
			subject = string(r[:maxSubjectRunes]) + "…"
		}
		commits = append(commits, gate.BaselineCommit{SHA: sha, Subject: subject})
	}
	if len(commits) > gate.MaxBaselineCommits {
		commits, more = commits[:gate.MaxBaselineCommits], true
	}
	return commits, more, nil
}

// RetrieverFiles are the files the head retriever's fingerprint covers
// (the config holding its table, the files its start or command names:
// spec.Retriever.NamedFiles) that commits after since touched, each with
// the newest such commit, in that order; nil when git cannot tell (no
// git, not a checkout, since not in it), as bounded as CommitsSince.
func RetrieverFiles(ctx context.Context, cfg *config.Config, since string) []gate.ChangedFile {
	if cfg.Head == nil || !report.IsCommitSHA(since) || !gitexec.Installed() {
		return nil
	}
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	top, err := gitexec.TopLevel(ctx, filepath.Dir(abs))
	if err != nil {
		return nil
	}
	var out []gate.ChangedFile
	for _, f := range append([]string{abs}, cfg.Head.NamedFiles()...) {
		rel, ok := inside(top, f)
		if !ok {
			continue
		}
		line, err := readGit(ctx, top, "log", "--no-color", "--no-decorate", "--no-show-signature", "--no-ext-diff", "--no-textconv", "--format=%h%x00%s",
			"-n", "1", since+"..HEAD", "--", ":(literal)"+rel)
		sha, subject, found := strings.Cut(strings.TrimSpace(line), "\x00")
		if err != nil || !found {
			continue
		}
		if r := []rune(plainText(subject)); len(r) > maxSubjectRunes {
			subject = string(r[:maxSubjectRunes]) + "…"
		}
		out = append(out, gate.ChangedFile{Path: plainText(rel), Commit: gate.BaselineCommit{SHA: sha, Subject: plainText(subject)}})
	}
	return out
}

// plainText is a commit's subject or git's message made safe to show:
// visible.Terminal.
func plainText(s string) string { return visible.Terminal(s) }

// inside is f relative to top, slashes, when f (its links followed,
// or, for a path that is gone, its longest existing folder's) is inside
// top.
func inside(top, f string) (string, bool) {
	real, err := confine.Resolve(f)
	if err != nil {
		return "", false
	}
	rel, ok := confine.Rel(top, real)
	return filepath.ToSlash(rel), ok
}

// readGit runs git in dir for reading, through gitexec (no pager, no
// hooks, no fsmonitor, no signature check, git's environment cleared).
func readGit(ctx context.Context, dir string, args ...string) (string, error) {
	return gitexec.Run(ctx, dir, args...)
}
