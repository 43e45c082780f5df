package gate

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Document is one document of a corpus.
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// corpusExts are the file endings read from a corpus folder.
var corpusExts = map[string]bool{".txt": true, ".md": true, ".markdown": true, ".text": true}

// WalkCorpus calls fn for each document of a corpus, in a stable order. A
// corpus is either a folder of text and Markdown files, where the id is the
// path relative to the folder without its extension and with forward
// slashes, or a JSONL file of {"id","title","text"} lines (the BEIR format),
// gzip-compressed when its name ends in .gz.
func WalkCorpus(path string, fn func(Document) error) error {
	info, err := os.Stat(path)
	if err != nil {
		return &InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
	}
	if info.IsDir() {
		return walkCorpusDir(path, fn)
	}
	f, err := openInput(path)
	if err != nil {
		return &InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return &InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
		}
		defer zr.Close()
		st, err := f.Stat()
		if err != nil {
			return &InputError{File: path, Err: fmt.Errorf("open corpus: %w", err)}
		}
		r = &ratioReader{R: zr, Compressed: st.Size()}
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
		return &InputError{File: root, Err: fmt.Errorf("read corpus: %w", err)}
	}
	sort.Strings(files)
	if len(files) == 0 {
		if entries, _ := os.ReadDir(root); len(entries) == 0 {
			return &InfraError{Err: fmt.Errorf("corpus folder %s is empty (a git submodule not checked out?): %s", root, checkoutFix)}
		}
		return &InputError{File: root, Err: errors.New("corpus folder holds no .txt or .md files")}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return &InputError{File: root, Err: fmt.Errorf("read corpus: %w", err)}
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return &InputError{File: root, Err: fmt.Errorf("read corpus: %w", err)}
	}
	for _, p := range files {
		// A document is a regular file inside the corpus folder, symbolic
		// links followed: a link to /proc/self/environ or to a file
		// elsewhere on the runner must not be indexed (and quoted back).
		real, err := CheckInputFile(p)
		if err != nil {
			return &InputError{File: p, Err: fmt.Errorf("corpus document refused: %w", err)}
		}
		if !within(realRoot, real) {
			return &InputError{File: p, Err: fmt.Errorf("corpus document refused: it resolves to %s, outside the corpus folder %s", real, realRoot)}
		}
		data, err := readDocument(real)
		if err == nil && isLFSPointer(data) {
			return LFSPointerError(p)
		}
		if err != nil {
			return &InputError{File: p, Err: fmt.Errorf("read corpus document: %w", err)}
		}
		rel, _ := filepath.Rel(root, p)
		id := filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
		title, text := splitTitle(string(data))
		if err := fn(Document{ID: id, Title: title, Text: text}); err != nil {
			return err
		}
	}
	return nil
}

// readDocument reads one file of a corpus folder, refusing one longer
// than MaxCorpusLineBytes before reading it.
func readDocument(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxCorpusLineBytes {
		return nil, &LimitError{What: "the document", Limit: MaxCorpusLineBytes}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxCorpusLineBytes+1))
	if err == nil && len(data) > MaxCorpusLineBytes {
		return nil, &LimitError{What: "the document", Limit: MaxCorpusLineBytes}
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

func readCorpusJSONL(r io.Reader, name string, fn func(Document) error) error {
	seen := map[string]int{}
	err := eachLine(r, name, MaxCorpusLineBytes, func(line []byte, n int) error {
		var raw struct {
			ID       *string         `json:"id"`
			Title    string          `json:"title"`
			Text     string          `json:"text"`
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := DecodeStrict(line, &raw); err != nil {
			return jsonLineError(name, n, err)
		}
		if raw.ID == nil || *raw.ID == "" {
			return inputErr(name, n, "id", "required and must not be empty")
		}
		if prev, dup := seen[*raw.ID]; dup {
			return inputErr(name, n, "id", "duplicate document id %q (first on line %d)", ClipID(*raw.ID), prev)
		}
		seen[*raw.ID] = n
		if err := fn(Document{ID: *raw.ID, Title: raw.Title, Text: raw.Text}); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(seen) == 0 {
		return inputErr(name, 0, "", "corpus is empty")
	}
	return nil
}

// MissingGold lists, per query id in set order, the gold documents (any
// grade) that are not in the corpus: a data-quality bug, not a retrieval
// failure.
func MissingGold(s *Set, ids map[string]bool) map[string][]string {
	out := map[string][]string{}
	for _, q := range s.Queries {
		for d := range q.Gold {
			if !ids[d] {
				out[q.ID] = append(out[q.ID], d)
			}
		}
		sort.Strings(out[q.ID])
		if len(out[q.ID]) == 0 {
			delete(out, q.ID)
		}
	}
	return out
}
