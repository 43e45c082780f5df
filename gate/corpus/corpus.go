// Package corpus reads a corpus: a folder of text and Markdown files or a
// JSONL file of documents (BEIR), and fingerprints it.
package corpus

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/gate/input"
	"github.com/recallgate/recallgate/gate/section"
)

// Document is one document of a corpus.
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	// Format is how its headings are read for its sections: by a corpus
	// folder's file ending (.md Markdown, .html HTML, .txt plain); a JSONL
	// line is HTML when its text starts with "<", else Markdown.
	Format section.Format `json:"-"`
	// Sections are the sections a JSONL line gives itself ("sections":
	// [{"anchor","start","end"}], byte offsets in Text), nil when it
	// gives none (they are read from the text then).
	Sections []section.Section `json:"-"`
}

// corpusExts are the file endings read from a corpus folder.
var corpusExts = map[string]bool{".txt": true, ".md": true, ".markdown": true, ".text": true, ".html": true, ".htm": true}

// Walk calls fn for each document of a corpus, in a stable order. A
// corpus is either a folder of text, Markdown and HTML files, where the id
// is the path relative to the folder without its extension and with
// forward slashes (an HTML file's text is the file as it is, like a JSONL
// line's HTML text, its title the <title> element's), or a JSONL file of {"id","title","text"} lines (the BEIR format),
// gzip-compressed when its name ends in .gz.
func Walk(path string, fn func(Document) error) error {
	info, err := os.Stat(path)
	if err != nil {
		return &gate.InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
	}
	if info.IsDir() {
		return walkCorpusDir(path, fn)
	}
	f, err := input.Open(path)
	if err != nil {
		return &gate.InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return &gate.InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
		}
		defer zr.Close()
		st, err := f.Stat()
		if err != nil {
			return &gate.InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
		}
		// Decompressed on a goroutine of its own, a few blocks ahead of
		// the lines' decoding.
		ra := newReadAhead(&input.RatioReader{R: zr, Compressed: st.Size()})
		defer ra.Close()
		r = ra
	}
	return readCorpusJSONL(r, path, fn)
}

func walkCorpusDir(root string, fn func(Document) error) error {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && corpusExts[strings.ToLower(filepath.Ext(p))] {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return &gate.InputError{File: root, Err: fmt.Errorf("read corpus: %w", err)}
	}
	sort.Strings(files)
	if len(files) == 0 {
		if entries, _ := os.ReadDir(root); len(entries) == 0 {
			return &gate.InfraError{Err: fmt.Errorf("corpus folder %s is empty (a git submodule not checked out?): %s", root, input.CheckoutFix)}
		}
		return &gate.InputError{File: root, Err: errors.New("corpus folder holds no .txt, .md or .html files")}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return &gate.InputError{File: root, Err: fmt.Errorf("read corpus: %w", err)}
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return &gate.InputError{File: root, Err: fmt.Errorf("read corpus: %w", err)}
	}
	for _, p := range files {
		// A document is a regular file inside the corpus folder, symbolic
		// links followed: a link to /proc/self/environ or to a file
		// elsewhere on the runner must not be indexed (and quoted back).
		real, err := gate.CheckInputFile(p)
		if err != nil {
			return &gate.InputError{File: p, Err: fmt.Errorf("corpus document refused: %w", err)}
		}
		if !input.Within(realRoot, real) {
			return &gate.InputError{File: p, Err: fmt.Errorf("corpus document refused: it resolves to %s, outside the corpus folder %s", real, realRoot)}
		}
		data, err := readDocument(real)
		if err == nil && input.IsLFSPointer(data) {
			return gate.LFSPointerError(p)
		}
		if err != nil {
			return &gate.InputError{File: p, Err: fmt.Errorf("read corpus document: %w", err)}
		}
		rel, _ := filepath.Rel(root, p)
		id := filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
		format := section.FormatOf(p)
		var title, text string
		if format == section.HTML {
			title, text = htmlTitle(string(data)), string(data)
		} else {
			title, text = splitTitle(string(data))
		}
		if err := fn(Document{ID: id, Title: title, Text: text, Format: format}); err != nil {
			return err
		}
	}
	return nil
}

