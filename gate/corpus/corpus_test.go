package corpus

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
)

// TestJSONDepthLimit: a corpus line nested deeper than gate.MaxJSONDepth in
// its free-form metadata is an input error naming the line and where.
func TestJSONDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", gate.MaxJSONDepth) + strings.Repeat("]", gate.MaxJSONDepth)
	path := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"d0","text":"t"}`+"\n"+`{"id":"d1","text":"t","metadata":{"m":`+deep+`}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Walk(path, func(Document) error { return nil })
	if !gate.IsInput(err) || !strings.Contains(err.Error(), "corpus.jsonl:2") || !strings.Contains(err.Error(), "nested more than 64 levels deep (at $.metadata.m"+strings.Repeat("[0]", gate.MaxJSONDepth-2)+")") {
		t.Errorf("corpus: %v", err)
	}
}

// TestGzipCorpusRatio: a gzipped corpus of ordinary lines that expands
// more than gate.MaxGzipRatio (past gate.MinGzipAllowance) is refused.
func TestGzipCorpusRatio(t *testing.T) {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	text := strings.Repeat("a", 1<<20)
	for i := range 80 {
		fmt.Fprintf(zw, `{"id":"d%d","text":"%s"}`+"\n", i, text)
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "corpus.jsonl.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	docs := 0
	err := Walk(path, func(Document) error { docs++; return nil })
	if !gate.IsInput(err) || !errors.Is(err, gate.ErrGzipBomb) || docs > 64 {
		t.Errorf("%d documents, %v", docs, err)
	}
	t.Log(err)
}

// TestCorpusDocumentLimit: a file of a corpus folder larger than
// gate.MaxCorpusLineBytes is refused before it is read.
func TestCorpusDocumentLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\ntext"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(gate.MaxCorpusLineBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = Walk(dir, func(Document) error { return nil })
	if !gate.IsInput(err) || !strings.Contains(err.Error(), "big.txt: read corpus document: the document is longer than 16 MiB") {
		t.Errorf("%v", err)
	}
}

// BenchmarkFingerprint hashes a 10,000-document JSONL corpus of
// about 1 KiB a document, streamed: memory stays one document.
func BenchmarkFingerprint(b *testing.B) {
	path := filepath.Join(b.TempDir(), "corpus.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 23)
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(f, `{"id":"doc/%05d","title":"Document %d","text":%q}`+"\n", i, i, text)
	}
	st, _ := f.Stat()
	f.Close()
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Fingerprint(path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHashIsLenPrefixed pins a corpus fingerprint's bytes: each
// document's id, title and text as "len:part" (fmt's "%d:%s"), in order,
// the buffer reused between documents of different sizes.
func TestHashIsLenPrefixed(t *testing.T) {
	docs := []Document{
		{ID: "a", Title: "Long", Text: strings.Repeat("words ", 5000)},
		{ID: "b", Text: "short"},
		{ID: "ç", Title: "t:1", Text: ""},
	}
	h := NewHash()
	var b strings.Builder
	for _, d := range docs {
		h.Add(d)
		fmt.Fprintf(&b, "%d:%s%d:%s%d:%s", len(d.ID), d.ID, len(d.Title), d.Title, len(d.Text), d.Text)
	}
	sum := sha256.Sum256([]byte(b.String()))
	if got, want := h.Sum(), "sha256:"+hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Sum = %s, want %s", got, want)
	}
}

// TestHTMLTitle: the first <title> element's text, entities decoded and
// spaces collapsed; none without one.
func TestHTMLTitle(t *testing.T) {
	for in, want := range map[string]string{
		"<html><head><TITLE lang=en>Backup &amp;\n  restore</TITLE></head>": "Backup & restore",
		"<h1>No title</h1>":                "",
		"<title>never closed":              "",
		"<title>a</title><title>b</title>": "a",
	} {
		if got := htmlTitle(in); got != want {
			t.Errorf("htmlTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWalkHTMLFile: an .html file of a corpus folder is an HTML document,
// its text the whole file (as a JSONL line's HTML text is read), its title
// the <title> element's; a .md file beside it keeps its "# " title line.
func TestWalkHTMLFile(t *testing.T) {
	dir := t.TempDir()
	page := "<title>Guide</title>\n<h2 id=\"a\">A</h2><p>x</p>\n"
	os.WriteFile(filepath.Join(dir, "page.html"), []byte(page), 0o644)
	os.WriteFile(filepath.Join(dir, "note.md"), []byte("# Note\n## B\ny\n"), 0o644)
	var got []string
	if err := Walk(dir, func(d Document) error {
		got = append(got, fmt.Sprintf("%s|%s|%s|%q", d.ID, d.Title, d.Format, d.Text))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{`note|Note|markdown|"## B\ny\n"`, fmt.Sprintf("page|Guide|html|%q", page)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Walk read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
