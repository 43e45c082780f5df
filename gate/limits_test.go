package gate

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLineLimits: a line one byte over its reader's limit is refused
// naming the file, the line and the limit; a line at the limit is read.
func TestLineLimits(t *testing.T) {
	first := `{"id":"q1","query":"x","gold":{"a":1}}` + "\n"
	at := `{"id":"q2","query":"` + strings.Repeat("y", MaxSetLineBytes-len(`{"id":"q2","query":"","gold":{"a":1}}`)) + `","gold":{"a":1}}`
	if _, err := ParseSet(strings.NewReader(first+at+"\r\n"), "set.jsonl"); err != nil {
		t.Errorf("a line of exactly %d bytes: %v", MaxSetLineBytes, err)
	}
	over := strings.Replace(at, "yy", "yyy", 1)
	_, err := ParseSet(strings.NewReader(first+over+"\n"), "set.jsonl")
	var le *LimitError
	if !IsInput(err) || !errors.As(err, &le) || err.Error() != "set.jsonl: line 2 is longer than 1 MiB" {
		t.Errorf("a line of %d bytes: %v", len(over), err)
	}
	_, err = ParseSet(strings.NewReader(first+over), "set.jsonl") // no final newline
	if !errors.As(err, &le) {
		t.Errorf("a last line of %d bytes: %v", len(over), err)
	}
}

// TestJSONDepthLimit: a corpus line nested deeper than MaxJSONDepth in
// its free-form metadata is an input error naming the line and where.
func TestJSONDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth)
	path := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"d0","text":"t"}`+"\n"+`{"id":"d1","text":"t","metadata":{"m":`+deep+`}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WalkCorpus(path, func(Document) error { return nil })
	if !IsInput(err) || !strings.Contains(err.Error(), "corpus.jsonl:2") || !strings.Contains(err.Error(), "nested more than 64 levels deep (at $.metadata.m"+strings.Repeat("[0]", MaxJSONDepth-2)+")") {
		t.Errorf("corpus: %v", err)
	}
}

// TestGzipCorpusRatio: a gzipped corpus of ordinary lines that expands
// more than MaxGzipRatio (past MinGzipAllowance) is refused.
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
	err := WalkCorpus(path, func(Document) error { docs++; return nil })
	if !IsInput(err) || !errors.Is(err, ErrGzipBomb) || docs > 64 {
		t.Errorf("%d documents, %v", docs, err)
	}
	t.Log(err)
}

// TestCorpusDocumentLimit: a file of a corpus folder larger than
// MaxCorpusLineBytes is refused before it is read.
func TestCorpusDocumentLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\ntext"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxCorpusLineBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	err = WalkCorpus(dir, func(Document) error { return nil })
	if !IsInput(err) || !strings.Contains(err.Error(), "big.txt: read corpus document: the document is longer than 16 MiB") {
		t.Errorf("%v", err)
	}
}

// TestSetQueryIDLimit: a set's query id over MaxRunIDBytes is refused at
// load by file:line, as a run's is (JSON lines and qrels alike), and the
// message prints at most MaxShownIDChars characters of it; an id at the
// limit loads.
func TestSetQueryIDLimit(t *testing.T) {
	at := strings.Repeat("q", MaxRunIDBytes)
	line := func(id string) string { return `{"id":"` + id + `","query":"x","gold":{"a":1}}` + "\n" }
	if _, err := ParseSet(strings.NewReader(line("q1")+line(at)), "set.jsonl"); err != nil {
		t.Errorf("an id of exactly %d bytes: %v", MaxRunIDBytes, err)
	}
	long := strings.Repeat("q", 70000)
	for name, in := range map[string]string{"jsonl": line("q1") + line(long), "qrels": "q1 0 a 1\n" + long + " 0 a 1\n"} {
		_, err := ParseSet(strings.NewReader(in), "set."+name)
		want := "set." + name + ":2: "
		if !IsInput(err) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "70000 bytes, over the 4096-byte limit of a query id") {
			t.Errorf("%s: a 70,000-byte id: %.300v", name, err)
			continue
		}
		if n := strings.Count(err.Error(), "q"); n > MaxShownIDChars {
			t.Errorf("%s: the message prints %d characters of the id, more than %d", name, n, MaxShownIDChars)
		}
	}
}
