package section

import (
	"path"
	"strings"
)

// Format is how a document's text is read for its headings.
type Format uint8

// The formats a document can be read in.
const (
	// Plain text has no headings and so no sections.
	Plain Format = iota
	// Markdown: ATX ("## Title") and Setext (a line underlined with === or
	// ---) headings, an explicit anchor at the end ("## Title {#id}"),
	// fenced code and a leading YAML front matter skipped.
	Markdown
	// HTML: the h1 to h6 elements, an id attribute as the anchor;
	// comments, script and style skipped.
	HTML
)

// String names the format as the documentation does.
func (f Format) String() string {
	switch f {
	case Markdown:
		return "markdown"
	case HTML:
		return "html"
	}
	return "plain"
}

// FormatOf is the format of a file by its name's ending: .md, .markdown
// and .mdx are Markdown, .html and .htm HTML, anything else plain text.
func FormatOf(name string) Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx":
		return Markdown
	case ".html", ".htm":
		return HTML
	}
	return Plain
}

// Section is one section of a document.
type Section struct {
	// Anchor is the section's id in its document: GitHub's slug of its
	// heading (counted past repeats), the heading's explicit id, or the
	// anchor the corpus gave.
	Anchor string `json:"anchor"`
	// Heading is the heading's text as a reader sees it ("" when the
	// corpus gave the section).
	Heading string `json:"heading,omitempty"`
	// Level is the heading's level, 1 to 6 (0 when the corpus gave it).
	Level int `json:"level,omitempty"`
	// Start and End are the section's byte offsets in the document's
	// text, End exclusive: from the heading's first byte to the next
	// heading of the same or a higher level, or the end.
	Start int `json:"start"`
	End   int `json:"end"`
}

// heading is a heading found in a text, before its span is known.
type heading struct {
	start    int
	level    int
	text     string
	explicit string
}

// Parse returns the sections of a document's text in the given format,
// in document order (a section's subsections follow it and lie inside
// it). Plain text has none.
func Parse(f Format, text string) []Section {
	var hs []heading
	switch f {
	case Markdown:
		hs = markdownHeadings(text)
	case HTML:
		hs = htmlHeadings(text)
	default:
		return nil
	}
	return spans(hs, len(text))
}

// spans names each heading and runs it to the next heading of the same
// or a higher level.
func spans(hs []heading, size int) []Section {
	if len(hs) == 0 {
		return nil
	}
	var sl Slugger
	out := make([]Section, len(hs))
	for i, h := range hs {
		anchor := h.explicit
		if anchor != "" {
			sl.Take(anchor)
		} else {
			anchor = sl.Slug(h.text)
		}
		end := size
		for _, n := range hs[i+1:] {
			if n.level <= h.level {
				end = n.start
				break
			}
		}
		out[i] = Section{Anchor: anchor, Heading: h.text, Level: h.level, Start: h.start, End: end}
	}
	return out
}
