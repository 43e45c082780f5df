package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recallgate/recallgate/gate"
	"github.com/recallgate/recallgate/internal/cmarkgfm"
)

// madeUpFixture is ten queries (gold dNN 1, z judged 0) at N = 3, k = 1,
// a corpus folder holding the gold, z and f, a base run answering dNN, z,
// f and a head run answering made(i), dNN, z: recall@3 does not move, the
// head's top 1 is an id of its own on every query.
func madeUpFixture(t *testing.T, made func(i int) string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	var set, base, head strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&set, `{"id":"q%02d","query":"question %d","gold":{"d%02d":1,"z":0}}`+"\n", i, i, i)
		fmt.Fprintf(&base, `{"id":"q%02d","hits":[{"doc":"d%02d"},{"doc":"z"},{"doc":"f"}]}`+"\n", i, i)
		fmt.Fprintf(&head, `{"id":"q%02d","hits":[{"doc":%q},{"doc":"d%02d"},{"doc":"z"}]}`+"\n", i, made(i), i)
		write(t, dir, fmt.Sprintf("corpus/d%02d.md", i), fmt.Sprintf("document %d", i))
	}
	write(t, dir, "corpus/z.md", "judged not relevant")
	write(t, dir, "corpus/f.md", "filler")
	write(t, dir, "set.jsonl", set.String())
	write(t, dir, "base.jsonl", base.String())
	write(t, dir, "head.jsonl", head.String())
	return dir
}

// strictGate is the base branch's strict gate of issue #41.
const strictGate = "[depth]\ncandidates = 3\ncontext = 1\n[gate]\nmax_recall_drop = 0.02\nmax_new_misses = 0\n"