// readDocument reads one file of a corpus folder, refusing one longer
// than gate.MaxCorpusLineBytes before reading it.
func readDocument(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > gate.MaxCorpusLineBytes {
		return nil, &gate.LimitError{What: "the document", Limit: gate.MaxCorpusLineBytes}
	}
	data, err := io.ReadAll(io.LimitReader(f, gate.MaxCorpusLineBytes+1))
	if err == nil && len(data) > gate.MaxCorpusLineBytes {
		return nil, &gate.LimitError{What: "the document", Limit: gate.MaxCorpusLineBytes}
	}
	return data, err
}

// splitTitle takes a leading Markdown heading ("# Title") as the title.
func splitTitle(s string) (string, string) {
	first, rest, _ := strings.Cut(s, "\n")
	if t, ok := strings.CutPrefix(strings.TrimSpace(first), "# "); ok {
		return strings.TrimSpace(t), rest
	}
	return "", s
}

// htmlTitle is the text of an HTML document's first <title> element, its
// entities decoded and its spaces collapsed ("" when it has none).
func htmlTitle(s string) string {
	lower := strings.ToLower(s)
	i := strings.Index(lower, "<title")
	if i < 0 {
		return ""
	}
	open := strings.IndexByte(lower[i:], '>')
	if open < 0 {
		return ""
	}
	start := i + open + 1
	end := strings.Index(lower[start:], "</title")
	if end < 0 {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(s[start:start+end])), " ")
}

func readCorpusJSONL(r io.Reader, name string, fn func(Document) error) error {
	seen := map[string]int{}
	err := input.EachLine(r, name, gate.MaxCorpusLineBytes, func(line []byte, n int) error {
		d, ok := decodeLine(line)
		if !ok {
			var err error
			if d, err = decodeStrict(line, name, n); err != nil {
				return err
			}
		}
		d.Format = jsonlFormat(d.Text)
		if prev, dup := seen[d.ID]; dup {
			return &gate.InputError{File: name, Line: n, Field: "id", Err: fmt.Errorf("duplicate document id %q (first on line %d)", gate.ClipID(d.ID), prev)}
		}
		seen[d.ID] = n
		return fn(d)
	})
	if err != nil {
		return err
	}
	if len(seen) == 0 {
		return &gate.InputError{File: name, Err: errors.New("corpus is empty")}
	}
	return nil
}

// decodeStrict decodes line n of a JSONL corpus with encoding/json
// (gate.DecodeStrict): what decodeLine leaves to it, and the errors,
// naming the file, the line and the field.
func decodeStrict(line []byte, name string, n int) (Document, error) {
	var raw struct {
		ID       *string           `json:"id"`
		Title    string            `json:"title"`
		Text     string            `json:"text"`
		Metadata json.RawMessage   `json:"metadata"`
		Sections []section.Section `json:"sections"`
	}
	if err := gate.DecodeStrict(line, &raw); err != nil {
		return Document{}, gate.JSONLineError(name, n, err)
	}
	if raw.ID == nil || *raw.ID == "" {
		return Document{}, &gate.InputError{File: name, Line: n, Field: "id", Err: errors.New("required and must not be empty")}
	}
	if raw.Sections != nil {
		for i := range raw.Sections {
			raw.Sections[i].Heading, raw.Sections[i].Level = "", 0
		}
		if err := section.Check(raw.Sections, len(raw.Text)); err != nil {
			return Document{}, &gate.InputError{File: name, Line: n, Field: "sections", Err: err}
		}
	}
	return Document{ID: *raw.ID, Title: raw.Title, Text: raw.Text, Sections: raw.Sections}, nil
}

// jsonlFormat is a JSONL line's format: HTML when its text starts with
// "<", else Markdown (plain text reads as Markdown without headings).
func jsonlFormat(text string) section.Format {
	if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "<") {
		return section.HTML
	}
	return section.Markdown
}
