// Package mddoc reads the project's own documentation (README.md and
// docs/*.md) for the tests that keep it true: its pages, the fenced code
// blocks in them with the file and line each starts on, and the blocks
// under one heading wherever that heading lives. A workflow or a config
// moved from one page to another is still found, and still tested.
package mddoc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/recallgate/recallgate/gate/section"
)

// Page is one Markdown file of the documentation.
type Page struct {
	// Path is the file's path relative to the repository root, with
	// forward slashes ("README.md", "docs/config.md").
	Path string
	// Text is the file's content.
	Text string
}

// Block is one fenced code block of a page.
type Block struct {
	// Path is the page's path relative to the repository root.
	Path string
	// Line is the 1-based line of the block's first content line.
	Line int
	// Lang is the fence's info string ("yaml", "toml", "sh", or "").
	Lang string
	// Heading is the nearest heading line above the block ("## Nightly
	// drift"), "" before the first one.
	Heading string
	// Text is the block's content, each line ending in a newline, the
	// fences left out: byte for byte what a reader copies.
	Text string
}

// Pages reads README.md and every docs/*.md under root, README first,
// then the docs pages sorted by name.
func Pages(root string) ([]Page, error) {
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	names = append([]string{filepath.Join(root, "README.md")}, names...)
	pages := make([]Page, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("read the documentation: %w", err)
		}
		rel, err := filepath.Rel(root, n)
		if err != nil {
			return nil, err
		}
		pages = append(pages, Page{Path: filepath.ToSlash(rel), Text: string(b)})
	}
	return pages, nil
}

// Blocks returns the fenced code blocks of a page in order. A fence is a
// line starting with three backquotes; an unclosed block runs to the end.
func (p Page) Blocks() []Block {
	var out []Block
	var cur *Block
	var body strings.Builder
	heading := ""
	lines := strings.Split(p.Text, "\n")
	for i, line := range lines {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &Block{Path: p.Path, Line: i + 2, Lang: strings.TrimSpace(strings.TrimPrefix(line, "```")), Heading: heading}
			body.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.Text = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		case strings.HasPrefix(line, "#"):
			heading = line
		}
	}
	if cur != nil {
		cur.Text = body.String()
		out = append(out, *cur)
	}
	return out
}

// AllBlocks returns every fenced block with the given info string (every
// block when lang is "") across the documentation under root, in page
// order.
func AllBlocks(root, lang string) ([]Block, error) {
	pages, err := Pages(root)
	if err != nil {
		return nil, err
	}
	var out []Block
	for _, p := range pages {
		for _, b := range p.Blocks() {
			if lang == "" || b.Lang == lang {
				out = append(out, b)
			}
		}
	}
	return out, nil
}

// Under returns the blocks with the given info string in the section
// that starts at the heading line (written in full: "## Nightly drift"),
// up to the next heading of the same or a higher level, subsections
// included. The heading must be on exactly one page.
func Under(root, heading, lang string) ([]Block, error) {
	pages, err := Pages(root)
	if err != nil {
		return nil, err
	}
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	var found []Block
	where := []string{}
	for _, p := range pages {
		// The section: from the heading to the next one of its level or
		// higher, headings inside code blocks not counted.
		start, end := -1, -1
		lines := strings.Split(p.Text, "\n")
		for _, h := range p.headings() {
			l := len(lines[h]) - len(strings.TrimLeft(lines[h], "#"))
			switch {
			case lines[h] == heading:
				start, end = h, -1
			case start >= 0 && end < 0 && l <= level:
				end = h
			}
		}
		if start < 0 {
			continue
		}
		if end < 0 {
			end = len(lines)
		}
		where = append(where, p.Path)
		for _, b := range p.Blocks() {
			if fence := b.Line - 2; fence > start && fence < end && (lang == "" || b.Lang == lang) {
				found = append(found, b)
			}
		}
	}
	switch len(where) {
	case 0:
		return nil, fmt.Errorf("no page of README.md and docs/*.md has the heading %q", heading)
	case 1:
		return found, nil
	default:
		return nil, fmt.Errorf("the heading %q is on %d pages (%s): make it unique", heading, len(where), strings.Join(where, ", "))
	}
}

// headings returns the 0-based line numbers of the page's heading lines,
// leaving out lines inside fenced code blocks.
func (p Page) headings() []int {
	var out []int
	fence := false
	for i, line := range strings.Split(p.Text, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			fence = !fence
		case !fence && strings.HasPrefix(line, "#"):
			out = append(out, i)
		}
	}
	return out
}

// Anchors returns the anchors GitHub gives the page's headings, as
// gate/section reads them (its Slug: lower case, spaces as hyphens,
// punctuation other than hyphens and underscores dropped, and -1, -2, …
// after a repeated one).
func (p Page) Anchors() map[string]bool {
	out := map[string]bool{}
	for _, s := range section.Parse(section.Markdown, p.Text) {
		out[s.Anchor] = true
	}
	return out
}

// Link is one Markdown link or image of a page: [text](Target).
type Link struct {
	// Path is the page's path relative to the repository root.
	Path string
	// Line is the 1-based line the link is on.
	Line int
	// Target is what the parentheses hold ("config.md#builtin",
	// "#exit-codes", "https://…").
	Target string
}

// linkRE finds inline links and images; a title after the target is not
// used in this documentation.
var linkRE = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// Links returns the page's inline links and images, leaving out code
// blocks and code spans.
func (p Page) Links() []Link {
	var out []Link
	fence := false
	span := regexp.MustCompile("`[^`]*`")
	for i, line := range strings.Split(p.Text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(span.ReplaceAllString(line, ""), -1) {
			out = append(out, Link{Path: p.Path, Line: i + 1, Target: m[1]})
		}
	}
	return out
}