// TestMadeUpIDsNamedCorpus: with a corpus named in the config, a head
// whose top 1 on all ten queries is an id the corpus does not hold
// (zz-q01 …) fails on precision@1 and nDCG@1 (exit 1): the ids are no
// documents, so nothing is "nobody judged" and there is no label debt;
// the report counts them per side in one line. Without the corpus they
// are documents nobody judged, counted non-relevant by default: the gate
// fails too (exit 1), its reason naming them and how to clear them.
func TestMadeUpIDsNamedCorpus(t *testing.T) {
	dir := madeUpFixture(t, func(i int) string { return fmt.Sprintf("zz-q%02d", i) })
	files := "set = \"set.jsonl\"\n" + strictGate + "[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n"
	cfg := write(t, dir, "recallgate.toml", "corpus = \"corpus\"\n"+files)
	code, out, errs := rg(t, "gate", "--config", cfg)
	if code != 1 {
		t.Fatalf("corpus named: exit %d, want 1 (fail)\n%s%s", code, out, errs)
	}
	for _, want := range []string{"mean precision@1 dropped by 1.000", "mean nDCG@1 dropped by 1.000",
		"Not in the corpus: returned ids that name no document of it, the head 10 in 10 queries (zz-q01, zz-q02, zz-q03, zz-q04, zz-q05, zz-q06, zz-q07, zz-q08, zz-q09, zz-q10); the base none."} {
		if !strings.Contains(out, want) {
			t.Errorf("corpus named: the report lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"nobody judged", "Label debt", "judge them"} {
		if strings.Contains(out, not) {
			t.Errorf("corpus named: the report says %q of ids that are no documents:\n%s", not, out)
		}
	}
	code, out, _ = rg(t, "gate", "--config", cfg, "--format", "json")
	if code != 1 || !strings.Contains(out, `"not_in_corpus": {`) || !strings.Contains(out, `"head": 10,`) || !strings.Contains(out, `"label_debt": {
      "documents": 0,`) {
		t.Errorf("json: exit %d, want not_in_corpus head 10 and no label debt:\n%s", code, out)
	}

	noCorpus := write(t, dir, "nocorpus.toml", files)
	code, out, errs = rg(t, "gate", "--config", noCorpus)
	if code != 1 || !strings.Contains(out, "fails with 10 documents nobody judged in the head's top 1 counted non-relevant") || strings.Contains(out, "Not in the corpus") {
		t.Errorf("corpus unknown: exit %d, want 1 (trec_eval's reading) naming the documents nobody judged:\n%s%s", code, out, errs)
	}
}

// TestMadeUpIDsBuiltin: a config whose head is the builtin retriever makes
// its corpus known; run files compared under it (compare --config) are
// judged against that corpus, so the made-up ids fail the gate.
func TestMadeUpIDsBuiltin(t *testing.T) {
	dir := madeUpFixture(t, func(i int) string { return fmt.Sprintf("zz-q%02d", i) })
	cfg := write(t, dir, "recallgate.toml", "set = \"set.jsonl\"\n"+strictGate+"[base.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\n[head.retriever]\ntype = \"builtin\"\ncorpus = \"corpus\"\n")
	code, out, errs := rg(t, "compare", "--config", cfg, "--base", filepath.Join(dir, "base.jsonl"), "--head", filepath.Join(dir, "head.jsonl"))
	if code != 1 || !strings.Contains(out, "the head 10 in 10 queries (zz-q01,") || strings.Contains(out, "nobody judged") {
		t.Errorf("builtin: exit %d, want 1 (fail) with the ten ids counted, none unjudged:\n%s%s", code, out, errs)
	}
}

// TestLookAlikeIDsEndToEnd: the head puts an id that reads as the gold
// (d01 with a space after or before it, a zero-width space inside, in
// full-width letters, with Cyrillic ԁ U+0501, with the braille blank
// U+2800 after it) at rank 1 of every query. With the corpus named in
// the config it is no document: the gate fails (exit 1) on precision@1
// and nDCG@1. Without it the id is a document nobody judged, counted
// non-relevant: the gate fails too (exit 1), and the comment GitHub renders (cmark-gfm) shows the id marked, under "nobody
// judged" too: no code span reads as d01 but d01 itself.
func TestLookAlikeIDsEndToEnd(t *testing.T) {
	for _, k := range []struct {
		name  string
		made  func(i int) string
		shown string
	}{
		{"trailing space", func(i int) string { return fmt.Sprintf("d%02d ", i) }, "d01⟨U+0020⟩"},
		{"leading space", func(i int) string { return fmt.Sprintf(" d%02d", i) }, "⟨U+0020⟩d01"},
		{"zero-width", func(i int) string { return fmt.Sprintf("d\u200b%02d", i) }, "d⟨U+200B⟩01"},
		{"full-width", func(i int) string { return fmt.Sprintf("\uff44%02d", i) }, "⟨U+FF44⟩01"},
		{"another script", func(i int) string { return fmt.Sprintf("\u0501%02d", i) }, "⟨U+0501⟩01"}, // Cyrillic komi de
		{"blank-drawn", func(i int) string { return fmt.Sprintf("d%02d\u2800", i) }, "d01⟨U+2800⟩"},  // the braille blank
	} {
		dir := madeUpFixture(t, k.made)
		files := "set = \"set.jsonl\"\n" + strictGate + "[base.retriever]\ntype = \"file\"\npath = \"base.jsonl\"\n[head.retriever]\ntype = \"file\"\npath = \"head.jsonl\"\n"
		cfg := write(t, dir, "recallgate.toml", "corpus = \"corpus\"\n"+files)
		if code, out, errs := rg(t, "gate", "--config", cfg); code != 1 || !strings.Contains(out, "the head 10 in 10 queries ("+k.shown+",") {
			t.Errorf("%s, corpus named: exit %d, want 1 with the ids counted and marked:\n%s%s", k.name, code, out, errs)
		}
		noCorpus := write(t, dir, "nocorpus.toml", files)
		code, md, errs := rg(t, "gate", "--config", noCorpus, "--format", "markdown")
		if code != 1 {
			t.Errorf("%s, corpus unknown: exit %d, want 1 (documents nobody judged count non-relevant)\n%s", k.name, code, errs)
		}
		t.Run(k.name+", comment", func(t *testing.T) {
			htm := cmarkgfm.HTML(t, md)
			marked := false
			for _, c := range cmarkgfm.Codes(htm) {
				marked = marked || strings.Contains(c, k.shown)
				if gate.FoldName(strings.TrimSpace(c)) == "d01" && c != "d01" {
					t.Errorf("the comment has a code span that reads as d01 and is %q", c)
				}
			}
			if !marked {
				t.Errorf("no code span of the comment shows %q:\n%s", k.shown, htm)
			}
			if raw := k.made(1); strings.TrimSpace(raw) == raw && strings.Contains(htm, raw) {
				t.Errorf("the comment shows the id %q unmarked:\n%s", raw, htm)
			}
		})
	}
}

// TestHTMLReportMarksLookAlikeIDs: what the HTML page draws from its model
// (the ranked lists, what took the gold's place) marks a look-alike id as
// the other formats do (the page's visID, gate.VisibleID's twin).
func TestHTMLReportMarksLookAlikeIDs(t *testing.T) {
	browser := needChromium(t, "")
	dir := t.TempDir()
	set := write(t, dir, "set.jsonl", `{"id":"q1","query":"first","gold":{"d01":1}}`+"\n")
	base := write(t, dir, "base.jsonl", `{"id":"q1","hits":[{"doc":"d01"}]}`+"\n")
	head := write(t, dir, "head.jsonl", `{"id":"q1","hits":[{"doc":"d01 "},{"doc":" d01"},{"doc":"\uff44\uff10\uff11"},{"doc":"d0\u0301"},{"doc":"\u050101"},{"doc":"d01\u2800"},{"doc":"документ"}]}`+"\n")
	dom := reportDOM(t, browser, dir, set, base, head)
	for _, want := range []string{"<li>d01⟨U+0020⟩</li>", "<li>⟨U+0020⟩d01</li>", "<li>⟨U+FF44⟩⟨U+FF10⟩⟨U+FF11⟩</li>", "<li>d0⟨U+0301⟩</li>", "replaced by d01⟨U+0020⟩",
		"<li>⟨U+0501⟩01</li>", "<li>d01⟨U+2800⟩</li>", "<li>документ</li>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
